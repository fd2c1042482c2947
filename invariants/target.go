package invariants

import (
	"slices"

	"github.com/durasim/durasim/target"
)

// The target checks: history-only oracles over a queue durasim does not
// own ([target.Queue]). Each is written once, over one history shape
// ([TargetOp]: an op and the interval it happened in), and fed by a
// [TargetFeed] that says what the history guarantees: every op in the
// queue's order (a simulator's sweep), or only what real processes wrote
// down before a kill could stop them, ordered by wall-clock intervals. A
// check uses only what its feed guarantees: where an op may be missing,
// its absence proves nothing, and where the order of two ops is not
// known, neither came first. What the queue promises (how it counts
// attempts and errors, which states hold a unique key, what its retries,
// rescues and transactional completions do) is the queue's declared
// [target.Policy], read from the feed; no rule is assumed.
//
// The checks' names are the invariants violations carry.
const (
	TargetFinalKept   = "target-final-kept"   // a finished job stays finished unless an operator asked
	TargetAttempts    = "target-attempts"     // attempts counted by the oracle, within max_attempts
	TargetUnique      = "target-unique"       // a unique insert gives one job
	TargetRetryTiming = "target-retry-timing" // no fetch before the time a report set; backoff within the policy
	TargetEffectOnce  = "target-effect-once"  // one effect per document whose work completed, none otherwise
	TargetTenant      = "target-tenant-isolation"
	TargetConsistency = "target-consistency" // what the queue returned and kept agrees with the history
	TargetDrained     = "target-drained"     // liveness: every job finished once the faults stopped
)

// TargetHandlerCheck reports whether check name judges the handler's
// effects (one per document, tenants apart) rather than the queue's own
// guarantees: a correct handler must pass these on any queue; the others
// find the queue's faults.
func TargetHandlerCheck(name string) bool { return name == TargetEffectOnce || name == TargetTenant }

// TargetChecks lists the target checks in report order.
func TargetChecks() []string {
	return []string{TargetFinalKept, TargetAttempts, TargetUnique, TargetRetryTiming, TargetEffectOnce, TargetTenant,
		TargetConsistency, TargetDrained}
}

// TargetOp is one op of a target history and the interval the queue
// performed it in: at or after T0, at or before Op.T. A complete
// history's ops are instants (T0 == Op.T, see [CompleteHistory]).
type TargetOp struct {
	Op target.Op
	T0 target.Time
}

// CompleteHistory is ops, in the order the queue performed them, as a
// complete feed's history: each op an instant.
func CompleteHistory(ops []target.Op) []TargetOp {
	out := make([]TargetOp, len(ops))
	for i := range ops {
		out[i] = TargetOp{Op: ops[i], T0: ops[i].T}
	}
	return out
}

// TargetFeed says what a target run gives the checks: how much of the
// history there is, what the handler design promises, and the queue's
// policy.
type TargetFeed struct {
	// Complete: every op is in the history, in the order the queue
	// performed them (a simulator's sweep), so the checks replay each
	// job's life exactly. Otherwise the history is what real processes
	// recorded: a process killed between an op and its line leaves no
	// line, the queue's own maintenance and completer may record
	// nothing, and ops are ordered by their intervals ("before": one
	// op's interval ended before the other's began).
	Complete bool
	// Recorded are the op kinds never missing even when not Complete. A
	// kind no actor of the run performs is recorded trivially: a run
	// without an operator lists target.OpRetry, so an operator's retry
	// cannot have happened unseen.
	Recorded []target.OpKind
	// Outcomes are the outcomes the run's handlers may report (nil: any):
	// a history that records no reports says so which ones can have
	// happened (whether a snooze may have given an attempt back).
	Outcomes []target.Outcome
	// Drained: the faults stopped and the run's drain ended, so every job
	// must be finished (target-drained).
	Drained bool
	// DrainUntil is when the drain's window ends (0: no window). A job
	// retryable or scheduled at or after it is not the drain's to finish
	// (River's retry after a long error history is days away); the delay
	// that put it there is judged all the same (target-retry-timing).
	DrainUntil target.Time
	// ExactlyOnce: the handler design promises one effect per document
	// whose work completed; EffectKinds are the job kinds whose completion
	// stands for that work (the handler's kind, or an outbox consumer's).
	ExactlyOnce bool
	EffectKinds []string
	// Transactional: the design writes an effect only with its job's
	// completion, so after the drain an effect of a document none of
	// whose jobs completed is a violation too. (An at-least-once design
	// with an idempotent effect may write it and then see the job
	// cancelled or discarded: at most once, not exactly once.)
	Transactional bool
	// Policy is what the queue promises (its Queue.Policy).
	Policy target.Policy
}

// recorded reports whether the feed guarantees every op of kind k.
func (f TargetFeed) recorded(k target.OpKind) bool {
	return f.Complete || slices.Contains(f.Recorded, k)
}

// mayReport reports whether a handler of the run may report outcome o.
func (f TargetFeed) mayReport(o target.Outcome) bool {
	return f.Outcomes == nil || slices.Contains(f.Outcomes, o)
}

// timingKinds are the ops that set a job's next run or make it due:
// target-retry-timing needs every one of them.
var timingKinds = []target.OpKind{target.OpFetch, target.OpReport, target.OpRescue, target.OpSchedule, target.OpRetry}

// Checks lists the checks the feed supports, in report order: every one
// but target-retry-timing, which needs every op that sets or clears a
// job's due time (the reports, the rescuer's and the scheduler's writes,
// an operator's retries), so only a feed that records them all runs it.
func (f TargetFeed) Checks() []string {
	return slices.DeleteFunc(TargetChecks(), func(name string) bool {
		return name == TargetRetryTiming && slices.ContainsFunc(timingKinds, func(k target.OpKind) bool { return !f.recorded(k) })
	})
}

// TargetReport is the verdict of [CheckTarget].
type TargetReport struct {
	Violations []Violation
	// Exposures are the times two workers worked one job at once: a
	// fetch while another worker still held an attempt of it. An
	// at-least-once queue allows them; they are counted, not violations.
	Exposures []Exposure
	// Checked are the checks the feed supported ([TargetFeed.Checks]).
	Checked []string
}

// Exposure is one overlap: Second fetched Job while First still worked
// it. Ops are the first's fetch, the second's fetch and, when the history
// has one, the first's op on its attempt that shows it still at work
// after the second's fetch (in a complete history, the report or crash
// that ended its hold).
type Exposure struct {
	Job           target.JobID
	First, Second string
	Ops           []uint64
}

// CheckTarget runs the target checks the feed supports over a history
// (a complete one in the queue's order, a partial one in any order: it
// is sorted by the ends of the intervals) and the state read back, and
// returns the violations in check order and the exposures.
func CheckTarget(ops []TargetOp, snap target.Snapshot, feed TargetFeed) TargetReport {
	c := newTargetChecker(ops, snap, feed)
	for _, o := range c.ops {
		c.op(o)
	}
	c.unended()
	c.end()
	checked := feed.Checks()
	var out violations
	for _, name := range checked {
		for _, v := range c.vs {
			if v.Invariant == name {
				out = append(out, v)
			}
		}
	}
	return TargetReport{Violations: out, Exposures: c.exposures(), Checked: checked}
}
