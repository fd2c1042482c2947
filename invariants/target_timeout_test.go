package invariants_test

import (
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// workerTimeouts is a queue whose workers may set their own job timeout
// and whose rescuer honours it (River's Worker.Timeout), the client's
// being 5s.
func workerTimeouts(f *invariants.TargetFeed) {
	f.Policy.WorkerTimeouts, f.Policy.JobTimeout = true, 5*sec
}

// fetchTimeout is w's fetch of attempt n of j, whose worker sets timeout
// d (negative: none).
func (h *th) fetchTimeout(w string, j target.JobID, n int, d target.Time) uint64 {
	return h.add(target.Op{Kind: target.OpFetch, Actor: w, Job: j, Attempt: n, Timeout: d})
}

// stuckAt is w1's attempt 1 of j1, its worker's timeout d, read as stuck
// at t and rescued at once (retryable after the rescue's error).
func stuckAt(h *th, d, t target.Time) (fetch, rescue uint64) {
	h.insert(1, "d1")
	fetch = h.fetchTimeout("w1", 1, 1, d)
	h.at(t)
	h.stuck(1, 1)
	rescue = h.rescue(1, target.Retryable, h.next()+backoff(1))
	h.row(1, target.Retryable, 1)
	return fetch, rescue
}

// TestTargetWorkerTimeouts: on a queue whose rescuer honours a worker's
// own timeout (Policy.WorkerTimeouts), a rescue before that timeout ran
// out, or of a job whose worker sets none, is a violation; a job left
// running by a crashed holder whose worker set no timeout is not one the
// drain must finish; a queue that declares nothing of the kind is held
// to neither.
func TestTargetWorkerTimeouts(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: rescued once the worker's 20s timeout ran out", feed: both(notDrained, workerTimeouts), run: func(h *th) {
			stuckAt(h, 20*sec, 21*sec)
		}},
		{name: "holds: rescued after the client's 5s, the worker setting none of its own", feed: both(notDrained, workerTimeouts), run: func(h *th) {
			stuckAt(h, 0, 6*sec)
		}},
		{name: "holds: an early rescue on a queue that promises nothing of worker timeouts", feed: notDrained, run: func(h *th) {
			stuckAt(h, 20*sec, 12*sec)
		}},
		{name: "fails: rescued at 12s, the worker's timeout being 20s", feed: both(notDrained, workerTimeouts), run: func(h *th) {
			f, r := stuckAt(h, 20*sec, 12*sec)
			h.onlyComplete(invariants.TargetRetryTiming, 1, "the rescuer made j1 retryable at 12.010s, 11.990s into attempt 1, before its timeout of 20.000s ran out", f, r)
		}},
		{name: "fails: rescued at 4s, before the client's 5s", feed: both(notDrained, workerTimeouts), run: func(h *th) {
			f, r := stuckAt(h, 0, 4*sec)
			h.onlyComplete(invariants.TargetRetryTiming, 1, "before its timeout of 5.000s ran out", f, r)
		}},
		{name: "fails: rescued, though its worker sets no timeout", feed: both(notDrained, workerTimeouts), run: func(h *th) {
			f, r := stuckAt(h, -1, 60*sec)
			h.onlyComplete(invariants.TargetRetryTiming, 1, "the rescuer made j1 retryable, but w1's worker sets no timeout for its attempt 1: the policy's rescuer never takes such a job back", f, r)
		}},
		{name: "holds: left running by a crashed holder whose worker set no timeout", feed: workerTimeouts, run: func(h *th) {
			h.insert(1, "d1")
			h.fetchTimeout("w1", 1, 1, -1)
			h.crash("w1", 1, "after_fetch")
			h.row(1, target.Running, 1)
		}},
		{name: "fails: left running so on a queue that rescues every stuck job", run: func(h *th) {
			h.insert(1, "d1")
			f := h.fetchTimeout("w1", 1, 1, -1)
			h.crash("w1", 1, "after_fetch")
			h.row(1, target.Running, 1)
			h.expect(invariants.TargetDrained, 1, "j1 is still running at attempt 1 of 3 after the faults stopped and the drain ended", f)
		}},
	})
}

// TestTargetCompleteNotFound: a transactional completion that finds no
// job (River's JobCompleteTx on a deleted row) is the queue's right answer
// once the history deleted the job, and a violation before.
func TestTargetCompleteNotFound(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: a zombie's completion of a job finished and deleted since", feed: notExactlyOnce, run: func(h *th) {
			h.insert(1, "d1")
			f1 := h.fetch("w1", 1, 1)
			h.rescued(1, 1, backoff(1))
			f2 := h.done("w2", 1, 2).fetch
			h.add(target.Op{Kind: target.OpDelete, Actor: "operator", Job: 1, Applied: true, State: target.Completed})
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.effect("w1", 1, 1, tx, true)
			h.add(target.Op{Kind: target.OpComplete, Actor: "w1", Job: 1, Tx: tx, Err: "not_found"})
			rb := h.rollback("w1", 1, tx, "not_found")
			h.stored(1, 2, "w2")
			h.exposure(1, "w1", "w2", f1, f2, rb, rb) // w1 still at work after w2's fetch: at-least-once allows it
		}},
		{name: "fails: a completion that finds no job no one deleted", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.effect("w1", 1, 1, tx, true)
			c := h.add(target.Op{Kind: target.OpComplete, Actor: "w1", Job: 1, Tx: tx, Err: "not_found"})
			h.rollback("w1", 1, tx, "not_found")
			h.row(1, target.Running, 1)
			h.expect(invariants.TargetConsistency, 1, "completing j1 in a transaction found no job, though no one deleted it", c)
		}},
	})
}
