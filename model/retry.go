package model

import "math"

// Outcome is what the retry policy decided: exactly one of three, never a
// fourth (seed 000's structural argument against infinite retry).
type Outcome uint8

// Policy outcomes.
const (
	RetryOutcome Outcome = iota
	DeadLetterOutcome
	CancelOutcome
)

func (o Outcome) String() string {
	return enumName([]string{"retry", "dead_letter", "cancel"}, o, "outcome")
}

// Decision is the policy's verdict on a failed attempt.
type Decision struct {
	Outcome Outcome
	Delay   Time // retry only: how long the job stays invisible
	Bound   Time // retry only: the strategy's upper bound for this attempt
	Reason  Code // dead_letter and cancel: the classified reason
}

// BackoffBound is the strategy's upper bound on the delay before attempt
// number attempt+1: min(cap, base·2^attempt) for full jitter and plain
// exponential, base for fixed.
func BackoffBound(c RetryConfig, attempt int32) Time {
	if c.Strategy == Fixed {
		return c.Base
	}
	d := c.Base
	for i := int32(0); i < attempt; i++ {
		if d >= c.Cap-d { // doubling would reach the cap (tested without overflow)
			return c.Cap
		}
		d *= 2
	}
	return min(d, c.Cap)
}

// Backoff draws the delay: uniform(0, bound) for full jitter (seed 003),
// exactly the bound for exponential and fixed.
func Backoff(c RetryConfig, attempt int32, r Rand) (delay, bound Time) {
	bound = BackoffBound(c, attempt)
	if c.Strategy == FullJitter {
		if bound == math.MaxInt64 {
			return r.Int64N(bound), bound // [0, bound): bound+1 would overflow
		}
		return r.Int64N(bound + 1), bound
	}
	return bound, bound
}

// Decide is the correct retry policy: permanent errors dead-letter on the
// first attempt; transient ones retry only while attempt < maxAttempts, the
// deadline allows the next attempt and the token budget is not spent.
func Decide(c RetryConfig, j *Job, err error, now Time, r Rand) Decision {
	switch Classify(err) {
	case Permanent:
		return Decision{Outcome: DeadLetterOutcome, Reason: codeOf(err)}
	case CancelledClass:
		return Decision{Outcome: CancelOutcome, Reason: CodeDeadlineExceeded}
	}
	if j.Attempt >= j.MaxAttempts {
		return Decision{Outcome: DeadLetterOutcome, Reason: CodeMaxAttemptsExceeded}
	}
	if j.TokensSpent >= j.TokenBudget {
		return Decision{Outcome: DeadLetterOutcome, Reason: CodeBudgetExhausted}
	}
	delay, bound := Backoff(c, j.Attempt, r)
	if now+delay >= j.DeadlineAt {
		return Decision{Outcome: CancelOutcome, Reason: CodeDeadlineExceeded}
	}
	return Decision{Outcome: RetryOutcome, Delay: delay, Bound: bound}
}
