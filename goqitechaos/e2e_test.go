package goqitechaos

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/targetsim"
)

// shortRun is a run the tests can afford: 3 processes (1 never killed),
// a few kills, children started from the test binary, an SQLite file of
// the test's own.
func shortRun(t *testing.T, d targetsim.Design, kills int) Config {
	t.Helper()
	c := DefaultConfig()
	c.DB = filepath.Join(t.TempDir(), "goqite.db")
	c.Design, c.Workers, c.Steady, c.Concurrency, c.Jobs, c.Kills = d, 3, 1, 3, 30, kills
	c.PauseEvery, c.Zombies = 0, 0
	c.Drain, c.Timeout = 30*time.Second, 60*time.Second
	c.Exe, c.ExeArgs = os.Args[0], []string{childFlag}
	return c
}

func run(t *testing.T, c Config) (*Report, string) {
	t.Helper()
	start := time.Now()
	rep, err := Run(context.Background(), c)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep, workloadtest.Printed(t, rep, time.Since(start))
}

// goqite's own queue API under SIGKILL at every point of the correct
// handler (the effect and DeleteTx in one transaction, committed only at
// its own receive), and a child frozen past the visibility timeout until
// another received its message (a zombie that wakes and finds its
// delete stale): every check holds, the report says so.
func TestRunTxChecked(t *testing.T) {
	t.Parallel()
	c := shortRun(t, targetsim.TxChecked, 8)
	c.PauseEvery, c.Zombies = 300*time.Millisecond, 1
	rep, out := run(t, c)
	if !rep.OK() || !rep.Drained {
		t.Fatalf("the correct handler failed (drained %v):\n%s", rep.Drained, out)
	}
	workloadtest.Killed(t, rep, c.Kills)
	workloadtest.Hold(t, rep, out)
	if rep.Takeovers < 1 {
		t.Errorf("%d takeovers", rep.Takeovers)
	}
	if rep.Effects != rep.CompletedDocs || rep.DuplicateDocs != 0 || rep.MissingDocs != 0 {
		t.Errorf("effects %d for %d completed documents (%d duplicated, %d missing)", rep.Effects, rep.CompletedDocs, rep.DuplicateDocs, rep.MissingDocs)
	}
}

// The naive handler, its effect written before goqite's Delete with no
// key, is caught: a kill after the effect leaves the message in goqite,
// received again once its timeout passes, and its document gets a second
// effect.
func TestRunEffectOutsideTxCaught(t *testing.T) {
	t.Parallel()
	rep, out := run(t, shortRun(t, targetsim.EffectOutsideTx, 4))
	workloadtest.CaughtBy(t, rep, out, invariants.TargetEffectOnce)
	if rep.DuplicateDocs == 0 {
		t.Errorf("no document with two effects:\n%s", out)
	}
}

// The key without the tenant is caught with no kill at all: two tenants'
// documents of one name share a key, and the second's effect is never
// written though its message was deleted.
func TestRunKeyWithoutTenantCaught(t *testing.T) {
	t.Parallel()
	rep, out := run(t, shortRun(t, targetsim.KeyWithoutTenant, 0))
	if rep.OK() || !workloadtest.LineHas(out, invariants.TargetEffectOnce+" ", "VIOLATED") || rep.MissingDocs == 0 {
		t.Fatalf("key-without-tenant not caught:\n%s", out)
	}
	os.RemoveAll(rep.Dir)
}

// Bad input is a one-line UsageError before anything starts; a database
// file that cannot be made is one too.
func TestBadInput(t *testing.T) {
	c := DefaultConfig()
	c.DB = "/nonexistent-durasim/dir/goqite.db"
	_, err := Run(context.Background(), c)
	if _, ok := err.(*UsageError); !ok || strings.Contains(err.Error(), "\n") {
		t.Errorf("Run on %s = %v, want a one-line UsageError", c.DB, err)
	}
}
