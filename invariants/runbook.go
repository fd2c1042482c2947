package invariants

import (
	"fmt"
	"math"

	"github.com/durasim/durasim/model"
)

// Runbooks judged by their outcome, from the history and the final state
// alone: what the operator says it tried is no evidence. Two checks:
//
//   - On every run that reached its quiescence phase (the faults stopped),
//     drained or not ([Liveness]): a dead job still dead at the end, whose
//     DLQ entry no accepted action resolved, and that an operator action
//     could bring back, is reported with the events that show it. A job dead of a transient cause (attempts or budget spent)
//     comes back with a redrive once the faults stopped — the dependency
//     fixed (seed 004: never redrive before the cause is fixed); one dead
//     of a permanent cause (poison, permanent error, context overflow)
//     with a reprocess at the next version, unless it is at the largest
//     operationVersion (no next version) or is itself a reprocess that
//     failed for good (the fix did not hold: a human's call, not a
//     runbook's). A rate-limited attempt at either is named, with when the
//     limit had a token again.
//   - A redrive of a job whose failure cause is unchanged is wasted
//     ([WastedWork]): a permanent failure (a redrive sends the same
//     document at the same version again; only a reprocess changes it), or
//     a transient one while the faults still strike. Every wasted redrive
//     is counted ([Suite.WastedRedrives]); one that leaves the job dead
//     again is a violation naming the death it repeated, the redrive and
//     the new death.

// recovery is how an operator could bring dead job j back, and the event
// that makes it possible (the faults stopping); ok is false when nothing
// in the runbook can, or the job is not waiting for it.
func (s *Suite) recovery(j *job) (how string, since uint64, ok bool) {
	if !j.enqueued || j.state != model.Dead || j.sh.dlq.seq == 0 || j.sh.dlqResolved || s.g.quiesce == 0 {
		return "", 0, false
	}
	if permanent(j.sh.dlq.reason) {
		if j.version >= math.MaxInt32 || j.sh.origin != 0 {
			return "", 0, false
		}
		return fmt.Sprintf("a reprocess at v%d redoes it", j.version+1), 0, true
	}
	return fmt.Sprintf("a redrive after the faults stopped at %s runs it afresh", millis(s.g.quietAt)), s.g.quiesce, true
}

// finishRecoverable reports the dead jobs an operator action could bring
// back that are still dead at the end of the run.
func (s *Suite) finishRecoverable(v *finalView, out *violations) {
	r := reason{what: "dead jobs an operator action could bring back, still dead at the end"}
	for id := model.JobID(1); int(id) < s.njobs; id++ {
		j := s.at(int(id))
		how, since, ok := s.recovery(j)
		if !ok {
			continue
		}
		limited := ""
		var refused uint64
		if j.sh.limited > j.sh.dlq.seq {
			refused = j.sh.limited
			limited = fmt.Sprintf("; refused as rate_limited at #%d, the limit had a token again at %s", refused, millis(j.sh.refillAt))
		}
		r.add(fmt.Sprintf("%v (%v; %s%s)", id, j.sh.dlq.reason, how, limited), j.sh.dlq.seq, j.endSeq, since, refused)
	}
	v.recoverable = r.count
	if r.count > 0 {
		out.add(Liveness, 0, fmt.Sprintf("the run ended at %s with %s", millis(v.f.End), r.message()), r.seqs...)
	}
}

// wastedRedrive is a redrive of a job whose failure cause was unchanged.
type wastedRedrive struct {
	redrive uint64     // the redrive
	death   uint64     // the DLQ write of the failure it repeats
	cause   model.Code // that failure's reason
}

// redriveWasted counts an accepted redrive of dead job j as wasted when
// its failure cause is unchanged, and keeps it to name if the job dies
// again. It runs before the redrive revives the job.
func (s *Suite) redriveWasted(e *model.Event, j *job) {
	if !e.OK || j == nil || !j.enqueued || j.state != model.Dead || j.sh.dlq.seq == 0 {
		return
	}
	if c := j.sh.dlq.reason; permanent(c) || s.g.quiesce == 0 {
		s.ops.wasted++
		j.sh.wasted = wastedRedrive{redrive: e.Seq, death: j.sh.dlq.seq, cause: c}
	}
}

// deadAgain reports a wasted redrive whose job went to the DLQ again
// (e, a DLQ write); a job that ends otherwise was only counted.
func (s *Suite) deadAgain(e *model.Event, j *job) {
	w := j.sh.wasted
	if w.redrive == 0 || !e.OK {
		return
	}
	why := "a redrive sends the same document at the same version again, only a reprocess changes it"
	if !permanent(w.cause) {
		why = "the faults had not stopped"
	}
	s.report(WastedWork, e.Job, fmt.Sprintf("redrive of %v with its failure cause unchanged (%v: %s) left it dead again (%v)",
		e.Job, w.cause, why, e.Code), w.death, w.redrive, e.Seq)
	j.sh.wasted = wastedRedrive{}
}

// WastedRedrives is how many redrives so far found their job's failure
// cause unchanged.
func (s *Suite) WastedRedrives() int { return s.ops.wasted }
