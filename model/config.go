package model

import (
	"errors"
	"fmt"
)

// Config holds the knobs of the durable pipeline. Times are model
// nanoseconds; probabilities are parts per million.
type Config struct {
	Lease          Time  // how long a lease is exclusive
	HeartbeatEvery Time  // how often a busy worker extends its lease; < Lease
	MaxAttempts    int32 // attempt ceiling per job (seed 000: 3)
	Deadline       Time  // default deadlineAt - createdAt
	TokenBudget    int64 // tokens a job may spend over all attempts (seed 004)
	Retry          RetryConfig
	Breaker        BreakerConfig
	Redrive        BucketConfig // global bulk-redrive token bucket (seed 003)
	Reprocess      BucketConfig // per-tenant reprocess limit (seed 000's gap)
	Retention      Time         // published outbox rows older than this are pruned
	// Ordered makes the queue strictly FIFO (an SQS FIFO group, a Kafka
	// partition): only the oldest unfinished job may be leased, so a
	// poison message at the head blocks everyone behind it until it is
	// dead-lettered (seed 003's head-of-line blocking).
	Ordered bool
}

// Strategy is a backoff strategy.
type Strategy uint8

// Backoff strategies. Full jitter is the default (seed 003); fixed and plain
// exponential exist for the retry-storm comparison.
const (
	FullJitter Strategy = iota
	Exponential
	Fixed
	strategyCount
)

var strategyNames = [strategyCount]string{"full-jitter", "exponential", "fixed"}

func (s Strategy) String() string { return enumName(strategyNames[:], s, "strategy") }

// ParseStrategy maps a strategy's name back to it.
func ParseStrategy(name string) (Strategy, error) {
	for s := Strategy(0); s < strategyCount; s++ {
		if strategyNames[s] == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown backoff strategy %q (want full-jitter, exponential or fixed)", name)
}

// RetryConfig parameterises the backoff: delay = uniform(0, min(Cap,
// Base·2^attempt)) for full jitter.
type RetryConfig struct {
	Strategy Strategy
	Base     Time
	Cap      Time
}

// BreakerConfig parameterises the per-queue circuit breaker (seed 003).
type BreakerConfig struct {
	Window       int32 // outcomes considered
	MinSamples   int32 // no decision before this many outcomes
	ThresholdPPM int64 // failure ratio (ppm) at which it opens
	Cooldown     Time  // open → half-open after this long
	Canaries     int32 // jobs admitted while half-open
}

// BucketConfig is a token bucket: Capacity tokens, one more every Refill.
type BucketConfig struct {
	Capacity int32
	Refill   Time
}

// Millisecond in model time.
const Millisecond Time = 1_000_000

// DefaultConfig is the configuration the course documents use.
func DefaultConfig() Config {
	return Config{
		Lease:          30_000 * Millisecond,
		HeartbeatEvery: 10_000 * Millisecond,
		MaxAttempts:    3,
		Deadline:       15 * 60_000 * Millisecond,
		TokenBudget:    6_000, // two or three extraction attempts of a typical document
		Retry:          RetryConfig{Strategy: FullJitter, Base: 200 * Millisecond, Cap: 20_000 * Millisecond},
		Breaker:        BreakerConfig{Window: 20, MinSamples: 10, ThresholdPPM: 500_000, Cooldown: 30_000 * Millisecond, Canaries: 2},
		Redrive:        BucketConfig{Capacity: 1, Refill: 1000 * Millisecond},
		Reprocess:      BucketConfig{Capacity: 3, Refill: 60_000 * Millisecond},
		Retention:      10 * 60_000 * Millisecond,
	}
}

// Validate rejects configurations that cannot describe a working pipeline.
func (c Config) Validate() error {
	var errs []error
	if c.Lease <= 0 {
		errs = append(errs, errors.New("lease must be positive"))
	}
	if c.HeartbeatEvery <= 0 {
		errs = append(errs, errors.New("heartbeat interval must be positive"))
	} else if c.Lease > 0 && c.Lease <= c.HeartbeatEvery {
		errs = append(errs, fmt.Errorf("lease (%s) must be longer than the heartbeat interval (%s)", fmtMillis(c.Lease), fmtMillis(c.HeartbeatEvery)))
	}
	if c.MaxAttempts <= 0 {
		errs = append(errs, errors.New("maxAttempts must be positive"))
	}
	if c.Deadline <= 0 {
		errs = append(errs, errors.New("deadline must be positive"))
	}
	if c.TokenBudget <= 0 {
		errs = append(errs, errors.New("token budget must be positive"))
	}
	if c.Retry.Strategy >= strategyCount || c.Retry.Base <= 0 || c.Retry.Cap < c.Retry.Base {
		errs = append(errs, errors.New("retry needs a known strategy, base > 0 and cap >= base"))
	}
	b := c.Breaker
	if b.Window <= 0 || b.MinSamples <= 0 || b.MinSamples > b.Window || b.ThresholdPPM <= 0 || b.ThresholdPPM > 1_000_000 || b.Cooldown <= 0 || b.Canaries <= 0 {
		errs = append(errs, errors.New("breaker needs window >= minSamples > 0, 0 < threshold <= 1e6 ppm, cooldown > 0, canaries > 0"))
	}
	if c.Redrive.Capacity <= 0 || c.Redrive.Refill <= 0 || c.Reprocess.Capacity <= 0 || c.Reprocess.Refill <= 0 {
		errs = append(errs, errors.New("redrive and reprocess rate limits need capacity > 0 and refill > 0"))
	}
	if c.Retention <= 0 {
		errs = append(errs, errors.New("outbox retention must be positive"))
	}
	return errors.Join(errs...)
}

func fmtMillis(t Time) string { return string(appendMillis(nil, t)) }
