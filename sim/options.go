package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// Swarm testing applies to the configuration too, as TigerBeetle's VOPR
// draws its options per seed: besides its faults, a swarm seed may run a
// strictly ordered queue, a short outbox retention (so pruning happens
// under load), a long horizon (arrivals spread over minutes), a small or a
// large attempt ceiling, a per-tenant reprocess limit of one, plain
// exponential or fixed backoff, every tenant id the workload knows (those
// at the edges of the tenant pattern among them), a tight token budget
// (retries that spend it: seed 004's budget path), documents at the
// largest operationVersion (Config.EdgeVersions), a backoff capped at its
// base, a breaker at the edges of its settings or (one seed in five) one that
// opens on few failures, (and, in one seed in four,
// a probe of one setting past its edge: pastedge.go), and three seeds in
// eight a share of documents run as durable workflows (workflow.go); one
// seed in six stalls (stallingSwarm). Each option
// touches only a setting left at its default, so a run's explicit settings
// win; the options drawn become part of the run's Config, which the
// reproduce and replay commands print as flags (a stalling seed's fault
// mix is drawn again from the seed, and printed with its trace).

// swarmOptions are the configuration options one seed draws.
type swarmOptions struct {
	ordered      bool
	retention    model.Time // 0: the default
	gapFactor    int64      // 1: the default arrival gap
	maxAttempts  int32      // 0: the default
	reprocessCap int32      // 0: the default
	backoff      model.Strategy
	tenants      int32 // 0: the default
	tokenBudget  int64 // 0: the default
	edgeVersions bool
	cappedRetry  bool  // the backoff's cap at its base: every retry's bound is the cap
	edgeBreaker  bool  // the breaker at the edges of its settings
	pastEdge     int   // 1 + the index in pastEdges of the setting to probe past its edge; 0: none
	wfEvery      int32 // 0: no document runs as a durable workflow
	touchy       bool  // a breaker that opens on few failures (touchyBreaker)
	stalls       bool  // an idle pipeline whose workers stall and whose commits time out (stallingSwarm)
}

// drawOptions draws seed's options from their own stream, so they change
// neither the workload nor the faults.
func drawOptions(seed uint64) swarmOptions {
	var r scheduler.Stream // (on the stack)
	r.ResetDerived(seed, scheduler.StreamOptions)
	var o swarmOptions
	// Every draw is made whatever the outcome, so each option's stream
	// position is fixed.
	ordered := r.Chance(100_000)
	short := r.Chance(250_000)
	retention := model.Time(2+r.Int64N(19)) * model.Time(scheduler.Second)
	horizon := r.IntN(40)
	attemptsDraw := r.IntN(8)
	few, many := int32(1+r.IntN(2)), int32(6+r.IntN(5))
	oneReprocess := r.Chance(250_000)
	strategy := r.IntN(10)
	allTenants := r.Chance(125_000)
	tightBudget := r.Chance(125_000) // drawn after the others: the earlier draws keep their stream positions
	edgeVersions := r.Chance(250_000)
	cappedRetry := r.Chance(125_000)
	edgeBreaker := r.Chance(125_000)
	pastEdge := r.IntN(4 * len(pastEdges)) // one seed in four probes an edge
	// Three seeds in eight run a share of documents as workflows: half or
	// a quarter of them, an eighth of all documents on average (its cost
	// is about one more event in twenty per seed).
	wfEvery := [...]int32{0, 0, 0, 0, 0, 2, 4, 4}[r.IntN(8)]
	touchy := r.Chance(200_000)
	stalls := r.Chance(166_667)
	o.ordered = ordered
	if short {
		o.retention = retention
	}
	switch {
	case horizon == 0:
		o.gapFactor = 60 // 24 documents over six minutes: retention, breaker cool-downs, deadlines
	case horizon < 4:
		o.gapFactor = 8
	default:
		o.gapFactor = 1
	}
	switch attemptsDraw {
	case 0:
		o.maxAttempts = few // dead letters at a lease, budgets barely touched
	case 1:
		o.maxAttempts = many // long retry chains: backoff caps, spent budgets
	}
	if oneReprocess {
		o.reprocessCap = 1
	}
	switch strategy {
	case 0:
		o.backoff = model.Exponential
	case 1:
		o.backoff = model.Fixed
	}
	if allTenants {
		o.tenants = int32(len(tenantNames)) // the edge-of-the-pattern ids included
	}
	if tightBudget {
		o.tokenBudget = tightTokenBudget
	}
	o.edgeVersions, o.cappedRetry, o.edgeBreaker = edgeVersions, cappedRetry, edgeBreaker
	if pastEdge < len(pastEdges) {
		o.pastEdge = 1 + pastEdge
	}
	o.wfEvery, o.touchy, o.stalls = wfEvery, touchy, stalls
	if stalls && o.gapFactor < 60 {
		o.gapFactor = 60
	}
	return o
}

// edgeBreaker is b at the edges its settings allow: it decides only on a
// full window (min-samples = window) and opens only when every outcome in
// it failed (a threshold of 100%).
func edgeBreaker(b model.BreakerConfig) model.BreakerConfig {
	b.MinSamples, b.ThresholdPPM = b.Window, 1_000_000
	return b
}

// touchyBreaker is b opening on a few failures (a quarter of a small
// window) and cooling down twice as long as a lease: open or half-open
// for much of a run, so that leases are found expired then — a conjunction
// the default breaker reaches in one seed of 2000 (pairs.go), and where
// a planted bug once hid.
func touchyBreaker(b model.BreakerConfig) model.BreakerConfig {
	b.Window, b.MinSamples, b.ThresholdPPM, b.Cooldown, b.Canaries = 8, 4, 250_000, 2*b.Cooldown, 8
	return b
}

// stallingSwarm biases a stalling seed's fault mix: workers pause (a GC
// or network stall) and commits time out after they took effect, in a
// pipeline whose arrivals are spread out (drawOptions), so that a lapsed
// lease is taken over at once rather than behind a backlog. A worker that
// stalls past its lease, comes back after the job's new holder finished
// it, and sees its absorbed commit time out is the conjunction
// ambiguous-commit@done (pairs.go), which the plain mix reaches in one
// seed of 20,000. The seed's printed fault mix shows the rates.
func stallingSwarm(s *faults.Swarm) {
	s.Boost(faults.Pause, 40_000)
	s.Boost(faults.AmbiguousCommit, 50_000)
}

// tightTokenBudget is the budget of a seed that draws a tight one: about
// one extraction of a large document, so that retries spend budgets
// (seed 004's token budget, otherwise reached only by long retry chains).
const tightTokenBudget = 3_000

// apply sets the options on cfg where cfg keeps the default.
func (o swarmOptions) apply(cfg Config) Config {
	d := DefaultConfig()
	if o.ordered {
		cfg.Model.Ordered = true
	}
	if o.retention > 0 && cfg.Model.Retention == d.Model.Retention {
		cfg.Model.Retention = o.retention
	}
	if o.gapFactor > 1 && cfg.ArrivalGap == d.ArrivalGap {
		cfg.ArrivalGap *= o.gapFactor
	}
	if o.maxAttempts > 0 && cfg.Model.MaxAttempts == d.Model.MaxAttempts {
		cfg.Model.MaxAttempts = o.maxAttempts
	}
	if o.reprocessCap > 0 && cfg.Model.Reprocess.Capacity == d.Model.Reprocess.Capacity {
		cfg.Model.Reprocess.Capacity = o.reprocessCap
	}
	if o.backoff != d.Model.Retry.Strategy && cfg.Model.Retry.Strategy == d.Model.Retry.Strategy {
		cfg.Model.Retry.Strategy = o.backoff
	}
	if o.tenants > 0 && cfg.Tenants == d.Tenants {
		cfg.Tenants = o.tenants
	}
	if o.tokenBudget > 0 && cfg.Model.TokenBudget == d.Model.TokenBudget {
		cfg.Model.TokenBudget = o.tokenBudget
	}
	if o.edgeVersions {
		cfg.EdgeVersions = true
	}
	if o.cappedRetry && cfg.Model.Retry.Cap == d.Model.Retry.Cap && cfg.Model.Retry.Base == d.Model.Retry.Base {
		cfg.Model.Retry.Cap = cfg.Model.Retry.Base
	}
	if o.edgeBreaker && cfg.Model.Breaker == d.Model.Breaker {
		cfg.Model.Breaker = edgeBreaker(cfg.Model.Breaker)
	}
	if o.touchy && !o.edgeBreaker && cfg.Model.Breaker == d.Model.Breaker {
		cfg.Model.Breaker = touchyBreaker(cfg.Model.Breaker)
		if cfg.Model.Lease == d.Model.Lease && cfg.Model.HeartbeatEvery == d.Model.HeartbeatEvery {
			// leases a sixth as long: many expire within one cool-down
			cfg.Model.Lease, cfg.Model.HeartbeatEvery = cfg.Model.Lease/6, cfg.Model.HeartbeatEvery/6
		}
	}
	if o.wfEvery > 0 && cfg.WorkflowEvery == d.WorkflowEvery {
		cfg.WorkflowEvery = o.wfEvery
	}
	return cfg
}

// optionsOf describes the options cfg runs with that differ from the
// default, as the swarm line prints them ("" when none).
func optionsOf(cfg Config) string {
	d := DefaultConfig()
	var parts []string
	if cfg.Model.Ordered {
		parts = append(parts, "ordered")
	}
	if cfg.Model.Lease != d.Model.Lease {
		parts = append(parts, "lease="+time.Duration(cfg.Model.Lease).String())
	}
	if cfg.Model.HeartbeatEvery != d.Model.HeartbeatEvery {
		parts = append(parts, "heartbeat="+time.Duration(cfg.Model.HeartbeatEvery).String())
	}
	if cfg.Model.Retention != d.Model.Retention {
		parts = append(parts, "retention="+time.Duration(cfg.Model.Retention).String())
	}
	if cfg.ArrivalGap != d.ArrivalGap {
		parts = append(parts, "arrival-gap="+time.Duration(cfg.ArrivalGap).String())
	}
	if cfg.Model.MaxAttempts != d.Model.MaxAttempts {
		parts = append(parts, "max-attempts="+strconv.Itoa(int(cfg.Model.MaxAttempts)))
	}
	if cfg.Model.Reprocess.Capacity != d.Model.Reprocess.Capacity {
		parts = append(parts, "reprocess-limit="+strconv.Itoa(int(cfg.Model.Reprocess.Capacity)))
	}
	if cfg.Model.TokenBudget != d.Model.TokenBudget {
		parts = append(parts, "token-budget="+strconv.FormatInt(cfg.Model.TokenBudget, 10))
	}
	if cfg.Model.Deadline != d.Model.Deadline {
		parts = append(parts, "deadline="+time.Duration(cfg.Model.Deadline).String())
	}
	if cfg.Model.Retry.Strategy != d.Model.Retry.Strategy {
		parts = append(parts, "backoff="+cfg.Model.Retry.Strategy.String())
	}
	if cfg.Tenants != d.Tenants {
		parts = append(parts, "tenants="+strconv.Itoa(int(cfg.Tenants)))
	}
	if cfg.EdgeVersions {
		parts = append(parts, "edge-versions")
	}
	if cfg.Model.Retry.Base != d.Model.Retry.Base {
		parts = append(parts, "backoff-base="+time.Duration(cfg.Model.Retry.Base).String())
	}
	if cfg.Model.Retry.Cap != d.Model.Retry.Cap {
		parts = append(parts, "backoff-cap="+time.Duration(cfg.Model.Retry.Cap).String())
	}
	if cfg.Model.Breaker != d.Model.Breaker {
		parts = append(parts, "breaker="+BreakerSpec(cfg.Model.Breaker))
	}
	if cfg.WorkflowEvery != d.WorkflowEvery {
		parts = append(parts, "workflow-every="+strconv.Itoa(int(cfg.WorkflowEvery)))
	}
	return strings.Join(parts, " ")
}
