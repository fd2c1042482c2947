package chaos

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// The expectations of chaos's own workload: a job's key spells its
// behaviour (jobs.go), and chaos's operator redrives every job dead for
// max attempts and reprocesses every poison one. None of this is a
// property of a store, so none of it is in package invariants; each adds
// to the report's invariant its subject belongs to.

// expectations returns the workload's broken expectations by report
// invariant.
func expectations(r *Report, ix *index) map[string][]string {
	out := map[string][]string{}
	note := func(inv, format string, args ...any) { out[inv] = append(out[inv], fmt.Sprintf(format, args...)) }
	for _, j := range ix.st.Jobs {
		tr := KeyTraits(j.Key)
		d, inDLQ := ix.dlq[j.ID]
		switch j.State {
		case model.Succeeded:
			if tr.Poison {
				note(InvNoLostJobs, "poison job %v succeeded", j.ID)
			}
		case model.Dead:
			switch {
			case !inDLQ: // the store checks say so
			case tr.Poison && d.Reason != model.CodePoisonSchema:
				note(InvNoLostJobs, "poison job %v dead with %s", j.ID, d.Reason)
			case !tr.Poison && d.Reason != model.CodeMaxAttemptsExceeded:
				note(InvNoLostJobs, "job %v (%s) dead with %s", j.ID, j.Key, d.Reason)
			}
		case model.Cancelled:
			if j.LastCode != model.CodeDeadlineExceeded {
				note(InvNoLostJobs, "job %v cancelled with %s", j.ID, j.LastCode)
			}
			if !tr.Short && !tr.Late {
				note(InvNoLostJobs, "job %v (%s) cancelled, with a deadline a day away", j.ID, j.Key)
			}
		}
		redriven(note, ix, j, tr)
		if old, ok := ix.jobs[j.Origin]; ok && j.Origin != 0 && old.State == model.Dead && ix.dlq[old.ID].Reason != model.CodePoisonSchema {
			note(InvReprocess, "j%d reprocesses j%d, dead with %s, not poison", j.ID, old.ID, ix.dlq[old.ID].Reason)
		}
	}
	if r.Operator {
		operatorLeft(out, ix)
	}
	return out
}

// redriven checks a redriven job against what a redrive can lead to. A
// redrive follows the fix of the dependency, so the job succeeds; or its
// fresh attempts run out again under kills (dead for max attempts once
// more, a ".few" job above all); or, being poison, its extract fails
// again, a redrive fixing no document (dead poison: a poison job is
// redriven when kills or freezes spent its attempts before its extract,
// so that it died for max attempts, at lease). It is never cancelled
// (a redrive moves the deadline a day away). And the operator redrives
// only jobs dead for max attempts: a redrive that follows, in the same
// life of the job (since the previous redrive), an accepted Dead line
// with another reason redrove the wrong death.
func redriven(note func(inv, format string, args ...any), ix *index, j sqlstore.JobRow, tr Traits) {
	if j.RedriveCount == 0 {
		return
	}
	d, inDLQ := ix.dlq[j.ID]
	switch {
	case j.State == model.Cancelled:
		note(InvRedrive, "j%d redriven %d times ends cancelled", j.ID, j.RedriveCount)
	case j.State != model.Dead || !inDLQ || d.Reason == model.CodeMaxAttemptsExceeded:
	case d.Reason == model.CodePoisonSchema && tr.Poison:
	default:
		note(InvRedrive, "j%d (%s) redriven %d times ends dead with %s", j.ID, j.Key, j.RedriveCount, d.Reason)
	}
	redrives := ix.lines(int64(j.ID), OpRedrive)
	slices.SortFunc(redrives, func(a, b Entry) int { return cmp.Compare(a.T0, b.T0) })
	since := int64(math.MinInt64) // the previous redrive's end
	for _, r := range redrives {
		for _, dl := range ix.lines(int64(j.ID), OpDead) {
			if dl.T0 > since && dl.T1 < r.T0 && dl.Err != model.CodeMaxAttemptsExceeded.String() {
				note(InvRedrive, "j%d redriven by %s after it died with %s (%s's dead line)", j.ID, r.Proc, dl.Err, dl.Proc)
			}
		}
		since = r.T1
	}
}

// operatorLeft notes what the operator left undone: jobs dead for max
// attempts not redriven, poison jobs of version 1 not reprocessed.
func operatorLeft(out map[string][]string, ix *index) {
	reprocessed := map[model.JobID]bool{}
	for _, j := range ix.st.Jobs {
		reprocessed[j.Origin] = true
	}
	var redrive, reprocess []model.JobID
	for _, j := range ix.st.Jobs {
		d := ix.dlq[j.ID]
		switch {
		case j.State == model.Dead && d.Reason == model.CodeMaxAttemptsExceeded:
			redrive = append(redrive, j.ID)
		case j.State == model.Dead && d.Reason == model.CodePoisonSchema && j.Version == 1 && !reprocessed[j.ID]:
			reprocess = append(reprocess, j.ID)
		}
	}
	for _, l := range []struct {
		ids  []model.JobID
		what string
	}{{redrive, "dead for max attempts, never redriven"}, {reprocess, "poison, never reprocessed"}} {
		if len(l.ids) > 0 {
			out[InvLiveness] = append(out[InvLiveness], fmt.Sprintf("%d jobs %s: %s", len(l.ids), l.what, invariants.FirstFew(l.ids)))
		}
	}
}

// stillLive adds to a violated liveness where the consumers stand, and
// says when the drain ran out of time.
func stillLive(r *Report, st sqlstore.State, inv *Invariant) {
	if len(inv.Violations) > 0 {
		var last int64
		for _, m := range st.Broker {
			last = max(last, m.ID)
		}
		var cs []string
		for _, c := range slices.Sorted(maps.Keys(r.Cursors)) {
			cs = append(cs, fmt.Sprintf("%s at message %d", c, r.Cursors[c]))
		}
		add(inv, "consumers: %s; the broker's last message is %d", strings.Join(cs, ", "), last)
	}
	if !r.Drained && r.DrainLimit > 0 {
		add(inv, "not drained within -drain %v", r.DrainLimit)
	}
}
