package riverchaos

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/invariants"
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
	c.Design, c.Workers, c.Steady, c.Concurrency, c.Jobs, c.Kills = d, 3, 1, 3, 30, kills
	c.PauseEvery, c.MaxFreeze, c.Zombies = 150*time.Millisecond, c.RescueAfter+time.Second, 0
	c.Drain, c.Timeout = 45*time.Second, 55*time.Second
	c.Exe, c.ExeArgs = os.Args[0], []string{childFlag}
	return c
}

// River's real client under SIGKILL at every point of the correct
// handler, and SIGSTOP: every check holds, the report says so.
func TestRunTxChecked(t *testing.T) {
	c := shortRun(t, targetsim.TxChecked, 8)
	start := time.Now()
	rep, err := Run(context.Background(), c)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := workloadtest.Printed(t, rep.Report, time.Since(start))
	if !rep.OK() || !rep.Drained {
		t.Fatalf("the correct handler failed (drained %v):\n%s", rep.Drained, out)
	}
	workloadtest.Killed(t, rep.Report, c.Kills)
	workloadtest.Hold(t, rep.Report, out)
	if rep.Pauses == 0 {
		t.Error("no SIGSTOP")
	}
	if len(rep.Leaders) == 0 || len(rep.BadLeaders) > 0 {
		t.Errorf("leaders %v (not children: %v)", rep.Leaders, rep.BadLeaders)
	}
	if rep.Effects != rep.CompletedDocs || rep.DuplicateDocs != 0 {
		t.Errorf("effects %d for %d completed documents (%d duplicated)", rep.Effects, rep.CompletedDocs, rep.DuplicateDocs)
	}
}

// The naive handler, its effect outside any transaction, is caught: a
// kill after the effect leaves the job running, River rescues and runs
// it again, and its document gets a second effect.
func TestRunEffectOutsideTxCaught(t *testing.T) {
	c := shortRun(t, targetsim.EffectOutsideTx, 6)
	c.PauseEvery = 0
	rep, err := Run(context.Background(), c)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := workloadtest.Printed(t, rep.Report, 0)
	workloadtest.CaughtBy(t, rep.Report, out, invariants.TargetEffectOnce)
	if rep.DuplicateDocs == 0 {
		t.Errorf("no document with two effects:\n%s", out)
	}
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
