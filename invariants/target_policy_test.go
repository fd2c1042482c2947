package invariants_test

import (
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// The checks follow the rules the queue declares, not another queue's:
// unlikePolicy's queue counts a snooze, gives a rescued attempt back,
// starts the count again on an operator's retry, lets a completed job's
// args go, and fails a transactional completion of a job no longer
// running. Its lawful histories pass; the same histories under
// basePolicy's rules are violations; and its own violations are caught.

// snoozeCounted: a snooze keeps attempt 1 counted; the next fetch is
// attempt 2.
func snoozeCounted(h *th) (report, fetch2 uint64) {
	h.insertMax(1, "d1", 3)
	h.fetch("w1", 1, 1)
	h.snoozed("w1", 1, 1, 5*sec)
	report = h.report("w1", 1, target.Snooze, target.Scheduled, 1, h.next()+5*sec)
	h.scheduled(1)
	a := h.done("w1", 1, 2)
	h.row(1, target.Completed, 2)
	h.stored(1, 2, "w1")
	return report, a.fetch
}

// retriedAfresh: j1 (one attempt) errs and is discarded; an operator's
// retry starts its count again, and w2 works attempt 1 anew.
func retriedAfresh(h *th) (fetch1, fetch2 uint64) {
	h.insertMax(1, "d1", 1)
	fetch1 = h.fetch("w1", 1, 1)
	h.work("w1", 1, 1, target.Errored)
	h.report("w1", 1, target.Errored, target.Discarded, 1, 0)
	h.retry(1, target.Available)
	a := h.done("w2", 1, 1)
	h.row(1, target.Completed, 1)
	h.stored(1, 1, "w2")
	return fetch1, a.fetch
}

// zombieRefused: w1's attempt is rescued (given back: w2 fetches attempt
// 1 again, due at once with no error counted), w2 completes the job, and
// w1's transactional completion, the job no longer running, fails: w1
// rolls back.
func zombieRefused(h *th, returned target.Op) (f1, f2, commit, complete, rollback, report uint64) {
	h.insert(1, "d1")
	f1 = h.fetch("w1", 1, 1)
	h.stuck(1, 1)
	h.rescue(1, target.Retryable, h.next())
	h.scheduled(1)
	a := h.done("w2", 1, 1)
	h.work("w1", 1, 1, target.Done)
	tx := h.begin()
	h.effect("w1", 1, 1, tx, true)
	returned.Kind, returned.Actor, returned.Job, returned.Tx = target.OpComplete, "w1", 1, tx
	complete = h.add(returned)
	rollback = h.rollback("w1", 1, tx, "stale_completion")
	report = h.refused("w1", 1, target.Errored, target.Completed, 1)
	h.row(1, target.Completed, 1)
	h.stored(1, 1, "w2")
	return f1, a.fetch, a.commit, complete, rollback, report
}

// cancelledThenErred: j1 is cancelled, an operator retries it (its count
// starts again), and its next attempt errs, retried after delay.
func cancelledThenErred(h *th, delay target.Time) (report uint64) {
	h.insert(1, "d1")
	h.fetch("w1", 1, 1)
	h.work("w1", 1, 1, target.Cancel)
	h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
	h.retry(1, target.Available)
	h.fetch("w1", 1, 1)
	h.work("w1", 1, 1, target.Errored)
	report = h.report("w1", 1, target.Errored, target.Retryable, 1, h.next()+delay)
	h.scheduled(1)
	h.done("w1", 1, 2)
	h.row(1, target.Completed, 2)
	h.stored(1, 2, "w1")
	return report
}

func TestTargetPolicy(t *testing.T) {
	notFound := target.Op{Err: "not_running"}
	checkTarget(t, []tcase{
		{name: "holds: a counted snooze, then the next attempt", feed: unlike, run: func(h *th) { snoozeCounted(h) }},
		{name: "fails: a counted snooze, under rules that give it back", run: func(h *th) {
			r, f2 := snoozeCounted(h)
			h.onlyComplete(invariants.TargetConsistency, 1, "after w1's report j1 is at attempt 1; the history counts 0", r)
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 fetched as attempt 2; the history counts 0 attempts before", 5, f2)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database has j1 at attempt 2; the history counts 1", 10)
		}},
		{name: "holds: a counted snooze at the last attempt discards", feed: unlike, run: func(h *th) {
			h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.snoozed("w1", 1, 1, 5*sec)
			h.report("w1", 1, target.Snooze, target.Discarded, 1, 0)
			h.row(1, target.Discarded, 1)
		}},
		{name: "fails: a counted snooze at the last attempt scheduled, then a second attempt", feed: unlike, run: func(h *th) {
			i := h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.snoozed("w1", 1, 1, 5*sec)
			r := h.report("w1", 1, target.Snooze, target.Scheduled, 1, h.next()+5*sec)
			h.scheduled(1)
			a := h.done("w1", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w1")
			h.expect(invariants.TargetAttempts, 1, "j1 fetched for attempt 2 of at most 1", i, a.fetch)
			h.expect(invariants.TargetAttempts, 1, "the database has j1 at attempt 2 of 1; the history says at most 1", i)
			h.onlyComplete(invariants.TargetConsistency, 1, "w1 reported snooze on j1 (attempt 1 of 1) and the queue made it scheduled, not discarded", r)
		}},
		{name: "holds: an operator's retry starts the count again", feed: unlike, run: func(h *th) { retriedAfresh(h) }},
		{name: "fails: the count started again, under rules that add an attempt", run: func(h *th) {
			f1, f2 := retriedAfresh(h)
			h.onlyComplete(invariants.TargetAttempts, 1, "the database has j1 at attempt 1 of 1; the history says at most 2", 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 fetched as attempt 1; the history counts 1 attempts before", 5, f2)
			h.onlyPartial(invariants.TargetConsistency, 1, "attempt 1 of j1 was handed to w1 and to w2", f1, f2)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database has j1 at attempt 1; the history counts 2", 10)
		}},
		{name: "fails: an operator's retry that kept the count and added an attempt", feed: unlike, run: func(h *th) {
			i := h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Errored)
			h.report("w1", 1, target.Errored, target.Discarded, 1, 0)
			rt := h.retry(1, target.Available)
			a := h.done("w2", 1, 2)
			h.row(1, target.Completed, 2).MaxAttempts = 2
			h.stored(1, 2, "w2")
			h.onlyPartial(invariants.TargetAttempts, 1, "j1 fetched for attempt 2 of at most 1", i, a.fetch)
			h.expect(invariants.TargetAttempts, 1, "the database has j1 at attempt 2 of 2; the history says at most 1", i)
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 fetched as attempt 2; the history counts 0 attempts before", rt, a.fetch)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database has j1 at attempt 2; the history counts 1", a.commit)
		}},
		{name: "holds: a completed job lets its args go", feed: both(unlike, notExactlyOnce), run: func(h *th) {
			h.insert(1, "d1")
			h.done("w1", 1, 1)
			h.insert(2, "d1")
			h.done("w2", 2, 1)
			h.row(1, target.Completed, 1)
			h.row(2, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.stored(2, 1, "w2")
		}},
		{name: "fails: a second job beside a completed one, under rules where it holds its args", feed: notExactlyOnce, run: func(h *th) {
			i1 := h.insert(1, "d1")
			h.done("w1", 1, 1)
			i2 := h.insert(2, "d1")
			h.done("w2", 2, 1)
			h.row(1, target.Completed, 1)
			h.row(2, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.stored(2, 1, "w2")
			h.expect(invariants.TargetUnique, 2, "a unique insert created j2 although j1, with the same args, is completed", i1, i2)
		}},
		{name: "fails: skipped as a duplicate of a job that let its args go", feed: unlike, run: func(h *th) {
			h.insert(1, "d1")
			a := h.done("w1", 1, 1)
			s := h.insertOp(target.Op{Job: 1, Args: acme("d1"), MaxAttempts: 3, Unique: true, Skipped: true})
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
			h.expect(invariants.TargetUnique, 1, "a unique insert was skipped as a duplicate of j1, which is completed (not a unique state)", a.commit, s)
		}},
		{name: "holds: a completion of a job no longer running fails", feed: unlike, run: func(h *th) {
			f1, f2, _, _, rb, r := zombieRefused(h, notFound)
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
		}},
		{name: "fails: a completion that failed, under rules that return the row", run: func(h *th) {
			f1, f2, commit, c, rb, r := zombieRefused(h, notFound)
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
			h.onlyComplete(invariants.TargetRetryTiming, 1, "j1's rescue after error 1 is due in 0.000s, outside the policy's [0.900s, 1.100s]", 4)
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 fetched as attempt 1; the history counts 1 attempts before", 5, f2)
			h.onlyPartial(invariants.TargetConsistency, 1, "attempt 1 of j1 was handed to w1 and to w2", f1, f2)
			h.expect(invariants.TargetConsistency, 1, "completing j1, completed, in a transaction failed (not_running); the policy returns the row", commit, c)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database has j1 at attempt 1; the history counts 2", commit)
		}},
		{name: "fails: a completion of a job no longer running that returned its row", feed: unlike, run: func(h *th) {
			f1, f2, _, c, rb, r := zombieRefused(h, target.Op{State: target.Completed})
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
			h.expect(invariants.TargetConsistency, 1, "completing j1, completed, in a transaction returned it completed, not the error the policy says", 9, c)
		}},
		{name: "fails: a rescue that discarded a job whose attempt it gives back", feed: both(unlike, notDrained), run: func(h *th) {
			h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.stuck(1, 1)
			r := h.rescue(1, target.Discarded, 0)
			h.row(1, target.Discarded, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "the rescuer made j1 (attempt 1 of 1) discarded, not retryable", r)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database has j1 at attempt 1; the history counts 0", r)
		}},
		{name: "holds: a cancel counts no error: the next error's backoff is the first's", feed: unlike, run: func(h *th) {
			cancelledThenErred(h, 2*sec)
		}},
		{name: "fails: a backoff that counted the cancel", feed: unlike, run: func(h *th) {
			r := cancelledThenErred(h, 4*sec)
			h.onlyComplete(invariants.TargetRetryTiming, 1, "j1's retry after error 1 is due in 4.000s, outside the policy's [2.000s, 2.000s]", r)
		}},
	})
}

// leased is a queue with unlikePolicy's rules whose fetches hold a 5s
// lease that runs out on its own (a visibility timeout) and which counts
// only the holder's receipt; leasedAnyReceipt the same without receipts.
func leased(f *invariants.TargetFeed) {
	f.Policy = unlikePolicy()
	f.Policy.Lease, f.Policy.Receipts = 5*sec, true
}

func leasedAnyReceipt(f *invariants.TargetFeed) {
	leased(f)
	f.Policy.Receipts = false
}

// leaseRunOut: w1 fetches j1; late after the fetch the scheduler's pass
// takes it back, available again (the lease ran out); w2 fetches and
// completes attempt 2; then w1's transactional completion fails, the job
// no longer its, and it rolls back and reports an error, refused.
func leaseRunOut(h *th, late target.Time) (f1, take, f2, rollback, report uint64) {
	h.insert(1, "d1")
	f1 = h.fetch("w1", 1, 1)
	h.at(h.now + late)
	take = h.schedule(1, target.Available)
	a := h.done("w2", 1, 2)
	h.work("w1", 1, 1, target.Done)
	tx := h.begin()
	h.effect("w1", 1, 1, tx, true)
	h.add(target.Op{Kind: target.OpComplete, Actor: "w1", Job: 1, Tx: tx, Err: "not_running"})
	rollback = h.rollback("w1", 1, tx, "not_running")
	report = h.refused("w1", 1, target.Errored, target.Completed, 2)
	h.row(1, target.Completed, 2)
	h.stored(1, 2, "w2")
	return f1, take, a.fetch, rollback, report
}

// refetched: w1 fetches j1, its lease runs out, the scheduler takes it
// back and w2 fetches attempt 2; then w1, still at work, ends its work.
func refetched(h *th) (f1, f2 uint64) {
	h.insert(1, "d1")
	f1 = h.fetch("w1", 1, 1)
	h.at(h.now + 5*sec)
	h.schedule(1, target.Available)
	f2 = h.fetch("w2", 1, 2)
	h.work("w1", 1, 1, target.Done)
	return f1, f2
}

// staleCompletion: j1's lease runs out and w2 fetches attempt 2; w1,
// still at work, completes in a transaction, which fails (w2 holds the
// receipt), rolls back and reports an error, refused; then w2 completes.
func staleCompletion(h *th) (f1, f2, complete, rollback, report uint64) {
	f1, f2 = refetched(h)
	tx := h.begin()
	h.effect("w1", 1, 1, tx, true)
	complete = h.add(target.Op{Kind: target.OpComplete, Actor: "w1", Job: 1, Tx: tx, Err: "not_running"})
	rollback = h.rollback("w1", 1, tx, "not_running")
	report = h.refused("w1", 1, target.Errored, target.Running, 2)
	h.finish("w2", 1, 2)
	h.row(1, target.Completed, 2)
	h.stored(1, 2, "w2")
	return f1, f2, complete, rollback, report
}

// staleReport: j1's lease runs out, w2 fetches attempt 2, and w1's report
// with its old receipt is applied: the job is completed.
func staleReport(h *th) (f1, f2, report uint64) {
	f1, f2 = refetched(h)
	report = h.report("w1", 1, target.Done, target.Completed, 2, 0)
	h.row(1, target.Completed, 2)
	return f1, f2, report
}

// A lease that runs out on its own and receipts: what a visibility
// timeout queue declares (Policy.Lease, Policy.Receipts), held to it and
// not to rules without them.
func TestTargetLease(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: a lease runs out, the scheduler takes the job back, the stale completion fails", feed: leased, run: func(h *th) {
			f1, _, f2, rb, r := leaseRunOut(h, 5*sec)
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
		}},
		{name: "fails: a running job taken back by the scheduler, under rules without a lease", feed: unlike, run: func(h *th) {
			f1, take, f2, rb, r := leaseRunOut(h, 5*sec)
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
			h.onlyComplete(invariants.TargetConsistency, 1, "the scheduler made j1 available; the history has it running", f1, take)
		}},
		{name: "fails: taken back a millisecond before the lease ran out", feed: leased, run: func(h *th) {
			f1, take, f2, rb, r := leaseRunOut(h, 5*sec-tms)
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
			h.onlyComplete(invariants.TargetRetryTiming, 1, "the scheduler took j1 back from w1 at 5.019s, before the lease of its fetch at 0.020s ran out at 5.020s",
				f1, take)
		}},
		{name: "holds: a lease run out at the last attempt dead-letters the job", feed: leased, run: func(h *th) {
			h.insertMax(1, "d1", 1)
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.at(5020 * tms)
			h.schedule(1, target.Discarded)
			h.row(1, target.Discarded, 1)
		}},
		{name: "fails: a lease run out at the last attempt made available", feed: both(leased, notDrained), run: func(h *th) {
			h.insertMax(1, "d1", 1)
			f := h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.at(5020 * tms)
			s := h.schedule(1, target.Available)
			h.row(1, target.Available, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "the scheduler took j1 (attempt 1 of 1) back from w1 as available, not discarded", f, s)
		}},
		{name: "holds: a stale receipt's completion fails while the job runs", feed: leased, run: func(h *th) {
			f1, f2, _, rb, r := staleCompletion(h)
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
		}},
		{name: "fails: a stale receipt's completion fails, under rules where any receipt counts", feed: leasedAnyReceipt, run: func(h *th) {
			f1, f2, c, rb, r := staleCompletion(h)
			h.exposure(1, "w1", "w2", f1, f2, r, rb)
			h.onlyComplete(invariants.TargetConsistency, 1, "completing j1 in a transaction failed (not_running), though it was running (fetched by w2)", f2, c)
		}},
		{name: "fails: a stale receipt's report applied", feed: both(leased, notExactlyOnce), run: func(h *th) {
			f1, f2, r := staleReport(h)
			h.exposure(1, "w1", "w2", f1, f2, r, 5) // w1's work op shows it at work after w2's fetch
			h.onlyComplete(invariants.TargetConsistency, 1, "w1's report (done) on j1 was applied though its attempt no longer held the job (fetch by w2 since)",
				f2, r)
		}},
		{name: "holds: a stale receipt's report applied, under rules where any receipt counts", feed: both(leasedAnyReceipt, notExactlyOnce),
			run: func(h *th) {
				f1, f2, r := staleReport(h)
				h.exposure(1, "w1", "w2", f1, f2, r, 5) // w1's work op shows it at work after w2's fetch
			}},
	})
}
