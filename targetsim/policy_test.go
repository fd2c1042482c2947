package targetsim

import (
	"context"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// failingCompletion is River with one rule changed, as a queue of one's
// own may have it: a transactional completion of a job no longer running
// (or completed before) fails with target.ErrNotRunning, and its policy
// says so (CompletionFails).
type failingCompletion struct{ target.Queue }

func (q failingCompletion) Policy() target.Policy {
	p := q.Queue.Policy()
	p.CompleteNotRunning = target.CompletionFails
	return p
}

func (q failingCompletion) Conn(actor string) target.Conn { return failingConn{q.Queue.Conn(actor)} }

type failingConn struct{ target.Conn }

func (c failingConn) Begin(ctx context.Context) (target.Tx, error) {
	tx, err := c.Conn.Begin(ctx)
	return failingTx{tx}, err
}

type failingTx struct{ target.Tx }

func (t failingTx) Complete(ctx context.Context, now target.Time, j target.Job) (target.Job, error) {
	got, err := t.Tx.Complete(ctx, now, j)
	if err == nil && (got.State != target.Completed || got.FinalizedAt != now) {
		return target.Job{}, target.ErrNotRunning // the row as it was: nothing changed
	}
	return got, err
}

// The oracles hold a queue to the rules it declares: with a completion
// that fails for a job no longer running, the handler that checks only
// that error (tx-as-documented) writes one effect per document, and no
// check reads the refused completions as River's row-as-it-is; the same
// queue declaring River's rule instead is caught.
func TestQueueWithItsOwnCompletionRule(t *testing.T) {
	q := failingCompletion{openRiver(t)}
	cfg := DefaultConfig()
	cfg.Design = TxAsDocumented
	// River's superseded-attempt finding (README): attempt 2's completion
	// finds the job retryable, and here fails.
	stale := cfg
	stale.Docs, stale.Workers, stale.Swarm = 1, 2, false
	plan, err := river.Parse("slow doc=1 attempt=1 for=16s; slow doc=1 attempt=2 for=4s")
	if err != nil {
		t.Fatal(err)
	}
	stale.Plan = plan
	type seedRun struct {
		cfg  Config
		seed uint64
	}
	runs := []seedRun{{stale, 1}}
	for seed := uint64(1); seed <= 10; seed++ {
		runs = append(runs, seedRun{cfg, seed})
	}
	refused := 0
	for _, r := range runs {
		res := runSeed(t, q, r.cfg, r.seed)
		refused += res.Counts.StaleCompletions
		for _, v := range res.Violations {
			if v.Invariant != invariants.TargetAttempts { // River's own finding, whatever the handler
				t.Errorf("seed %d: %s", r.seed, v)
			}
		}
	}
	if refused == 0 {
		t.Fatal("no completion failed: the path is not exercised")
	}
	caught := false
	for _, v := range runSeed(t, lyingPolicy{q}, stale, 1).Violations {
		caught = caught || v.Invariant == invariants.TargetConsistency
	}
	if !caught {
		t.Error("a queue whose completion fails, declaring that it returns the row, was not caught")
	}
}

// lyingPolicy declares River's completion rule over a queue that fails.
type lyingPolicy struct{ failingCompletion }

func (q lyingPolicy) Policy() target.Policy {
	p := q.failingCompletion.Policy()
	p.CompleteNotRunning = target.CompletionReturnsRow
	return p
}
