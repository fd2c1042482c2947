package invariants

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// The retry policy, recomputed from the history: after a failure the queue
// must retry (within the strategy's bound, before the deadline), dead-letter
// (permanent error, attempts or budget spent) or cancel (the deadline would
// pass) exactly as ARCHITECTURE.md says — with the attempts, tokens and deadline
// the oracle counted, not the ones the job carries. A lease must wait for
// the visibility time the last retry or redrive announced.

// expected is the outcome the policy allows for a failure.
type expected uint8

const (
	expectRetry  expected = iota // retry, or cancel if the deadline may pass
	expectDead                   // dead letter with the reason given
	expectCancel                 // cancel at once (the failure says the deadline passed)
)

// policyOutcome is what the policy must decide for a failure with code,
// given the oracle's counts.
func (s *Suite) policyOutcome(j *job, code model.Code) (expected, model.Code) {
	switch {
	case permanent(code):
		return expectDead, code
	case code == model.CodeDeadlineExceeded:
		return expectCancel, code
	case s.cfg.Model.MaxAttempts > 0 && j.sh.attempts >= s.cfg.Model.MaxAttempts:
		return expectDead, model.CodeMaxAttemptsExceeded
	case s.cfg.Model.TokenBudget > 0 && j.work.tokens >= s.cfg.Model.TokenBudget:
		return expectDead, model.CodeBudgetExhausted
	}
	return expectRetry, model.CodeNone
}

// exhaustion is the reason a redelivered job may not make another attempt,
// or CodeNone.
func (s *Suite) exhaustion(j *job) model.Code {
	switch {
	case s.cfg.Model.MaxAttempts > 0 && j.sh.attempts >= s.cfg.Model.MaxAttempts:
		return model.CodeMaxAttemptsExceeded
	case s.cfg.Model.TokenBudget > 0 && j.work.tokens >= s.cfg.Model.TokenBudget:
		return model.CodeBudgetExhausted
	}
	return model.CodeNone
}

// workFailed records a failure a worker reported; the queue's decision
// follows.
func (s *Suite) workFailed(e *model.Event, j *job) {
	if j == nil {
		return
	}
	j.sh.fail = failure{code: e.Code, seq: e.Seq, actor: e.Actor, fence: e.Fence, work: e.Code != model.CodeIdempotencyConflict}
	for rest := e.Text; rest != ""; {
		var f string
		f, rest, _ = strings.Cut(rest, " ")
		switch k, v, _ := strings.Cut(f, "="); k {
		case "paths":
			j.sh.fail.paths = v
		case "ref":
			j.sh.fail.ref, _ = strconv.ParseUint(v, 16, 64)
		}
	}
	j.sh.failOpen = true
	if e.Code == model.CodeDeadlineExceeded && j.deadline > 0 && e.At < j.deadline {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v failed with %v at %s, before its deadline %s: the policy cancels a job that could still succeed",
			e.Job, e.Code, millis(e.At), millis(j.deadline)), j.deadlineSeq(), e.Seq)
	}
	if j.sh.revived != 0 && (permanent(e.Code) || e.Code == model.CodeProviderRateLimited) {
		j.sh.excuse = e.Seq
	}
}

// pendingFailure returns the failure e decides: reported by e's actor
// under the current lease and not yet decided.
func (j *job) pendingFailure(e *model.Event) (failure, bool) {
	f := j.sh.fail
	ok := f.seq != 0 && f.seq > j.sh.decided && f.actor == e.Actor && f.fence == j.lease.fence
	return f, ok
}

// decide marks the job's pending failure decided by e.
func (j *job) decide(e *model.Event) { j.sh.decided = e.Seq }

// leaseTimely checks, before a lease counts, that it waited for the job to
// become visible.
func (s *Suite) leaseTimely(e *model.Event, j *job) {
	if j == nil || !j.enqueued || j.over() {
		return
	}
	if e.At < j.sh.visibleAt {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v leased at %s, before %s, when it became visible",
			e.Job, millis(e.At), millis(j.sh.visibleAt)), j.sh.visSeq, e.Seq)
	}
}

// retryPolicy checks an accepted retry against the policy, beyond what
// [Suite.retry] checks from the event itself: the failure the worker
// reported, and the budget.
func (s *Suite) retryPolicy(e *model.Event, j *job) {
	if j == nil || !j.enqueued {
		return
	}
	f, ok := j.pendingFailure(e)
	switch {
	case !ok:
		s.disagree(e.Job, fmt.Sprintf("%v retried by %v with no failure reported under fence %d", e.Job, e.Actor, e.Fence), j.lease.seq, e.Seq)
	case permanent(f.code) && !permanent(e.Code):
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retried after a permanent failure (%v, recorded as %v): it belongs in the DLQ on the first attempt",
			e.Job, f.code, e.Code), f.seq, e.Seq)
	case f.code == model.CodeDeadlineExceeded:
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retried after its deadline passed (%v): the policy cancels it", e.Job, f.code), f.seq, e.Seq)
	case s.cfg.Model.TokenBudget > 0 && j.work.tokens >= s.cfg.Model.TokenBudget:
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retried with %d of its %d tokens spent", e.Job, j.work.tokens, s.cfg.Model.TokenBudget),
			j.work.seq, e.Seq)
	}
	if ok {
		s.breakerOutcome(e, true)
	}
	j.decide(e)
	s.retryTiming(e, j)
}

// retryTiming checks a retry's delay and the visibility it announces.
func (s *Suite) retryTiming(e *model.Event, j *job) {
	c := s.cfg.Model.Retry
	if bound, ok := backoffBound(c, j.sh.attempts); ok {
		if e.N2 != bound {
			s.disagree(e.Job, fmt.Sprintf("%v retry announces a bound of %s, the %v strategy gives %s for attempt %d",
				e.Job, millis(e.N2), c.Strategy, millis(bound), j.sh.attempts), e.Seq)
		}
		if c.Strategy != model.FullJitter && e.N != bound && e.N >= 0 && e.N <= bound {
			s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retry delay %s, but the %v strategy waits exactly %s after attempt %d",
				e.Job, millis(e.N), c.Strategy, millis(bound), j.sh.attempts), j.lease.seq, e.Seq)
		}
	}
	if j.deadline > 0 && e.At+e.N >= j.deadline {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retry scheduled for %s, at or after its deadline %s",
			e.Job, millis(e.At+e.N), millis(j.deadline)), j.deadlineSeq(), e.Seq)
	}
	j.sh.visibleAt, j.sh.visSeq = e.At+max(e.N, 0), e.Seq
}

// deadlineSeq is the event that set the job's deadline.
func (j *job) deadlineSeq() uint64 {
	if j.sh.redrives > 0 && j.sh.revived != 0 {
		return j.sh.revived
	}
	return j.enqSeq
}

// cancelPolicy checks a cancel decided by a worker's failure: only when
// the earliest possible retry could still reach the deadline.
func (s *Suite) cancelPolicy(e *model.Event, j *job) {
	if j == nil || !j.enqueued || e.Actor.Role != model.RoleWorker {
		return
	}
	f, ok := j.pendingFailure(e)
	if !ok {
		s.disagree(e.Job, fmt.Sprintf("%v cancelled by %v with no failure reported under fence %d", e.Job, e.Actor, e.Fence), j.lease.seq, e.Seq)
		return
	}
	if f.code == model.CodeDeadlineExceeded {
		s.breakerCut(e)
	} else {
		s.breakerOutcome(e, true)
	}
	j.decide(e)
	out, reason := s.policyOutcome(j, f.code)
	if out == expectCancel {
		return
	}
	if out == expectDead {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v cancelled after %v on attempt %d: the policy dead-letters it (%v)",
			e.Job, f.code, j.sh.attempts, reason), f.seq, e.Seq)
		return
	}
	bound, ok := backoffBound(s.cfg.Model.Retry, j.sh.attempts)
	if ok && j.deadline > 0 && e.At+bound < j.deadline {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v cancelled at %s, but any retry (at most %s later) would still start before its deadline %s",
			e.Job, millis(e.At), millis(bound), millis(j.deadline)), f.seq, j.deadlineSeq(), e.Seq)
	}
}

// dlqPolicy checks a DLQ write: a worker's dead-letter decision after a
// failure, or the queue's at a lease when no attempt is left.
func (s *Suite) dlqPolicy(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK {
		return
	}
	want, why := s.exhaustion(j), j.lease.seq
	var paths string
	var ref uint64
	work := false
	if f, ok := j.pendingFailure(e); ok {
		paths, ref, work = f.paths, f.ref, f.work
		s.breakerOutcome(e, true)
		j.decide(e)
		why = f.seq
		var out expected
		switch out, want = s.policyOutcome(j, f.code); out {
		case expectRetry:
			s.report(BoundedRetries, e.Job, fmt.Sprintf("%v dead-lettered after %v on attempt %d of %d with budget left: the policy retries it",
				e.Job, f.code, j.sh.attempts, s.cfg.Model.MaxAttempts), f.seq, e.Seq)
		case expectCancel:
			s.report(BoundedRetries, e.Job, fmt.Sprintf("%v dead-lettered after %v: the policy cancels it, it never goes to the DLQ",
				e.Job, f.code), f.seq, e.Seq)
			want = model.CodeNone
		}
	} else if want == model.CodeNone {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v dead-lettered at a lease after attempt %d of %d, with no failure and budget left",
			e.Job, j.sh.attempts, s.cfg.Model.MaxAttempts), j.lease.seq, e.Seq)
	}
	if want != model.CodeNone && e.Code != want {
		s.disagree(e.Job, fmt.Sprintf("%v DLQ reason %v, the policy gives %v", e.Job, e.Code, want), why, e.Seq)
	}
	if int32(e.N) != j.sh.attempts || e.N2 != j.work.tokens {
		s.disagree(e.Job, fmt.Sprintf("%v DLQ entry says %d attempts and %d tokens, the history counts %d and %d",
			e.Job, e.N, e.N2, j.sh.attempts, j.work.tokens), e.Seq)
	}
	if j.sh.dlq.seq == 0 { // the first entry of the job: a DLQ lists entries in this order
		s.g.dlqOrder = append(s.g.dlqOrder, e.Job)
	}
	j.sh.dlq = dlqRecord{seq: e.Seq, reason: e.Code, attempts: j.sh.attempts, tokens: j.work.tokens, paths: paths, ref: ref, work: work}
	j.sh.dlqResolved = false
}

// exhausted checks a job dead-lettered at a lease: it had no attempt or
// budget left, and its envelope was written first.
func (s *Suite) exhausted(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK {
		return
	}
	if j.sh.dlq.seq == 0 || j.sh.dlq.seq < j.lease.seq {
		s.report(NothingLost, e.Job, fmt.Sprintf("%v dead-lettered at a lease with no DLQ entry written", e.Job), e.Seq)
	} else if e.Code != j.sh.dlq.reason {
		s.disagree(e.Job, fmt.Sprintf("%v dead with reason %v, its DLQ entry says %v", e.Job, e.Code, j.sh.dlq.reason), j.sh.dlq.seq, e.Seq)
	}
}

// markedDead checks a worker's MarkDead: its DLQ entry came first and
// gives the same reason.
func (s *Suite) markedDead(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK {
		return
	}
	if j.sh.dlq.seq == 0 || j.sh.dlq.seq < j.lease.seq {
		s.report(NothingLost, e.Job, fmt.Sprintf("%v marked dead with no DLQ entry written under its lease", e.Job), j.lease.seq, e.Seq)
	} else if e.Code != j.sh.dlq.reason {
		s.disagree(e.Job, fmt.Sprintf("%v dead with reason %v, its DLQ entry says %v", e.Job, e.Code, j.sh.dlq.reason), j.sh.dlq.seq, e.Seq)
	}
}

// cancelledAtLease checks a cancel at a lease: the deadline had passed.
func (s *Suite) cancelledAtLease(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK || j.deadline == 0 {
		return
	}
	if e.At < j.deadline {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v cancelled at a lease at %s, before its deadline %s",
			e.Job, millis(e.At), millis(j.deadline)), j.deadlineSeq(), e.Seq)
	}
	if b := &s.brk; j.sh.revived != 0 && (b.state != model.Closed || b.stopSeq > j.sh.revived) {
		j.sh.excuse = b.stopSeq // a breaker that stopped leases since the revival may hold it past its deadline
	}
}

// revive gives a redriven job a fresh set of attempts, budget, deadline
// and visibility, checking the numbers the redrive announces.
func (s *Suite) revive(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK || j.state != model.Dead {
		return
	}
	j.sh.redrives++
	if int32(e.N) != j.sh.redrives {
		s.disagree(e.Job, fmt.Sprintf("%v redrive number %d, the history counts %d", e.Job, e.N, j.sh.redrives), e.Seq)
	}
	if d := s.cfg.Model.Deadline; d > 0 && e.N2 != d {
		s.disagree(e.Job, fmt.Sprintf("%v redriven with a deadline of %s, the configuration gives %s", e.Job, millis(e.N2), millis(d)), e.Seq)
	}
	if !e.HasStage {
		s.disagree(e.Job, fmt.Sprintf("%v redriven without announcing the checkpoint it resumes from", e.Job), e.Seq)
	} else if e.Stage != j.sh.checkpoint {
		s.report(OperatorActions, e.Job, fmt.Sprintf("redrive moved the checkpoint of %v from %v to %v: committed stages run again",
			e.Job, j.sh.checkpoint, e.Stage), e.Seq)
	}
	j.sh.attempts, j.work.tokens = 0, 0
	j.sh.visibleAt, j.sh.visSeq = e.At, e.Seq
	if d := s.cfg.Model.Deadline; d > 0 {
		j.deadline = e.At + d
	} else if e.N2 > 0 {
		j.deadline = e.At + e.N2
	}
	s.revived(j, e.Seq)
}

// revived marks a job revived by an operator at seq.
func (s *Suite) revived(j *job, seq uint64) {
	j.sh.revived, j.sh.revivedLate, j.sh.excuse = seq, s.g.quiesce != 0, 0
	j.sh.dlqResolved = true
}

// reprocessed links a reprocess to the new job it enqueued.
func (s *Suite) reprocessed(e *model.Event, old *job) {
	if !e.OK {
		return
	}
	if old != nil {
		old.sh.dlqResolved = true
	}
	if nj := s.known(e.Other); nj != nil && nj.enqueued && e.Other != e.Job {
		nj.sh.origin = e.Job
		s.revived(nj, nj.enqSeq)
	}
}

// resumed checks that a lease's first work starts at the job's checkpoint:
// a worker resumes after the last committed stage (seed 004), neither
// redoing committed stages nor skipping one.
func (s *Suite) resumed(e *model.Event, j *job) {
	if j == nil || j.sh.resumeFence == 0 || e.Fence != j.sh.resumeFence {
		return
	}
	j.sh.resumeFence = 0
	if e.Stage != j.sh.resume {
		s.report(WastedWork, e.Job, fmt.Sprintf("%v: %v started at stage %v under fence %d, but the job's checkpoint was %v",
			e.Job, e.Actor, e.Stage, e.Fence, j.sh.resume), j.lease.seq, e.Seq)
	}
}

// checkpointed checks an accepted advance or ack: the stages it moves past
// were committed, and moves the oracle's checkpoint.
func (s *Suite) checkpointed(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK {
		return
	}
	next := model.StageDone
	if e.Kind == model.EvAdvance {
		next = e.Stage
	}
	o := s.ownerOf(j.key, j)
	for st := model.StageIngest; st < next && st < model.StageDone; st++ {
		if !s.wasCommitted(o, j.key, st) {
			s.report(NothingLost, e.Job, fmt.Sprintf("%v %v past stage %v, whose result was never committed under key %s",
				e.Job, e.Kind, st, j.key), j.lease.seq, e.Seq)
			break
		}
	}
	if next > j.sh.checkpoint {
		j.sh.checkpoint, j.sh.checkSeq = next, e.Seq
	}
}
