package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// Bounded retries: attempts never exceed maxAttempts; no attempt after the
// job went dead or cancelled (unless a redrive brought a dead job back) or
// after its deadline; every retry delay within its strategy's bound,
// computed here from the configuration, not taken from the event.

// leaseAttempt checks that a lease is an attempt the job may still make.
func (s *Suite) leaseAttempt(e *model.Event, j *job) {
	attempt := e.Attempt
	if j != nil && j.enqueued {
		attempt = j.sh.attempts // the oracle's count, not the event's
	}
	if m := s.cfg.Model.MaxAttempts; m > 0 && attempt > m {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v leased for attempt %d of at most %d", e.Job, attempt, m), e.Seq)
	}
	if j == nil {
		return
	}
	if j.over() {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v leased after it went %v", e.Job, j.state), j.endSeq, e.Seq)
	}
	if b := s.cfg.Model.TokenBudget; b > 0 && j.work.tokens >= b {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v leased for attempt %d with %d of its %d tokens already spent",
			e.Job, e.Attempt, j.work.tokens, b), j.work.seq, e.Seq)
	}
	if j.deadline > 0 && e.At >= j.deadline {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v leased at %s, at or after its deadline %s",
			e.Job, millis(e.At), millis(j.deadline)), j.enqSeq, e.Seq)
	}
}

// retry checks an accepted retry: the job still had an attempt left and
// the delay is within the strategy's bound for the attempt that failed.
func (s *Suite) retry(e *model.Event, j *job) {
	if !e.OK {
		return
	}
	attempt, lease := e.Attempt, uint64(0)
	if j != nil {
		if j.over() {
			s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retried after it went %v", e.Job, j.state), j.endSeq, e.Seq)
		}
		if j.enqueued {
			attempt = j.sh.attempts // the oracle's count, not the event's
		}
		if j.lease.fence != 0 {
			lease = j.lease.seq
		}
	}
	if permanent(e.Code) {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retried after a permanent error (%v): it belongs in the DLQ on the first attempt",
			e.Job, e.Code), lease, e.Seq)
	}
	if m := s.cfg.Model.MaxAttempts; m > 0 && attempt >= m {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retried after attempt %d of at most %d", e.Job, attempt, m), lease, e.Seq)
	}
	if bound, ok := backoffBound(s.cfg.Model.Retry, attempt); ok && (e.N < 0 || e.N > bound) {
		s.report(BoundedRetries, e.Job, fmt.Sprintf("%v retry delay %s outside [0, %s] for attempt %d (%v)",
			e.Job, millis(e.N), millis(bound), attempt, s.cfg.Model.Retry.Strategy), lease, e.Seq)
	}
}

// permanent reports whether a failure code is one the classifier must send
// to the DLQ without retrying (seed 003's poison messages).
func permanent(c model.Code) bool {
	switch c {
	case model.CodePermanentError, model.CodePoisonSchema, model.CodeContextOverflow, model.CodeIdempotencyConflict:
		return true
	}
	return false
}

// backoffBound is the longest delay the strategy allows after attempt
// number attempt failed: base for fixed, min(cap, base·2^attempt) for
// full jitter and plain exponential (the model's Decide draws with the
// attempt counter already incremented by the lease). ok is false when the
// configuration gives no bound.
func backoffBound(c model.RetryConfig, attempt int32) (bound model.Time, ok bool) {
	if c.Base <= 0 {
		return 0, false
	}
	if c.Strategy == model.Fixed {
		return c.Base, true
	}
	a := max(attempt, 0)
	if c.Base > c.Cap>>a { // a shift by 64 or more gives 0
		return c.Cap, true
	}
	return c.Base << a, true
}
