package goqitechaos

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/targetsim"
)

// shortRun is a run the tests can afford: 3 processes (1 never killed),
// a few kills, children started from the test binary, an SQLite file of
// the test's own.
func shortRun(t *testing.T, d targetsim.Design, kills int) Config {
	t.Helper()
	c := DefaultConfig()
	c.DB = filepath.Join(t.TempDir(), "goqite.db")
	workloadtest.Short(&c.Config, d, kills, childFlag)
	c.Drain, c.Timeout = 30*time.Second, 60*time.Second
	return c
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
	rep, out := workloadtest.Run(t, c, Run)
	workloadtest.Passed(t, rep, out, c.Kills)
	if rep.Takeovers < 1 {
		t.Errorf("%d takeovers", rep.Takeovers)
	}
}

// The naive handler, its effect written before goqite's Delete with no
// key, is caught: a kill after the effect leaves the message in goqite,
// received again once its timeout passes, and its document gets a second
// effect.
func TestRunEffectOutsideTxCaught(t *testing.T) {
	t.Parallel()
	rep, out := workloadtest.Run(t, shortRun(t, targetsim.EffectOutsideTx, 4), Run)
	workloadtest.Duplicated(t, rep, out)
}

// The key without the tenant is caught with no kill at all: two tenants'
// documents of one name share a key, and the second's effect is never
// written though its message was deleted.
func TestRunKeyWithoutTenantCaught(t *testing.T) {
	t.Parallel()
	rep, out := workloadtest.Run(t, shortRun(t, targetsim.KeyWithoutTenant, 0), Run)
	workloadtest.Missed(t, rep, out)
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
