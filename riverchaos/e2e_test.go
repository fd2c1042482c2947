package riverchaos

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/targetsim"
)

// shortRun is a run the tests can afford: 3 processes (1 never killed,
// the only one to lead while the others are killed), a few kills,
// freezes that end at their limit, children started from the test
// binary.
func shortRun(t *testing.T, d targetsim.Design, kills int) Config {
	t.Helper()
	c := DefaultConfig()
	c.DB = pgtest.Fresh(t, pgtest.URL(t))
	workloadtest.Short(&c.Config, d, kills, childFlag)
	c.PauseEvery, c.MaxFreeze = 150*time.Millisecond, c.RescueAfter+time.Second
	c.Drain, c.Timeout = 45*time.Second, 55*time.Second
	return c
}

// River's real client under SIGKILL at every point of the correct
// handler, and SIGSTOP: every check holds, the report says so.
func TestRunTxChecked(t *testing.T) {
	c := shortRun(t, targetsim.TxChecked, 8)
	rep, out := workloadtest.Run(t, c, Run)
	workloadtest.Passed(t, rep.Report, out, c.Kills)
	if rep.Pauses == 0 {
		t.Error("no SIGSTOP")
	}
	if len(rep.Leaders) == 0 || len(rep.BadLeaders) > 0 {
		t.Errorf("leaders %v (not children: %v)", rep.Leaders, rep.BadLeaders)
	}
}

// The naive handler, its effect outside any transaction, is caught: a
// kill after the effect leaves the job running, River rescues and runs
// it again, and its document gets a second effect.
func TestRunEffectOutsideTxCaught(t *testing.T) {
	c := shortRun(t, targetsim.EffectOutsideTx, 6)
	c.PauseEvery = 0
	rep, out := workloadtest.Run(t, c, Run)
	workloadtest.Duplicated(t, rep.Report, out)
}

// Bad input is a one-line UsageError, never a panic, and starts nothing.
func TestBadInput(t *testing.T) {
	base := DefaultConfig()
	base.DB = "postgres://nobody@/nowhere?host=/nonexistent-durasim&sslmode=disable"
	for name, mod := range map[string]func(*Config){
		"no connection":     func(*Config) {},
		"no url":            func(c *Config) { c.DB = "" },
		"bad url":           func(c *Config) { c.DB = "postgres://%zz" },
		"one worker":        func(c *Config) { c.Workers = 1 },
		"all steady":        func(c *Config) { c.Steady = c.Workers },
		"kills < 0":         func(c *Config) { c.Kills = -1 },
		"outbox":            func(c *Config) { c.Design = targetsim.Outbox },
		"timeout≥rescue":    func(c *Config) { c.JobTimeout = c.RescueAfter },
		"long work":         func(c *Config) { c.Work = c.JobTimeout },
		"zombies, no pause": func(c *Config) { c.PauseEvery = 0 },
	} {
		t.Run(name, func(t *testing.T) {
			c := base
			mod(&c)
			_, err := Run(context.Background(), c)
			var ue *UsageError
			if !errors.As(err, &ue) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Run = %v, want a one-line UsageError", err)
			}
		})
	}
}
