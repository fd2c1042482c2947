package invariants

import (
	"fmt"
	"math"

	"github.com/durasim/durasim/model"
)

// The store checks of the paths a store takes on its own: dead-lettering
// for max attempts, retry visibility, deadlines, redrive, reprocess and
// idempotent enqueues.

// checkMaxAttempts: every lease counts one attempt and a redrive starts
// the count again, so a life of a job (from a redrive, or its start, to
// its death) that ended dead for max attempts holds max_attempts leases,
// none of them acked; and a DLQ row for max attempts says so.
//
// It reads a missing lease as "no lease", so it runs only where the feed
// guarantees leases. In a complete feed a life is the job's operations
// between two redrives, in order, ended by a dead operation for max
// attempts. Otherwise each window is taken at its widest: a life ends at
// a redrive that says the job had died for max attempts (its T1) or at
// the DLQ row of a job dead for max attempts (its time), and starts at
// the redrive before (its T0); a lease counts when it may lie inside.
func checkMaxAttempts(ix *storeIndex, v *storeViolations) {
	for _, d := range ix.st.DLQ {
		if j := ix.jobs[d.Job]; j != nil && d.Reason == model.CodeMaxAttemptsExceeded && d.Attempts < j.MaxAttempts {
			v.add(j.ID, fmt.Sprintf("%v dead for max attempts after %d of %d attempts (DLQ row)", j.ID, d.Attempts, j.MaxAttempts))
		}
	}
	if !ix.feed.recorded(OpLease) {
		return
	}
	for i := range ix.st.Jobs {
		j := &ix.st.Jobs[i]
		if ix.feed.Complete {
			maxAttemptsInOrder(ix, v, j)
		} else {
			maxAttemptsByTime(ix, v, j)
		}
	}
}

func maxAttemptsInOrder(ix *storeIndex, v *storeViolations, j *StoreJob) {
	leases, acked := 0, false
	for _, i := range ix.byJob[j.ID] {
		o := &ix.ops[i]
		switch o.Kind {
		case OpLease:
			leases++
		case OpAck:
			acked = true
		case OpRedrive:
			leases, acked = 0, false
		case OpDead:
			if o.Code != model.CodeMaxAttemptsExceeded {
				continue
			}
			if leases < int(j.MaxAttempts) {
				v.add(j.ID, fmt.Sprintf("%v (%s) dead for max attempts after %d leases of %d allowed", j.ID, j.Key, leases, j.MaxAttempts), o)
			} else if acked {
				v.add(j.ID, fmt.Sprintf("%v dead for max attempts after an ack", j.ID), o)
			}
		}
	}
}

func maxAttemptsByTime(ix *storeIndex, v *storeViolations, j *StoreJob) {
	redrives := ix.jobOps(j.ID, OpRedrive)
	start := model.Time(math.MinInt64)
	for n := 0; n <= len(redrives); n++ {
		var end model.Time
		died := false
		if n < len(redrives) {
			rd := &ix.ops[redrives[n]]
			end, died = rd.T1, rd.Code == model.CodeMaxAttemptsExceeded
		} else if d, ok := ix.dlq[j.ID]; ok && j.State == model.Dead && d.Reason == model.CodeMaxAttemptsExceeded {
			end, died = d.At, true
		}
		if died {
			leases, acked := 0, false
			for _, i := range ix.byJob[j.ID] {
				if o := &ix.ops[i]; o.T1 > start && o.T0 < end {
					leases += b2i(o.Kind == OpLease)
					acked = acked || o.Kind == OpAck
				}
			}
			switch {
			case leases < int(j.MaxAttempts):
				v.add(j.ID, fmt.Sprintf("%v (%s) dead for max attempts after %d leases of %d allowed", j.ID, j.Key, leases, j.MaxAttempts))
			case acked:
				v.add(j.ID, fmt.Sprintf("%v dead for max attempts after an ack", j.ID))
			}
		}
		if n < len(redrives) {
			start = ix.ops[redrives[n]].T0
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkRetryTiming: a retried job is invisible until the visible time its
// retry set, so no lease that began after the retry completed may have
// ended before that time (the store's now lies inside each interval, and
// every actor reads the same clock).
func checkRetryTiming(ix *storeIndex, v *storeViolations) {
	for i := range ix.st.Jobs {
		id := ix.st.Jobs[i].ID
		for _, r := range ix.jobOps(id, OpRetry) {
			rt := &ix.ops[r]
			for _, l := range ix.jobOps(id, OpLease) {
				if lo := &ix.ops[l]; ix.before(r, l) && lo.T1 < rt.Visible {
					v.add(id, fmt.Sprintf("%v leased%s %s before the visible time its retry%s set",
						id, who(lo), millis(rt.Visible-lo.T1), who(rt)), rt, lo)
					break
				}
			}
		}
	}
}

// checkDeadline: a lease past the deadline cancels the job instead, so no
// lease of a job never redriven (a redrive sets a new deadline) began at
// or after it; a cancel at a retry happens only when the retry's visible
// time would reach it, a cancel at lease only once it has passed; and a
// job cancelled with no cancel recorded has a deadline before the last
// operation.
func checkDeadline(ix *storeIndex, v *storeViolations) {
	for i := range ix.st.Jobs {
		j := &ix.st.Jobs[i]
		if j.RedriveCount == 0 {
			for _, l := range ix.jobOps(j.ID, OpLease) {
				if o := &ix.ops[l]; o.T0 >= j.DeadlineAt {
					v.add(j.ID, fmt.Sprintf("%v leased%s %s past its deadline", j.ID, who(o), millis(o.T0-j.DeadlineAt)), o)
				}
			}
		}
		cancels := ix.jobOps(j.ID, OpCancel)
		for _, c := range cancels {
			if o := &ix.ops[c]; o.Visible != 0 && o.Visible < j.DeadlineAt {
				v.add(j.ID, fmt.Sprintf("%v cancelled%s at a retry visible %s before its deadline", j.ID, who(o), millis(j.DeadlineAt-o.Visible)), o)
			}
		}
		atLease := ix.jobOps(j.ID, OpCancelAtLease)
		for _, c := range atLease {
			if o := &ix.ops[c]; o.T1 < j.DeadlineAt {
				v.add(j.ID, fmt.Sprintf("%v cancelled at lease%s %s before its deadline", j.ID, who(o), millis(j.DeadlineAt-o.T1)), o)
			}
		}
		if j.State == model.Cancelled && len(cancels) == 0 && len(atLease) == 0 && j.DeadlineAt > ix.end {
			v.add(j.ID, fmt.Sprintf("%v cancelled at lease, its deadline after the run's last operation", j.ID))
		}
	}
}

// checkRedrive: a redrive gives the job fresh attempts. In a complete
// feed the first lease after it is attempt 1; otherwise, of the leases
// that may follow it, the lowest attempt is 1. A redriven job that then
// succeeded was leased after the redrive (where leases are recorded).
func checkRedrive(ix *storeIndex, v *storeViolations) {
	for i := range ix.st.Jobs {
		j := &ix.st.Jobs[i]
		for _, r := range ix.jobOps(j.ID, OpRedrive) {
			rd := &ix.ops[r]
			low, first := int32(math.MaxInt32), (*Op)(nil)
			for _, l := range ix.jobOps(j.ID, OpLease) {
				lo := &ix.ops[l]
				switch {
				case ix.feed.Complete && l > r && first == nil:
					first, low = lo, lo.Attempt
				case !ix.feed.Complete && lo.T1 > rd.T0 && lo.Attempt < low:
					first, low = lo, lo.Attempt
				}
			}
			switch {
			case first == nil && j.State == model.Succeeded && ix.feed.recorded(OpLease):
				v.add(j.ID, fmt.Sprintf("%v succeeded with no lease after its redrive%s", j.ID, who(rd)), rd)
			case first != nil && low != 1:
				v.add(j.ID, fmt.Sprintf("%v's first lease after its redrive%s is attempt %d", j.ID, who(rd), low), rd, first)
			}
		}
	}
}

// checkReprocess: audit rows name an operator and a known action; a
// reprocess audit links a job to its reprocess; no job has more redrive
// audit rows than redrives; a job with an origin is the next version of
// a dead job (same tenant, document and payload, version + 1, the key
// built for it), linked by exactly one audit row.
func checkReprocess(ix *storeIndex, v *storeViolations) {
	links := map[[2]model.JobID]int{}
	redriveAudits := map[model.JobID]int{}
	for _, a := range ix.st.Audit {
		if a.Operator == "" {
			v.add(a.OldJob, fmt.Sprintf("audit row %s of %v without an operator", a.Action, a.OldJob))
		}
		switch a.Action {
		case "reprocess":
			links[[2]model.JobID{a.OldJob, a.NewJob}]++
			if nj, ok := ix.jobs[a.NewJob]; !ok || nj.Origin != a.OldJob {
				v.add(a.OldJob, fmt.Sprintf("audit links %v to %v, which is not its reprocess", a.OldJob, a.NewJob))
			}
		case "redrive":
			redriveAudits[a.OldJob]++
		default:
			v.add(a.OldJob, fmt.Sprintf("audit row with action %q", a.Action))
		}
	}
	for i := range ix.st.Jobs {
		j := &ix.st.Jobs[i]
		if n := redriveAudits[j.ID]; n > int(j.RedriveCount) {
			v.add(j.ID, fmt.Sprintf("%v redriven %d times, %d redrive audit rows", j.ID, j.RedriveCount, n))
		}
		if j.Origin == 0 {
			continue
		}
		old, ok := ix.jobs[j.Origin]
		switch {
		case !ok:
			v.add(j.ID, fmt.Sprintf("%v reprocesses %v, which does not exist", j.ID, j.Origin))
		case old.State != model.Dead:
			v.add(j.ID, fmt.Sprintf("%v reprocesses %v, which is %s", j.ID, old.ID, old.State))
		default:
			key, _ := model.BuildIdempotencyKey(old.Tenant, old.Document, int(old.Version)+1)
			if j.Key != key || j.Tenant != old.Tenant || j.Document != old.Document || j.Version != old.Version+1 || j.PayloadHash != old.PayloadHash {
				v.add(j.ID, fmt.Sprintf("%v (%s) is not the next version of %v (%s)", j.ID, j.Key, old.ID, old.Key))
			}
		}
		if n := links[[2]model.JobID{j.Origin, j.ID}]; n != 1 {
			v.add(j.ID, fmt.Sprintf("reprocess of %v as %v has %d audit rows", j.Origin, j.ID, n))
		}
	}
}

// checkIdempotency: a resubmission (same key, same payload) returned the
// job that holds the key and created nothing; another payload under an
// existing key was refused; every job holds the payload its enqueue
// carried (a conflict never overwrote one).
func checkIdempotency(ix *storeIndex, v *storeViolations) {
	payload := map[string]uint64{}
	for i := range ix.ops {
		o := &ix.ops[i]
		switch o.Kind {
		case OpEnqueue:
			if _, ok := payload[o.Key]; !ok && o.Payload != 0 {
				payload[o.Key] = o.Payload
			}
		case OpResubmit:
			js := ix.byKey[o.Key]
			switch {
			case o.Err != "":
				v.add(o.Job, fmt.Sprintf("resubmission of %s%s %s", o.Key, who(o), o.Err), o)
			case !o.Deduped:
				v.add(o.Job, fmt.Sprintf("resubmission of %s%s created %v", o.Key, who(o), o.Job), o)
			case len(js) != 1 || js[0].ID != o.Job:
				v.add(o.Job, fmt.Sprintf("resubmission of %s%s returned %v, not the key's job", o.Key, who(o), o.Job), o)
			}
		case OpConflict:
			if o.Err != "" {
				v.add(o.Job, fmt.Sprintf("conflicting payload under %s%s %s", o.Key, who(o), o.Err), o)
			} else if msg := conflictDue(ix, o); msg != "" {
				v.add(o.Job, msg, o)
			}
		case OpCommit:
			if msg := commitAnswer(ix, o); msg != "" {
				v.add(o.Job, msg, o)
			}
		}
	}
	for i := range ix.st.Jobs {
		j := &ix.st.Jobs[i]
		if p, ok := payload[j.Key]; ok && j.PayloadHash != p {
			v.add(j.ID, fmt.Sprintf("%v (%s) holds a payload that is not the one its enqueue carried", j.ID, j.Key))
		}
	}
}

// commitAnswer says how a commit's answer differs from the stage's stored
// result ("": it does not): whether it created the result or was
// deduplicated, the store must hand back the event and (where the feed
// carries it) the value it keeps, not the caller's own. A commit whose
// result is missing altogether is the durability check's.
func commitAnswer(ix *storeIndex, o *Op) string {
	j := ix.jobs[o.Job]
	if j == nil {
		return ""
	}
	r, ok := ix.results[model.StageKey(j.Key, o.Stage)]
	what := "commit"
	if o.Deduped {
		what = "deduplicated commit"
	}
	switch {
	case !ok:
		return ""
	case o.Event != r.EventID:
		return fmt.Sprintf("%s%s of %v %s returned event %v, the stored result's is %v", what, who(o), o.Job, o.Stage, o.Event, r.EventID)
	case ix.feed.CommitValues && o.Value != r.Value:
		return fmt.Sprintf("%s%s of %v %s returned value %x, the stored result's is %x", what, who(o), o.Job, o.Stage, o.Value, r.Value)
	}
	return ""
}

// conflictDue says why a refused conflict was not due ("": it was, or
// the operation does not say which payload it sent): a key no job holds,
// or one whose job holds the very payload sent, is no conflict. Jobs are
// never deleted, so the final state tells.
func conflictDue(ix *storeIndex, o *Op) string {
	if o.Payload == 0 {
		return ""
	}
	js := ix.byKey[o.Key]
	switch {
	case len(js) == 0:
		return fmt.Sprintf("enqueue of %s%s refused as a conflict, but no job holds the key", o.Key, who(o))
	case len(js) == 1 && js[0].PayloadHash == o.Payload:
		return fmt.Sprintf("enqueue of %s%s refused as a conflict, but %v holds that very payload %x", o.Key, who(o), js[0].ID, o.Payload)
	}
	return ""
}
