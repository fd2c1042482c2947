package goqitechaos

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	var out bytes.Buffer
	rep.Print(&out)
	t.Logf("run took %v:\n%s", time.Since(start).Round(time.Millisecond), out.String())
	return rep, out.String()
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
	for _, p := range PointsOf(c.Design).List() {
		if rep.Kills[p] == 0 || rep.KillLines[p.String()] < rep.Kills[p] {
			t.Errorf("point %s: %d kills, %d kill lines", p, rep.Kills[p], rep.KillLines[p.String()])
		}
	}
	if total := rep.TotalKills(); total < c.Kills || rep.Restarts != total || rep.Takeovers < 1 || rep.HardStops != 0 {
		t.Errorf("%d kills (want %d), %d restarts, %d takeovers, %d hard stops", total, c.Kills, rep.Restarts, rep.Takeovers, rep.HardStops)
	}
	for _, name := range rep.Checked {
		if !lineHas(out, name+" ", "holds") {
			t.Errorf("report line of %s does not say holds", name)
		}
	}
	if rep.Effects != rep.CompletedDocs || rep.DuplicateDocs != 0 || rep.MissingDocs != 0 || rep.CompletedDocs < c.Jobs {
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
	if rep.OK() || !lineHas(out, invariants.TargetEffectOnce+" ", "VIOLATED") || rep.DuplicateDocs == 0 {
		t.Fatalf("effect-outside-tx not caught:\n%s", out)
	}
	for _, v := range rep.Violations {
		if v.Invariant != invariants.TargetEffectOnce {
			t.Errorf("violation of another check: %s", v)
		}
	}
	if rep.Dir == "" {
		t.Error("a failing run removed its histories")
	}
	os.RemoveAll(rep.Dir)
}

// The key without the tenant is caught with no kill at all: two tenants'
// documents of one name share a key, and the second's effect is never
// written though its message was deleted.
func TestRunKeyWithoutTenantCaught(t *testing.T) {
	t.Parallel()
	rep, out := run(t, shortRun(t, targetsim.KeyWithoutTenant, 0))
	if rep.OK() || !lineHas(out, invariants.TargetEffectOnce+" ", "VIOLATED") || rep.MissingDocs == 0 {
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

func lineHas(out, prefix, s string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.Contains(l, s)
		}
	}
	return false
}
