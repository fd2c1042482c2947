package asynqchaos

import (
	"slices"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// A child's command line parses back into the configuration that
// printed it.
func TestChildArgsRoundTrip(t *testing.T) {
	workloadtest.ArgsRoundTrip(t, []ChildConfig{
		{Child: workload.Child{ID: 2, Incarnation: 7, Design: targetsim.KeyWithoutTenant, Kill: crash.Assignment{At: boundary.AfterCommit, Nth: 3},
			History: "/tmp/x/w2.7.jsonl", Seed: 9, Concurrency: 3, Work: 40 * time.Millisecond}, RetryDelay: 2500 * time.Millisecond},
		{Child: workload.Child{Design: targetsim.EffectOutsideTx, Kill: crash.Assignment{Nth: 1}, Seed: 1, Concurrency: 1, Work: time.Millisecond},
			RetryDelay: time.Second},
	}, func(got *ChildConfig, c ChildConfig) { got.Redis, got.DB = c.Redis, c.DB })
}

// Bad child configurations are one-line errors; a kill point the design
// does not cross, or a design asynq cannot run, is refused.
func TestChildValidate(t *testing.T) {
	ok := workloadtest.Flagged[ChildConfig]()
	ok.Redis, ok.DB = "/tmp/r.sock", "x"
	workloadtest.Refused(t, ok, ChildConfig.Validate, map[string]func(*ChildConfig){
		"no redis":   func(c *ChildConfig) { c.Redis = "" },
		"no db":      func(c *ChildConfig) { c.DB = "" },
		"kill-nth 0": func(c *ChildConfig) { c.Kill = crash.Assignment{At: boundary.AfterFetch} },
		"no commit": func(c *ChildConfig) {
			c.Design, c.Kill = targetsim.EffectOutsideTx, crash.Assignment{At: boundary.AfterCommit, Nth: 1}
		},
		"outbox":         func(c *ChildConfig) { c.Design = targetsim.Outbox },
		"concurrency 0":  func(c *ChildConfig) { c.Concurrency = 0 },
		"no retry delay": func(c *ChildConfig) { c.RetryDelay = 0 },
	})
}

// The kill points per design: a commit only where there is a
// transaction.
func TestPoints(t *testing.T) {
	if got := PointsOf(targetsim.IdempotentKey).List(); !slices.Equal(got, []boundary.Boundary{boundary.AfterFetch, boundary.AfterEffect, boundary.AfterCommit}) {
		t.Errorf("idempotent-key points %v", got)
	}
	if got := PointsOf(targetsim.EffectOutsideTx).List(); !slices.Equal(got, []boundary.Boundary{boundary.AfterFetch, boundary.AfterEffect}) {
		t.Errorf("effect-outside-tx points %v", got)
	}
}

// A run's bad settings are one-line usage errors, before anything
// starts.
func TestConfigValidate(t *testing.T) {
	base := DefaultConfig()
	base.Redis, base.DB = "/tmp/r.sock", "x"
	workloadtest.RefusedUsage(t, base, Config.Validate, map[string]func(*Config){
		"no redis":          func(c *Config) { c.Redis = "" },
		"one worker":        func(c *Config) { c.Workers = 1 },
		"all steady":        func(c *Config) { c.Steady = c.Workers },
		"tx-checked":        func(c *Config) { c.Design = targetsim.TxChecked },
		"subsecond timeout": func(c *Config) { c.JobTimeout = 500 * time.Millisecond },
		"short freeze":      func(c *Config) { c.MaxFreeze = Lease },
		"zombies, no pause": func(c *Config) { c.PauseEvery = 0 },
		"bad tz":            func(c *Config) { c.TZ = "Nowhere/Atlantis" },
		"skew of a day":     func(c *Config) { c.ClientSkew = 24 * time.Hour },
	})
}

// asynq's rules are a valid policy, and say what the report claims: the
// recoverer counts the attempt and an error, every state holds a task ID.
func TestRules(t *testing.T) {
	p := Rules(DefaultConfig())
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Rescue != (target.RescueRule{Attempt: target.AttemptCounted, CountsError: true}) || p.Lease != 0 || p.RescueAfter != target.Time(time.Minute) {
		t.Errorf("rescue %+v, lease %d, rescue after %d", p.Rescue, p.Lease, p.RescueAfter)
	}
	for _, s := range []target.State{target.Available, target.Scheduled, target.Running, target.Retryable, target.Discarded, target.Completed} {
		if !p.Unique(s) {
			t.Errorf("a task ID is not held in state %s", s)
		}
	}
	if lo, hi := p.Backoff.Bound(3); lo != target.Second || hi != target.Second {
		t.Errorf("retry delay after 3 errors in [%d, %d], want the fixed 1s", lo, hi)
	}
}

func TestTaskID(t *testing.T) {
	for i := 1; i < 2000; i += 97 {
		if n, err := jobOfID(TaskID(i)); err != nil || n != int64(i) {
			t.Errorf("jobOfID(%q) = %d, %v", TaskID(i), n, err)
		}
	}
	for _, bad := range []string{"", "j", "j0", "x5", "j-1", "5"} {
		if _, err := jobOfID(bad); err == nil {
			t.Errorf("jobOfID(%q) accepted", bad)
		}
	}
}
