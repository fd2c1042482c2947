package invariants_test

import (
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// dueWithin is a queue whose scheduler makes a due job available within
// a second of its due time (River's, with a 1s scheduler interval).
func dueWithin(f *invariants.TargetFeed) { f.Policy.DueWithin = sec }

// erredDue is w1's first attempt on j1 ending in an error whose retry
// falls due at 13.000s.
func erredDue(h *th) {
	h.insert(1, "d1")
	h.fetch("w1", 1, 1)
	h.work("w1", 1, 1, target.Errored)
	h.at(13*sec - backoff(1))
	h.report("w1", 1, target.Errored, target.Retryable, 1, 13*sec)
}

// TestTargetLateness: a queue that promises a due job available within
// its scheduler interval (Policy.DueWithin) is held to it, by the due time
// the report set and the time the scheduler's pass made the job available.
func TestTargetLateness(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: made available half an interval after it fell due", feed: dueWithin, run: func(h *th) {
			erredDue(h)
			h.at(13*sec + 500*tms)
			h.schedule(1, target.Available)
			h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
		}},
		{name: "holds: late, from a queue that promises nothing", run: func(h *th) {
			erredDue(h)
			h.at(14 * sec)
			h.schedule(1, target.Available)
			h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
		}},
		{name: "fails: due at 13.000s, made available only at 14.000s", feed: dueWithin, run: func(h *th) {
			erredDue(h)
			r := uint64(len(h.ops))
			h.at(14 * sec)
			s := h.schedule(1, target.Available)
			h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 2, "w2")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "j1 fell due at 13.000s (report by w1) and was made available only at 14.000s, 1.000s late", r, s)
		}},
		{name: "fails: due, and never made available while the history went on", feed: both(dueWithin, notDrained), run: func(h *th) {
			erredDue(h)
			r := uint64(len(h.ops))
			h.at(15 * sec)
			h.insert(2, "d2")
			last := h.done("w2", 2, 1).report
			h.row(1, target.Retryable, 1)
			h.row(2, target.Completed, 1)
			h.stored(2, 1, "w2")
			h.onlyComplete(invariants.TargetRetryTiming, 1, "j1 fell due at 13.000s (report by w1) and no pass had made it available by the history's end at 15.", r, last)
		}},
	})
}

// runningOnly is a queue whose reports and rescues write only onto a
// running job (River's).
func runningOnly(f *invariants.TargetFeed) { f.Policy.RunningOnly = true }

// rescueRefused is the rescuer's write the queue did not apply.
func (h *th) rescueRefused(j target.JobID, st target.State) uint64 {
	return h.add(target.Op{Kind: target.OpRescue, Actor: "rescuer", Job: j, State: st})
}

// TestTargetStaleWrite: a write by an actor whose read another actor's
// call overtook (the rescuer's stuck read before a snooze; a worker's
// fetch before the rescuer and the scheduler took the job back), applied
// onto the job in the state the other call left, is a violation naming
// the read, the call and the write.
func TestTargetStaleWrite(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "holds: a queue whose writes land in any state", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.stuck(1, 1)
			h.snoozed("w1", 1, 1, 5*sec)
			h.report("w1", 1, target.Snooze, target.Scheduled, 0, h.next()+5*sec)
			h.rescue(1, target.Retryable, h.next()+sec)
			h.row(1, target.Retryable, 0)
		}},
		{name: "holds: the rescue of a job snoozed since the read is refused", feed: both(notDrained, runningOnly), run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.stuck(1, 1)
			h.snoozed("w1", 1, 1, 5*sec)
			h.report("w1", 1, target.Snooze, target.Scheduled, 0, h.next()+5*sec)
			h.rescueRefused(1, target.Retryable)
			h.row(1, target.Scheduled, 0)
		}},
		{name: "fails: a stale rescue written onto a job snoozed since the read", feed: both(notDrained, runningOnly), run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			s := h.stuck(1, 1)
			h.snoozed("w1", 1, 1, 5*sec)
			r := h.report("w1", 1, target.Snooze, target.Scheduled, 0, h.next()+5*sec)
			w := h.rescue(1, target.Retryable, h.next()+sec)
			h.row(1, target.Retryable, 0)
			h.onlyComplete(invariants.TargetConsistency, 1, "the rescuer's write (retryable) on j1 was applied as of its read at 0.030s, but report by w1 at 0.050s had since made it scheduled: a stale write", s, r, w)
		}},
		{name: "fails: a stale rescue written onto a job an operator retried since the read", feed: both(notDrained, runningOnly), run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			s := h.stuck(1, 1)
			h.work("w1", 1, 1, target.Cancel)
			c := h.report("w1", 1, target.Cancel, target.Cancelled, 1, 0)
			o := h.retry(1, target.Available)
			w := h.rescue(1, target.Retryable, h.next()+backoff(2))
			h.row(1, target.Retryable, 1)
			_ = c
			h.onlyComplete(invariants.TargetConsistency, 1, "had since made it available: a stale write", s, o, w)
		}},
		{name: "fails: a zombie's report written onto a job taken back and made available since its fetch", feed: both(notDrained, notExactlyOnce, runningOnly), run: func(h *th) {
			h.insert(1, "d1")
			f := h.fetch("w1", 1, 1)
			h.stuck(1, 1)
			h.rescue(1, target.Retryable, h.next()+sec)
			s := h.scheduled(1)
			h.work("w1", 1, 1, target.Done)
			w := h.report("w1", 1, target.Done, target.Completed, 1, 0)
			h.row(1, target.Completed, 1)
			h.onlyComplete(invariants.TargetConsistency, 1, "w1's report (done) on j1 was applied as of its read at 0.020s, but schedule by scheduler", f, s, w)
		}},
	})
}
