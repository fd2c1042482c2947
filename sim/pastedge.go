package sim

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/model"
)

// A swarm seed also probes the edges of its configuration (one seed in
// four, drawn with its options): it moves one setting one step past what
// a working pipeline allows, and Validate must refuse that copy with an
// error naming the setting. The swarm puts settings at their edges (a
// backoff capped at its base, a breaker deciding only on a full window);
// this checks the edges are where the swarm and the flags' help say, so a
// validation turned lenient (a zero lease, a threshold past 100%, taken
// silently and run as some default) fails the sweep. The seed then runs
// its own, valid, configuration: the probe adds no event to its trace.

// pastEdge is one setting moved past its edge, and a word the refusal
// must use.
type pastEdge struct {
	what string
	says string
	move func(c *model.Config)
}

// pastEdges are the model's settings, each one step past its edge,
// relative to the seed's own values.
var pastEdges = [...]pastEdge{
	{"lease 0", "lease must be positive", func(c *model.Config) { c.Lease = 0 }},
	{"heartbeat interval 0", "heartbeat interval must be positive", func(c *model.Config) { c.HeartbeatEvery = 0 }},
	{"lease equal to the heartbeat interval", "must be longer than the heartbeat interval", func(c *model.Config) { c.Lease = c.HeartbeatEvery }},
	{"maxAttempts 0", "maxAttempts", func(c *model.Config) { c.MaxAttempts = 0 }},
	{"deadline 0", "deadline", func(c *model.Config) { c.Deadline = 0 }},
	{"token budget 0", "token budget", func(c *model.Config) { c.TokenBudget = 0 }},
	{"backoff base 0", "retry", func(c *model.Config) { c.Retry.Base = 0 }},
	{"backoff cap 1ns below its base", "retry", func(c *model.Config) { c.Retry.Cap = c.Retry.Base - 1 }},
	{"the first unknown backoff strategy", "retry", func(c *model.Config) { c.Retry.Strategy = firstUnknownStrategy() }},
	{"breaker window 0", "breaker", func(c *model.Config) { c.Breaker.Window = 0 }},
	{"breaker min-samples 0", "breaker", func(c *model.Config) { c.Breaker.MinSamples = 0 }},
	{"breaker min-samples one more than its window", "breaker", func(c *model.Config) { c.Breaker.MinSamples = c.Breaker.Window + 1 }},
	{"breaker threshold 0", "breaker", func(c *model.Config) { c.Breaker.ThresholdPPM = 0 }},
	{"breaker threshold 1 ppm past 100%", "breaker", func(c *model.Config) { c.Breaker.ThresholdPPM = 1_000_001 }},
	{"breaker cooldown 0", "breaker", func(c *model.Config) { c.Breaker.Cooldown = 0 }},
	{"breaker canaries 0", "breaker", func(c *model.Config) { c.Breaker.Canaries = 0 }},
	{"redrive capacity 0", "rate limits", func(c *model.Config) { c.Redrive.Capacity = 0 }},
	{"redrive refill 0", "rate limits", func(c *model.Config) { c.Redrive.Refill = 0 }},
	{"reprocess capacity 0", "rate limits", func(c *model.Config) { c.Reprocess.Capacity = 0 }},
	{"reprocess refill 0", "rate limits", func(c *model.Config) { c.Reprocess.Refill = 0 }},
	{"outbox retention 0", "retention", func(c *model.Config) { c.Retention = 0 }},
}

// firstUnknownStrategy is the strategy after the last one the model knows:
// the first whose name does not parse back to it.
func firstUnknownStrategy() model.Strategy {
	s := model.Strategy(0)
	for {
		if back, err := model.ParseStrategy(s.String()); err != nil || back != s {
			return s
		}
		s++
	}
}

// probeEdge checks that cfg with edge p moved past it is refused, naming
// the setting and nothing else (one setting moved, one complaint); asked is the configuration as the caller gave it (before
// the swarm's options), for the command that reproduces a failure.
func probeEdge(cfg, asked Config, seed uint64, p *pastEdge) error {
	p.move(&cfg.Model)
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), p.says) || strings.Contains(err.Error(), "\n") {
		return &EdgeError{Seed: seed, Edge: p.what, Says: p.says, Err: err, Config: asked, Reproduce: Command("run", asked, seed)}
	}
	return nil
}

// EdgeError is a seed's probe of a setting past its edge that Validate
// took, or refused without naming the setting: a finding, as a violation
// is (the CLI exits 1).
type EdgeError struct {
	Seed      uint64
	Edge      string // the setting moved: "lease 0"
	Says      string // what the refusal must say (on one line: one complaint)
	Err       error  // Validate's answer; nil: it took the configuration
	Config    Config // the configuration as the caller gave it
	Reproduce string // as PanicError.Replay
}

func (e *EdgeError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("seed %d: its configuration with %s passes Validate: a setting no pipeline can run with must be refused, not run (%s)", e.Seed, e.Edge, reproduceHint(e.Reproduce, e.Config))
	}
	if strings.Contains(e.Err.Error(), "\n") {
		return fmt.Sprintf("seed %d: its configuration with %s is refused with more than one complaint: %q (%s)", e.Seed, e.Edge, e.Err.Error(), reproduceHint(e.Reproduce, e.Config))
	}
	return fmt.Sprintf("seed %d: its configuration with %s is refused, but the error does not say %q: %v (%s)", e.Seed, e.Edge, e.Says, e.Err, reproduceHint(e.Reproduce, e.Config))
}
