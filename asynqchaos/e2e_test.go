package asynqchaos

import (
	"testing"
	"time"

	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/internal/redistest"
	"github.com/durasim/durasim/targetsim"
)

// shortRun is a run the tests can afford: 3 processes (1 never killed),
// a few kills, children started from the test binary, a redis-server and
// a database of the test's own.
func shortRun(t *testing.T, d targetsim.Design, kills int) Config {
	t.Helper()
	c := DefaultConfig()
	c.Redis, c.DB = redistest.Addr(t), pgtest.Fresh(t, pgtest.URL(t))
	workloadtest.Short(&c.Config, d, kills, childFlag)
	c.Drain, c.Timeout = 90*time.Second, 170*time.Second
	return c
}

// asynq's own Server and Client under SIGKILL at every point of the
// correct handler, one server frozen past its lease until asynq's
// recoverer gave its task to another (a zombie that wakes and writes),
// children in a time zone other than UTC and a skewed client: every
// check holds, the report says so.
func TestRunIdempotentKey(t *testing.T) {
	t.Parallel()
	c := shortRun(t, targetsim.IdempotentKey, 6)
	c.PauseEvery, c.Zombies = 500*time.Millisecond, 1
	rep, out := workloadtest.Run(t, c, Run)
	workloadtest.Passed(t, rep.Report, out, c.Kills)
	if rep.Takeovers < 1 {
		t.Errorf("%d takeovers", rep.Takeovers)
	}
	if len(rep.Zones) != 1 || rep.Zones[0] == "UTC" || rep.Scheduled == 0 {
		t.Errorf("children's zones %v (TZ %q), %d documents scheduled by the skewed client", rep.Zones, c.TZ, rep.Scheduled)
	}
}

// The naive handler, its effect written with no key, is caught: a kill
// after the effect leaves the task active, asynq's recoverer retries it
// once its lease is past, and its document gets a second effect.
func TestRunEffectOutsideTxCaught(t *testing.T) {
	t.Parallel()
	rep, out := workloadtest.Run(t, shortRun(t, targetsim.EffectOutsideTx, 4), Run)
	workloadtest.Duplicated(t, rep.Report, out)
}

// The key without the tenant is caught with no kill at all: two tenants'
// documents of one name share a key, and the second's effect is never
// written though its task completed.
func TestRunKeyWithoutTenantCaught(t *testing.T) {
	t.Parallel()
	c := shortRun(t, targetsim.KeyWithoutTenant, 0)
	c.DrainDelay = 0
	rep, out := workloadtest.Run(t, c, Run)
	workloadtest.Missed(t, rep.Report, out)
}

// Two runs in a row on one redis-server: the second empties the queue the
// first left (its completed tasks too: asynq's DeleteQueue keeps them, and
// their task IDs taken) and passes as the first did.
func TestRunTwiceOnOneRedis(t *testing.T) {
	t.Parallel()
	c := shortRun(t, targetsim.IdempotentKey, 0)
	c.DrainDelay = 0
	first, out := workloadtest.Run(t, c, Run)
	second, out2 := workloadtest.Run(t, c, Run)
	if !first.OK() || !second.OK() || second.Skipped != first.Skipped || second.CompletedDocs != first.CompletedDocs {
		t.Fatalf("first run (%d refused, %d completed):\n%s\nsecond run (%d refused, %d completed):\n%s", first.Skipped, first.CompletedDocs, out,
			second.Skipped, second.CompletedDocs, out2)
	}
}
