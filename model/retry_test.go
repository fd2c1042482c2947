package model_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
	"pgregory.net/rapid"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want model.Class
	}{
		{"transient code", &model.WorkError{Code: model.CodeTransient}, model.Transient},
		{"provider 429", &model.WorkError{Code: model.CodeProviderRateLimited}, model.Transient},
		{"permanent_error", &model.WorkError{Code: model.CodePermanentError}, model.Permanent},
		{"poison schema", &model.WorkError{Code: model.CodePoisonSchema}, model.Permanent},
		{"context overflow", &model.WorkError{Code: model.CodeContextOverflow}, model.Permanent},
		{"deadline exceeded", &model.WorkError{Code: model.CodeDeadlineExceeded}, model.CancelledClass},
		{"idempotency conflict", &model.IdempotencyConflictError{Key: "k"}, model.Permanent},
		{"wrapped poison", fmt.Errorf("extract: %w", &model.WorkError{Code: model.CodePoisonSchema}), model.Permanent},
		{"wrapped conflict", fmt.Errorf("commit: %w", &model.IdempotencyConflictError{Key: "k"}), model.Permanent},
		{"unknown error", errors.New("connection reset"), model.Transient},
		{"stale fence", model.ErrStaleFence, model.Transient},
	}
	for _, tt := range tests {
		if got := model.Classify(tt.err); got != tt.want {
			t.Errorf("%s: Classify = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	jitter := model.RetryConfig{Strategy: model.FullJitter, Base: 100 * ms, Cap: 1000 * ms}
	fixed := model.RetryConfig{Strategy: model.Fixed, Base: 100 * ms, Cap: 100 * ms}
	const now = 1000 * ms
	job := func(attempt int32, mut func(j *model.Job)) *model.Job {
		j := &model.Job{Attempt: attempt, MaxAttempts: 3, TokenBudget: 100, DeadlineAt: now + 60_000*ms}
		if mut != nil {
			mut(j)
		}
		return j
	}
	spent := func(j *model.Job) { j.TokensSpent = j.TokenBudget }
	tight := func(j *model.Job) { j.DeadlineAt = now + 100*ms } // fixed delay lands exactly on it

	tests := []struct {
		name string
		cfg  model.RetryConfig
		job  *model.Job
		err  error
		want model.Outcome
		code model.Code
	}{
		{"permanent on the first attempt", jitter, job(1, nil), errPoison, model.DeadLetterOutcome, model.CodePoisonSchema},
		{"permanent_error code", jitter, job(1, nil), &model.WorkError{Code: model.CodePermanentError}, model.DeadLetterOutcome, model.CodePermanentError},
		{"context overflow", jitter, job(1, nil), &model.WorkError{Code: model.CodeContextOverflow}, model.DeadLetterOutcome, model.CodeContextOverflow},
		{"conflict", jitter, job(1, nil), &model.IdempotencyConflictError{Key: "k"}, model.DeadLetterOutcome, model.CodeIdempotencyConflict},
		{"permanent wins over exhausted attempts", jitter, job(3, spent), errPoison, model.DeadLetterOutcome, model.CodePoisonSchema},
		{"cancelled class", jitter, job(1, nil), &model.WorkError{Code: model.CodeDeadlineExceeded}, model.CancelOutcome, model.CodeDeadlineExceeded},
		{"transient below the ceiling", jitter, job(1, nil), errTransient, model.RetryOutcome, model.CodeNone},
		{"transient one below the ceiling", jitter, job(2, nil), errTransient, model.RetryOutcome, model.CodeNone},
		{"plain error retries", jitter, job(1, nil), errors.New("reset"), model.RetryOutcome, model.CodeNone},
		{"transient at the ceiling", jitter, job(3, nil), errTransient, model.DeadLetterOutcome, model.CodeMaxAttemptsExceeded},
		{"ceiling checked before budget", jitter, job(3, spent), errTransient, model.DeadLetterOutcome, model.CodeMaxAttemptsExceeded},
		{"budget spent", jitter, job(1, spent), errTransient, model.DeadLetterOutcome, model.CodeBudgetExhausted},
		{"deadline reached by the delay", fixed, job(1, tight), errTransient, model.CancelOutcome, model.CodeDeadlineExceeded},
		{"deadline already passed", jitter, job(1, func(j *model.Job) { j.DeadlineAt = now }), errTransient, model.CancelOutcome, model.CodeDeadlineExceeded},
		{"deadline one tick after the delay", fixed, job(1, func(j *model.Job) { j.DeadlineAt = now + 100*ms + 1 }), errTransient, model.RetryOutcome, model.CodeNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := model.Decide(tt.cfg, tt.job, tt.err, now, scheduler.NewStream(3))
			if d.Outcome != tt.want || d.Reason != tt.code {
				t.Fatalf("Decide = %+v, want %v/%v", d, tt.want, tt.code)
			}
			if d.Outcome != model.RetryOutcome {
				if d.Delay != 0 || d.Bound != 0 {
					t.Fatalf("a %v decision carries a delay: %+v", d.Outcome, d)
				}
				return
			}
			bound := model.BackoffBound(tt.cfg, tt.job.Attempt)
			if d.Bound != bound || d.Delay < 0 || d.Delay > bound {
				t.Fatalf("retry %+v, want delay in [0, %d]", d, bound)
			}
		})
	}
}

func TestBackoffBound(t *testing.T) {
	const base, limit = 100 * ms, 1000 * ms
	tests := []struct {
		strategy model.Strategy
		attempt  int32
		want     model.Time
	}{
		{model.FullJitter, 0, 100 * ms},
		{model.FullJitter, 1, 200 * ms},
		{model.FullJitter, 2, 400 * ms},
		{model.FullJitter, 3, 800 * ms},
		{model.FullJitter, 4, 1000 * ms},
		{model.FullJitter, 62, 1000 * ms},
		{model.FullJitter, 1000, 1000 * ms},
		{model.Exponential, 0, 100 * ms},
		{model.Exponential, 3, 800 * ms},
		{model.Exponential, 4, 1000 * ms},
		{model.Fixed, 0, 100 * ms},
		{model.Fixed, 5, 100 * ms},
	}
	for _, tt := range tests {
		c := model.RetryConfig{Strategy: tt.strategy, Base: base, Cap: limit}
		if got := model.BackoffBound(c, tt.attempt); got != tt.want {
			t.Errorf("%v attempt %d: bound %d, want %d", tt.strategy, tt.attempt, got, tt.want)
		}
		delay, bound := model.Backoff(c, tt.attempt, scheduler.NewStream(1))
		if bound != tt.want {
			t.Errorf("%v attempt %d: Backoff bound %d, want %d", tt.strategy, tt.attempt, bound, tt.want)
		}
		if tt.strategy != model.FullJitter && delay != bound {
			t.Errorf("%v attempt %d: delay %d, want exactly the bound %d", tt.strategy, tt.attempt, delay, bound)
		}
	}
}

// refBound is min(cap, base·2^attempt) computed without overflow.
func refBound(base, limit model.Time, attempt int32) model.Time {
	if attempt >= 63 || base > math.MaxInt64>>attempt {
		return limit
	}
	return min(limit, base<<attempt)
}

func TestFullJitterDelayIsWithinBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// A cap of MaxInt64 is TestBackoffAtTheLargestCap's business.
		base := model.Time(rapid.Int64Range(1, math.MaxInt64-1).Draw(t, "base"))
		limit := model.Time(rapid.Int64Range(int64(base), math.MaxInt64-1).Draw(t, "cap"))
		attempt := rapid.Int32Range(0, 200).Draw(t, "attempt")
		r := strictRand{scheduler.NewStream(rapid.Uint64().Draw(t, "seed"))}
		c := model.RetryConfig{Strategy: model.FullJitter, Base: base, Cap: limit}
		delay, bound := model.Backoff(c, attempt, r)
		if want := refBound(base, limit, attempt); bound != want {
			t.Fatalf("bound %d, want min(cap, base·2^attempt) = %d", bound, want)
		}
		if delay < 0 || delay > bound {
			t.Fatalf("delay %d outside [0, %d]", delay, bound)
		}
	})
}

// strictRand holds the model to model.Rand's contract: n must be > 0.
type strictRand struct{ s *scheduler.Stream }

func (r strictRand) Int64N(n int64) int64 {
	if n <= 0 {
		panic(fmt.Sprintf("Int64N(%d): n must be > 0", n))
	}
	return r.s.Int64N(n)
}

// Regression: Backoff draws r.Int64N(bound + 1), which overflows to MinInt64 when
// the bound is MaxInt64 (a cap Validate accepts). scheduler.Stream happens
// to return a value anyway; math/rand/v2's Int64N panics.
func TestBackoffAtTheLargestCap(t *testing.T) {
	c := model.RetryConfig{Strategy: model.FullJitter, Base: 1, Cap: math.MaxInt64}
	delay, bound := model.Backoff(c, 63, strictRand{scheduler.NewStream(1)})
	if bound != math.MaxInt64 || delay < 0 {
		t.Fatalf("Backoff = %d, %d", delay, bound)
	}
}

// Full jitter spreads delays over the whole [0, bound] range rather than
// clustering near the bound (seed 003's point against retry storms).
func TestFullJitterSpreadsDelays(t *testing.T) {
	c := model.RetryConfig{Strategy: model.FullJitter, Base: 1000 * ms, Cap: 1000 * ms}
	r := scheduler.NewStream(9)
	var low, high int
	for range 1000 {
		d, _ := model.Backoff(c, 0, r)
		if d < 250*ms {
			low++
		}
		if d > 750*ms {
			high++
		}
	}
	if low < 200 || high < 200 {
		t.Fatalf("delays not spread: %d below 25%%, %d above 75%% of the bound", low, high)
	}
}

// Regression: doubling base must not overflow. A config that Validate
// accepts (cap >= base > 0) once yielded a negative bound.
func TestBackoffBoundDoesNotOverflow(t *testing.T) {
	cfg := model.DefaultConfig()
	cfg.Retry = model.RetryConfig{Strategy: model.FullJitter, Base: 1 << 62, Cap: math.MaxInt64}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config rejected: %v", err)
	}
	if got := model.BackoffBound(cfg.Retry, 1); got != math.MaxInt64 {
		t.Fatalf("bound = %d, want the cap %d", got, int64(math.MaxInt64))
	}
}

func TestStrategyNamesRoundTrip(t *testing.T) {
	for _, s := range []model.Strategy{model.FullJitter, model.Exponential, model.Fixed} {
		got, err := model.ParseStrategy(s.String())
		if err != nil || got != s {
			t.Errorf("ParseStrategy(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := model.ParseStrategy("linear"); err == nil {
		t.Error("ParseStrategy accepted an unknown name")
	}
}
