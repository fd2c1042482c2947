package goqitechaos

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
		{Child: workload.Child{ID: 2, Incarnation: 7, Design: targetsim.TxAsDocumented, Kill: crash.Assignment{At: boundary.BeforeCommit, Nth: 3},
			History: "/tmp/x/w2.7.jsonl", Seed: 9, Concurrency: 3, Work: 40 * time.Millisecond},
			MaxAttempts: 4, Visibility: 3 * time.Second, JobTimeout: time.Second, RetryBase: 50 * time.Millisecond, RetryCap: 2 * time.Second},
		{Child: workload.Child{Design: targetsim.EffectOutsideTx, Kill: crash.Assignment{Nth: 1}, Seed: 1, Concurrency: 1, Work: time.Millisecond},
			MaxAttempts: 1, Visibility: time.Second, JobTimeout: 500 * time.Millisecond, RetryBase: time.Millisecond, RetryCap: time.Millisecond},
	}, func(got *ChildConfig, c ChildConfig) { got.DB = c.DB })
}

// Bad child configurations are one-line errors; a kill point the design
// does not cross is refused.
func TestChildValidate(t *testing.T) {
	ok := workloadtest.Flagged[ChildConfig]()
	ok.DB = "/tmp/x.db"
	workloadtest.Refused(t, ok, ChildConfig.Validate, map[string]func(*ChildConfig){
		"no db":               func(c *ChildConfig) { c.DB = "" },
		"kill-nth 0":          func(c *ChildConfig) { c.Kill = crash.Assignment{At: boundary.AfterFetch} },
		"timeout past goqite": func(c *ChildConfig) { c.JobTimeout = c.Visibility },
		"sub-ms timeout":      func(c *ChildConfig) { c.Visibility = time.Microsecond },
		"no commit outside": func(c *ChildConfig) {
			c.Design, c.Kill = targetsim.EffectOutsideTx, crash.Assignment{At: boundary.AfterCommit, Nth: 1}
		},
		"outbox": func(c *ChildConfig) { c.Design = targetsim.Outbox },
	})
}

// A run's bad settings are one-line usage errors, before anything
// starts.
func TestConfigValidate(t *testing.T) {
	workloadtest.RefusedUsage(t, DefaultConfig(), Config.Validate, map[string]func(*Config){
		"one worker":        func(c *Config) { c.Workers = 1 },
		"outbox":            func(c *Config) { c.Design = targetsim.Outbox },
		"job past timeout":  func(c *Config) { c.JobTimeout = c.Visibility },
		"short freeze":      func(c *Config) { c.MaxFreeze = c.Visibility },
		"zombies, no pause": func(c *Config) { c.PauseEvery = 0 },
		"retry cap < base":  func(c *Config) { c.RetryCap = c.RetryBase / 2 },
	})
}

// The kill points per design: DeleteTx in the handler's transaction only
// in the transactional ones.
func TestPoints(t *testing.T) {
	if got := PointsOf(targetsim.TxChecked).List(); !slices.Equal(got, []boundary.Boundary{boundary.AfterFetch, boundary.AfterEffect,
		boundary.BeforeCommit, boundary.AfterCommit}) {
		t.Errorf("tx-checked points %v", got)
	}
	if got := PointsOf(targetsim.EffectOutsideTx).List(); !slices.Equal(got, []boundary.Boundary{boundary.AfterFetch, boundary.AfterEffect}) {
		t.Errorf("effect-outside-tx points %v", got)
	}
}

// A message goqite still has is held while its timeout is ahead, a dead
// letter once received MaxReceive times and visible, else available.
func TestLiveState(t *testing.T) {
	for _, tc := range []struct {
		note          string
		received, max int
		hidden        bool
		want          target.State
	}{
		{noteSent, 0, 3, false, target.Available},
		{noteReceived, 1, 3, true, target.Running},
		{noteRetry, 1, 3, true, target.Retryable},
		{noteReceived, 1, 3, false, target.Available},
		{noteDead, 3, 3, false, target.Discarded},
		{noteReceived, 3, 3, true, target.Running},
	} {
		if got := liveState(tc.note, tc.received, tc.max, tc.hidden); got != tc.want {
			t.Errorf("liveState(%+v) = %s", tc, got)
		}
	}
}

// goqite's rules as the run declares them: its timeout is the lease, and
// a lapsed one is handed out again with no rescuer.
func TestFeed(t *testing.T) {
	f := Feed(DefaultConfig())
	if err := f.Policy.Validate(); err != nil {
		t.Fatal(err)
	}
	if !f.Policy.LeaseLapses || f.Policy.Lease != target.Time(DefaultConfig().Visibility) || !f.Transactional || len(f.Policy.UniqueStates) != 0 {
		t.Errorf("feed %+v", f)
	}
}
