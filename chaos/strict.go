package chaos

import (
	"math"

	"github.com/durasim/durasim/model"
)

// The checks of the paths the store takes on its own (LeaseNext's
// dead-lettering and cancelling, retry visibility, redrive, reprocess,
// idempotency), each derived from the histories and the final state.

// maxAttempts: LeaseNext dead-letters a job for max attempts when its
// attempt count has reached max_attempts, and every lease counts one
// attempt; a redrive starts the count again. So every life of a job that
// ended dead for max attempts holds max_attempts leases, none of which
// acked. A life ends at the DLQ row's time (its last death) or at the
// redrive that revived it (every redrive line follows such a death: the
// operator redrives nothing else), and starts at the redrive before.
//
// This reads a missing lease line as "no lease", which is sound because
// no lease line can be missing: the line is written right after LeaseNext
// returns, no kill point lies between the two, the orchestrator never
// kills a process itself (SIGTERM lets the call and its line finish), and
// a kill inside LeaseNext rolls the lease back. Every time window is taken
// at its widest, so a lease is counted whenever it may belong to the life.
func maxAttempts(ix *index) Invariant {
	inv := Invariant{Name: InvMaxAttempts}
	for _, j := range ix.st.Jobs {
		redrives := ix.lines(int64(j.ID), OpRedrive)
		var ends []int64 // the end of each life that died for max attempts
		for _, rd := range redrives {
			ends = append(ends, rd.T1)
		}
		d, dead := ix.dlq[j.ID]
		if dead && d.Reason == model.CodeMaxAttemptsExceeded && j.State == model.Dead {
			ends = append(ends, int64(d.At))
			if d.Attempts < j.MaxAttempts {
				add(&inv, "j%d dead for max attempts after %d of %d attempts (DLQ row)", j.ID, d.Attempts, j.MaxAttempts)
			}
		}
		start := int64(math.MinInt64)
		for i, end := range ends {
			leases, acked := 0, false
			for _, e := range ix.byJob[int64(j.ID)] {
				if e.T1 > start && e.T0 < end {
					leases += b2i(e.Op == OpLease)
					acked = acked || e.Op == OpAck
				}
			}
			switch {
			case leases < int(j.MaxAttempts):
				add(&inv, "j%d (%s) dead for max attempts after %d leases of %d allowed", j.ID, j.Key, leases, j.MaxAttempts)
			case acked:
				add(&inv, "j%d dead for max attempts after an ack", j.ID)
			}
			if i < len(redrives) {
				start = redrives[i].T0
			}
		}
	}
	return inv
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// retryTiming: a job retried is invisible until the visible time its retry
// set (Retry's visible_at), so no lease of it that began after the retry
// returned (lease T0 > retry T1) may have ended before that time (lease T1
// < visible): LeaseNext's now lies between its line's T0 and T1, and
// every process reads the same machine clock.
func retryTiming(ix *index) Invariant {
	inv := Invariant{Name: InvRetryTiming}
	for _, job := range sortedKeys(ix.byJob) {
		for _, rt := range ix.lines(job, OpRetry) {
			for _, l := range ix.lines(job, OpLease) {
				if l.T0 > rt.T1 && l.T1 < rt.Visible {
					add(&inv, "j%d leased by %s %.1f ms before the visible time its retry by %s set",
						job, l.Proc, float64(rt.Visible-l.T1)/1e6, rt.Proc)
					break
				}
			}
		}
	}
	return inv
}

// deadlines: LeaseNext cancels a job whose deadline has passed instead of
// leasing it, so no lease began at or after the deadline (jobs never
// redriven: a redrive sets a new one); a worker cancels at retry only
// when the retry's visible time would reach the deadline; a job cancelled
// otherwise (at lease) has a deadline before the run's last operation.
func deadlines(ix *index) Invariant {
	inv := Invariant{Name: InvDeadline}
	for _, j := range ix.st.Jobs {
		if j.RedriveCount == 0 {
			for _, l := range ix.lines(int64(j.ID), OpLease) {
				if l.T0 >= int64(j.DeadlineAt) {
					add(&inv, "j%d leased by %s %.1f ms past its deadline", j.ID, l.Proc, float64(l.T0-int64(j.DeadlineAt))/1e6)
				}
			}
		}
		for _, c := range ix.lines(int64(j.ID), OpCancel) {
			if c.Visible < int64(j.DeadlineAt) {
				add(&inv, "j%d cancelled by %s at a retry visible %.1f ms before its deadline", j.ID, c.Proc, float64(int64(j.DeadlineAt)-c.Visible)/1e6)
			}
		}
		// Cancelled at lease (no cancel line): the deadline had passed.
		if j.State == model.Cancelled && len(ix.lines(int64(j.ID), OpCancel)) == 0 && int64(j.DeadlineAt) > ix.end {
			add(&inv, "j%d cancelled at lease, its deadline after the run's last operation", j.ID)
		}
	}
	return inv
}

// redrives: a redrive gives the job fresh attempts (the first lease after
// it is attempt 1: of the leases that may follow it, the lowest attempt
// is 1) and, the dependency fixed, the job then succeeds.
func redrives(ix *index) Invariant {
	inv := Invariant{Name: InvRedrive}
	for _, j := range ix.st.Jobs {
		rds := ix.lines(int64(j.ID), OpRedrive)
		for _, rd := range rds {
			low := int32(math.MaxInt32)
			for _, l := range ix.lines(int64(j.ID), OpLease) {
				if l.T1 > rd.T0 {
					low = min(low, l.Attempt)
				}
			}
			switch {
			case low == math.MaxInt32 && j.State == model.Succeeded:
				add(&inv, "j%d succeeded with no lease after its redrive by %s", j.ID, rd.Proc)
			case low != math.MaxInt32 && low != 1:
				add(&inv, "j%d's first lease after its redrive by %s is attempt %d", j.ID, rd.Proc, low)
			}
		}
		if j.RedriveCount > 0 && (j.State == model.Cancelled || j.State == model.Dead && ix.dlq[j.ID].Reason != model.CodeMaxAttemptsExceeded) {
			add(&inv, "j%d redriven %d times ends %s", j.ID, j.RedriveCount, j.State)
		}
		if j.RedriveCount > 0 && KeyTraits(j.Key).Poison {
			add(&inv, "poison j%d was redriven", j.ID)
		}
	}
	return inv
}

// reprocesses: a job with an origin is the next version of a dead poison
// job (same tenant, document and payload, version + 1, the model's key for
// it), and the audit log links the two exactly once; every redrive has
// its audit row once the operator is done (the liveness check says when
// it is not). Audit rows name an operator and existing jobs.
func reprocesses(ix *index, operator bool) Invariant {
	inv := Invariant{Name: InvReprocess}
	links := map[[2]model.JobID]int{}
	redriveAudits := map[model.JobID]int{}
	for _, a := range ix.st.Audit {
		if a.Operator == "" {
			add(&inv, "audit row %s of j%d without an operator", a.Action, a.Job)
		}
		switch a.Action {
		case "reprocess":
			links[[2]model.JobID{a.Job, a.NewJob}]++
			if nj, ok := ix.jobs[a.NewJob]; !ok || nj.Origin != a.Job {
				add(&inv, "audit links j%d to j%d, which is not its reprocess", a.Job, a.NewJob)
			}
		case "redrive":
			redriveAudits[a.Job]++
		default:
			add(&inv, "audit row with action %q", a.Action)
		}
	}
	for _, j := range ix.st.Jobs {
		if j.RedriveCount > 0 && operator && redriveAudits[j.ID] > int(j.RedriveCount) {
			add(&inv, "j%d redriven %d times, %d redrive audit rows", j.ID, j.RedriveCount, redriveAudits[j.ID])
		}
		if j.Origin == 0 {
			continue
		}
		old, ok := ix.jobs[j.Origin]
		key, _ := model.BuildIdempotencyKey(old.Tenant, old.Document, int(old.Version)+1)
		switch {
		case !ok:
			add(&inv, "j%d reprocesses j%d, which does not exist", j.ID, j.Origin)
		case old.State != model.Dead || ix.dlq[old.ID].Reason != model.CodePoisonSchema:
			add(&inv, "j%d reprocesses j%d, which is %s", j.ID, old.ID, old.State)
		case j.Key != key || j.Tenant != old.Tenant || j.Document != old.Document || j.Version != old.Version+1 || j.PayloadHash != old.PayloadHash:
			add(&inv, "j%d (%s) is not the next version of j%d (%s)", j.ID, j.Key, old.ID, old.Key)
		}
		if n := links[[2]model.JobID{j.Origin, j.ID}]; n != 1 {
			add(&inv, "reprocess of j%d as j%d has %d audit rows", j.Origin, j.ID, n)
		}
	}
	return inv
}

// idempotency: a resubmission (same key, same payload) returned the job
// that holds the key and created nothing; another payload under an
// existing key was refused; no job's payload is other than its
// document's (a conflict never overwrote one).
func idempotency(ix *index) Invariant {
	inv := Invariant{Name: InvIdempotency}
	for _, e := range ix.hist {
		switch e.Op {
		case OpResubmit:
			js := ix.byKey[e.Key]
			switch {
			case e.Err != "":
				add(&inv, "resubmission of %s by %s %s", e.Key, e.Proc, e.Err)
			case !e.Deduped:
				add(&inv, "resubmission of %s by %s created j%d", e.Key, e.Proc, e.Job)
			case len(js) != 1 || js[0].ID != model.JobID(e.Job):
				add(&inv, "resubmission of %s by %s returned j%d, not the key's job", e.Key, e.Proc, e.Job)
			}
		case OpConflict:
			if e.Err != "" {
				add(&inv, "conflicting payload under %s by %s %s", e.Key, e.Proc, e.Err)
			}
		}
	}
	for _, j := range ix.st.Jobs {
		if j.PayloadHash != PayloadOf(j.Document) {
			add(&inv, "j%d (%s) holds a payload that is not its document's", j.ID, j.Key)
		}
	}
	return inv
}
