package invariants_test

import (
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// lease is the lease the fixtures of a lapsing queue declare.
const lease = 5 * sec

// lapses: a queue whose lease runs out by itself, lease after the fetch
// (Policy.LeaseLapses).
func lapses(f *invariants.TargetFeed) { f.Policy.Lease, f.Policy.LeaseLapses = lease, true }

// deadHeld: a lapsing queue whose dead letters their receivers may still
// finish (Policy.DeadLetterHeld).
func deadHeld(f *invariants.TargetFeed) { lapses(f); f.Policy.DeadLetterHeld = true }

// retaken: w1 fetches j1, w2 fetches it again at gap after that fetch
// and completes it, w1 then crashes.
func retaken(h *th, gap target.Time) (f1, f2 uint64) {
	h.insert(1, "d1")
	f1 = h.fetch("w1", 1, 1)
	h.at(h.now + gap)
	f2 = h.fetch("w2", 1, 2)
	h.finish("w2", 1, 2)
	c := h.crash("w1", 1, "after_fetch")
	h.exposure(1, "w1", "w2", f1, f2, c, c)
	h.row(1, target.Completed, 2)
	h.stored(1, 2, "w2")
	return f1, f2
}

// A lease that lapses frees its job from the instant lease has passed
// since the fetch (a receive compares now >= timeout), not a moment
// before; without LeaseLapses the job is still held then.
func TestTargetLeaseLapses(t *testing.T) {
	running := "j1 was fetched by w2 while running (fetched by w1), never rescued since"
	checkTarget(t, []tcase{
		{name: "holds: fetched again the instant the lease ran out", feed: lapses, run: func(h *th) { retaken(h, lease) }},
		{name: "holds: fetched again after the lease ran out", feed: lapses, run: func(h *th) { retaken(h, lease+sec) }},
		{name: "fails: fetched again a millisecond before the lease ran out", feed: lapses, run: func(h *th) {
			f1, f2 := retaken(h, lease-tms)
			h.onlyComplete(invariants.TargetConsistency, 1, running, f1, f2)
		}},
		{name: "fails: a lease that does not lapse, run out", run: func(h *th) {
			f1, f2 := retaken(h, lease)
			h.onlyComplete(invariants.TargetConsistency, 1, running, f1, f2)
		}},
	})
}

// deadLetter: j1 may run once; w1 fetches it, its lease runs out, the
// pass finds it dead, and then w1 completes it in its transaction.
func deadLetter(h *th) (dead, complete uint64) {
	h.insertMax(1, "d1", 1)
	h.fetch("w1", 1, 1)
	h.at(h.now + lease)
	dead = h.schedule(1, target.Discarded)
	a := h.finish("w1", 1, 1)
	h.row(1, target.Completed, 1)
	h.stored(1, 1, "w1")
	return dead, a.complete
}

// A dead letter is its receiver's to finish when the queue says so
// (DeadLetterHeld); otherwise its completion leaves a final state.
func TestTargetDeadLetterHeld(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: its receiver completes a dead letter", feed: deadHeld, run: func(h *th) { deadLetter(h) }},
		{name: "fails: a dead letter completed where the queue keeps none", feed: lapses, run: func(h *th) {
			dead, complete := deadLetter(h)
			h.onlyComplete(invariants.TargetFinalKept, 1, "j1 was discarded (schedule by scheduler) and no operator asked it to run again, "+
				"yet it came back completed from w1's transaction", dead, complete)
		}},
	})
}

// lapsesCounted: a lapsing queue whose snooze keeps its attempt counted
// (goqite's Extend).
func lapsesCounted(f *invariants.TargetFeed) { lapses(f); f.Policy.Snooze = target.AttemptCounted }

// spentSnooze: j1 may run twice; w1's lease runs out, w2 fetches attempt
// 2 and crashes, then w1's late snooze delays the job (its attempts
// spent), and the pass finds it due as st.
func spentSnooze(h *th, st target.State) (f1, f2, snooze, pass uint64) {
	h.insertMax(1, "d1", 2)
	f1 = h.fetch("w1", 1, 1)
	h.at(h.now + lease)
	f2 = h.fetch("w2", 1, 2)
	h.crash("w2", 1, "after_fetch")
	w := h.snoozed("w1", 1, 1, sec)
	snooze = h.report("w1", 1, target.Snooze, target.Scheduled, 2, h.next()+sec)
	h.at(h.now + 2*sec)
	pass = h.schedule(1, st)
	h.exposure(1, "w1", "w2", f1, f2, snooze, w) // w1 still at work after w2's fetch
	return f1, f2, snooze, pass
}

// On a lease queue a retry or a snooze only delays the next receive: a
// job whose attempts are spent comes due as a dead letter, not as a
// unique duplicate, and not available.
func TestTargetSpentDelayIsDead(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: a late snooze's delay of a spent job comes due discarded", feed: lapsesCounted, run: func(h *th) {
			spentSnooze(h, target.Discarded)
			h.row(1, target.Discarded, 2)
		}},
		{name: "fails: the spent job comes due available", feed: both(lapsesCounted, notDrained), run: func(h *th) {
			_, _, s, p := spentSnooze(h, target.Available)
			h.row(1, target.Available, 2)
			h.onlyComplete(invariants.TargetConsistency, 1, "the scheduler made j1 available with its attempts spent (attempt 2 of 2); the policy's pass discards it", s, p)
		}},
	})
}

// resends: a lapsing queue whose retry of a cancelled job sends it again
// as a new message (Policy.RetryResends) and whose delete by id completes
// a job whatever it is doing (goqite's).
func resends(f *invariants.TargetFeed) {
	lapses(f)
	f.Policy.CompleteNotRunning = target.CompletionCompletes
	f.Policy.Retry = target.RetryResetsAttempts
	f.Policy.RetryResends = []target.State{target.Cancelled}
}

// sentAgain: w1 fetches j1 and its lease runs out; w2 fetches it again
// and cancels it; an operator's retry sends it again (a new message), and
// then w1, done at last, completes it in its transaction: the queue
// returns it st (the old message is gone: available). w1 rolls back
// unless it came back completed; w3 then works the new message.
func sentAgain(h *th, st target.State) (f1, f2, retry, complete uint64) {
	h.insert(1, "d1")
	f1 = h.fetch("w1", 1, 1)
	h.at(h.now + lease)
	h.schedule(1, target.Available)
	f2 = h.fetch("w2", 1, 2)
	h.work("w2", 1, 2, target.Cancel)
	h.report("w2", 1, target.Cancel, target.Cancelled, 2, 0)
	retry = h.retry(1, target.Available)
	h.work("w1", 1, 1, target.Done)
	tx := h.begin()
	h.effect("w1", 1, 1, tx, true)
	complete = h.complete("w1", 1, tx, st)
	if st != target.Completed {
		last := h.rollback("w1", 1, tx, "stale_completion")
		rel := h.refused("w1", 1, target.Errored, target.Available, 0)
		h.exposure(1, "w1", "w2", f1, f2, rel, last)
		h.done("w3", 1, 1)
		h.row(1, target.Completed, 1)
		h.stored(1, 1, "w3")
		return f1, f2, retry, complete
	}
	c := h.commit("w1", 1, tx)
	h.exposure(1, "w1", "w2", f1, f2, h.refused("w1", 1, target.Done, target.Completed, 1), c)
	h.row(1, target.Completed, 0)
	h.stored(1, 1, "w1")
	return f1, f2, retry, complete
}

// A worker that fetched a job before an operator's retry sent it again as
// a new message holds the old one: its completion acts on nothing, and a
// queue that completes the new message from it is wrong.
func TestTargetRetryResends(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: the stale holder's completion returns the resent job as it is", feed: resends, run: func(h *th) {
			sentAgain(h, target.Available)
		}},
		{name: "fails: the same on a queue whose retry brings the old message back", feed: func(f *invariants.TargetFeed) {
			resends(f)
			f.Policy.RetryResends = nil
		}, run: func(h *th) {
			_, _, retry, complete := sentAgain(h, target.Available)
			h.onlyComplete(invariants.TargetConsistency, 1, "completing j1, available, in a transaction returned it available; the policy completes it",
				retry, complete)
		}},
		{name: "fails: the stale holder's completion completes the resent job", feed: resends, run: func(h *th) {
			_, _, retry, complete := sentAgain(h, target.Completed)
			h.onlyComplete(invariants.TargetConsistency, 1, "j1 completed in w1's transaction though the history has it available", retry, complete)
		}},
		{name: "fails: the stale holder's report applies to the resent job", feed: resends, run: func(h *th) {
			h.insert(1, "d1")
			f1 := h.fetch("w1", 1, 1)
			h.at(h.now + lease)
			h.schedule(1, target.Available)
			f2 := h.fetch("w2", 1, 2)
			h.work("w2", 1, 2, target.Cancel)
			h.report("w2", 1, target.Cancel, target.Cancelled, 2, 0)
			retry := h.retry(1, target.Available)
			w := h.work("w1", 1, 1, target.Cancel)
			rep := h.report("w1", 1, target.Cancel, target.Cancelled, 0, 0)
			h.exposure(1, "w1", "w2", f1, f2, rep, w)
			h.row(1, target.Cancelled, 0)
			h.onlyComplete(invariants.TargetConsistency, 1, "w1's report (cancel) on j1 was applied though an operator's retry sent the job "+
				"again as a new message since its fetch; the policy says its calls act on nothing", retry, rep)
		}},
	})
}
