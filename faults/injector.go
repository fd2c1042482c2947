package faults

import (
	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// Injector decides, as a run goes, which faults take effect. The simulator
// calls it at every boundary crossing, broker publish, commit, extraction
// and deadline; it answers from the explicit plan first and then, if it has
// a [Swarm], from the swarm's rates. It records every fault that took
// effect ([Injector.Realized]).
type Injector struct {
	plan     []planned
	swarm    *Swarm
	params   SwarmParams
	r        *scheduler.Stream
	stopped  bool
	counts   counters
	docs     []docFate
	bursts   []bool // swarm bursts that took effect
	realized []Fault
	injected [KindCount]int
	hits     []int
	total    int32
	// atBoundaries: the swarm has crashes or pauses on, the faults a
	// crossing may roll (most crossings of most seeds roll none).
	atBoundaries bool
	ownSwarm     *Swarm // the storage of swarm's private copy (useSwarm)
	// byWorker: an explicit crash or pause names a worker, so crossings
	// are counted per worker too (matchesCrossing reads no other count).
	byWorker bool
	// quiet: no crossing can meet a fault any more (stopped; or no plan,
	// and the swarm has no crash or pause on or its budget is spent), so
	// Crossing only counts (see setQuiet).
	quiet bool
}

// planned is an explicit fault and whether it has taken effect.
type planned struct {
	Fault
	done bool
}

// NewInjector returns an injector for an explicit plan and, unless swarm is
// nil (replay mode), the swarm's random faults drawn from r (the run's
// faults stream). It panics if the plan is invalid or r is nil with a swarm.
func NewInjector(plan Plan, swarm *Swarm, r *scheduler.Stream) *Injector {
	if err := plan.Validate(); err != nil {
		panic("faults: NewInjector: " + err.Error())
	}
	if swarm != nil && r == nil {
		panic("faults: NewInjector: a swarm needs a stream")
	}
	in := &Injector{}
	in.reset(plan, swarm, r)
	return in
}

// Reset makes in what NewInjector(plan, swarm, r) returns, keeping only
// the storage of its previous run (a Runner's next seed allocates none of
// its tables again). It panics as NewInjector does.
func (in *Injector) Reset(plan Plan, swarm *Swarm, r *scheduler.Stream) {
	if err := plan.Validate(); err != nil {
		panic("faults: Injector.Reset: " + err.Error())
	}
	if swarm != nil && r == nil {
		panic("faults: Injector.Reset: a swarm needs a stream")
	}
	in.reset(plan, swarm, r)
}

func (in *Injector) reset(plan Plan, swarm *Swarm, r *scheduler.Stream) {
	nb := len(model.Boundaries()) + 1
	docs := in.docs[:cap(in.docs)]
	for i := range docs {
		// Every fate undrawn; its failed attempts keep their array (fate
		// lengthens docs within its capacity without zeroing it again).
		docs[i] = docFate{failed: docs[i].failed[:0]}
	}
	docs = docs[:0]
	*in = Injector{
		plan: in.plan[:0], swarm: swarm, r: r, docs: docs, realized: in.realized[:0],
		hits: reuse.Resized(in.hits, nb), counts: in.counts.reset(nb),
		bursts: in.bursts[:0], ownSwarm: in.ownSwarm,
	}
	for _, f := range plan.Faults {
		in.plan = append(in.plan, planned{Fault: f})
		in.byWorker = in.byWorker || f.Kind.atBoundary() && f.Worker != AnyWorker
	}
	if swarm != nil {
		in.useSwarm(swarm)
	}
	in.setQuiet()
}

// setQuiet updates quiet, after any change to what it depends on.
func (in *Injector) setQuiet() {
	in.quiet = in.stopped || len(in.plan) == 0 && (!in.atBoundaries || in.total >= in.params.MaxFaults)
}

// useSwarm keeps a private copy of the swarm, so later edits to it do not
// change this run. It panics if a hand-made burst is not a valid fault.
// (The copy is the injector's own, kept across Resets.)
func (in *Injector) useSwarm(swarm *Swarm) {
	if in.ownSwarm == nil {
		in.ownSwarm = &Swarm{}
	}
	s := in.ownSwarm
	*s = Swarm{Params: swarm.Params, Kinds: swarm.Kinds, Bursts: append(s.Bursts[:0], swarm.Bursts...)}
	for _, b := range s.Bursts {
		if err := (Fault{Kind: RateLimit, At: b.At, For: b.For}).Validate(); err != nil {
			panic("faults: NewInjector: swarm burst: " + err.Error())
		}
	}
	in.swarm, in.params = s, s.Params.withDefaults()
	in.atBoundaries = s.Enabled(Crash) || s.Enabled(Pause)
	in.bursts = reuse.Resized(in.bursts, len(s.Bursts))
}

// Stop starts the quiescence phase: from now on no fault of any kind takes
// effect. Deadline overrides already handed out stay.
func (in *Injector) Stop() { in.stopped = true; in.setQuiet() }

// Stopped reports whether [Injector.Stop] was called.
func (in *Injector) Stopped() bool { return in.stopped }

// swarmOn reports whether the swarm may add a fault of kind k now.
func (in *Injector) swarmOn(k Kind) bool {
	return in.swarm != nil && in.swarm.Enabled(k) && in.total < in.params.MaxFaults
}

// roll draws whether the swarm injects a fault of kind k now.
func (in *Injector) roll(k Kind) bool {
	return in.swarmOn(k) && in.r.Chance(in.swarm.Kinds[k].Rate)
}

// take records that f took effect.
func (in *Injector) take(f Fault) {
	in.realized = append(in.realized, f)
	in.injected[f.Kind]++
	in.total++
	in.setQuiet()
	if f.Kind.atBoundary() && int(f.Boundary) < len(in.hits) {
		in.hits[f.Boundary]++
	}
}

// takePlanned records that explicit fault i took effect, once.
func (in *Injector) takePlanned(i int) {
	if !in.plan[i].done {
		in.plan[i].done = true
		in.take(in.plan[i].Fault)
	}
}

// Realized is every fault that took effect, in the order it did, as an
// explicit plan: NewInjector(in.Realized(), nil, r) answers the same call
// sequence with the same faults. Swarm crashes and pauses are recorded as
// worker=* with the boundary's global crossing count.
func (in *Injector) Realized() Plan {
	return newPlan(append([]Fault(nil), in.realized...))
}

// Injected counts the faults that took effect, per kind.
func (in *Injector) Injected() [KindCount]int { return in.injected }

// Calls counts the broker publishes and outbox commits the injector was
// asked about: where an exhaustive enumeration can place broker faults
// and ambiguous commits.
func (in *Injector) Calls() (publishes, commits int32) {
	return in.counts.publishes, in.counts.commits
}

// Crossings counts the crossings of each boundary [Injector.Crossing] was
// told of, indexed by model.Boundary (a copy).
func (in *Injector) Crossings() []int32 {
	return append([]int32(nil), in.counts.global[:in.counts.nb]...)
}

// BoundaryHits counts the crashes and pauses injected at each boundary,
// indexed by model.Boundary.
func (in *Injector) BoundaryHits() []int { return append([]int(nil), in.hits...) }
