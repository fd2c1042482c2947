package faults

import (
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// Action is what happens to an actor crossing a boundary: Ok is false when
// nothing happens (the zero Action); otherwise Kind is Crash or Pause and
// For is the pause's length.
type Action struct {
	Kind Kind
	For  model.Time
	Ok   bool
}

// counters count crossings, publishes and commits.
type counters struct {
	global    [1 << 8]int32 // per boundary (a Boundary indexes it unchecked); nb are read
	nb        int
	perWorker [][]int32 // per boundary, per worker
	publishes int32
	commits   int32
}

// reset returns c zeroed for boundaries, on c's storage.
func (c *counters) reset(boundaries int) counters {
	perWorker := c.perWorker[:cap(c.perWorker)]
	for i := range perWorker {
		clear(perWorker[i]) // (the workers' counts stay, at zero)
	}
	if len(perWorker) < boundaries {
		perWorker = make([][]int32, boundaries)
	}
	return counters{nb: boundaries, perWorker: perWorker[:boundaries]}
}

// cross counts one crossing of b and returns the global count and, for
// worker >= 0 when byWorker is set, the worker's own count (only an
// explicit fault naming a worker reads it).
func (c *counters) cross(b model.Boundary, worker int32, byWorker bool) (global, own int32) {
	c.global[b]++
	if worker < 0 || !byWorker {
		return c.global[b], 0
	}
	if int(worker) >= len(c.perWorker[b]) {
		c.perWorker[b] = append(c.perWorker[b], make([]int32, int(worker)+1-len(c.perWorker[b]))...)
	}
	c.perWorker[b][worker]++
	return c.global[b], c.perWorker[b][worker]
}

// Crossing is called each time an actor crosses b; worker is the worker's
// index at worker boundaries and AnyWorker otherwise. It counts the crossing
// (globally and per worker), then answers with the first explicit crash or
// pause that matches, else a swarm crash, else a swarm pause, else nothing.
func (in *Injector) Crossing(b model.Boundary, worker int32) Action {
	if in.quiet && b != model.NoBoundary {
		in.counts.global[b]++ // no fault can strike: counted inline (past nb, unread)
		return Action{}
	}
	return in.crossing(b, worker)
}

func (in *Injector) crossing(b model.Boundary, worker int32) Action {
	if b == model.NoBoundary || int(b) >= in.counts.nb {
		return Action{}
	}
	n, own := in.counts.cross(b, worker, in.byWorker)
	if in.stopped {
		return Action{}
	}
	for i, p := range in.plan {
		if p.matchesCrossing(b, worker, n, own) {
			in.takePlanned(i)
			return actionOf(p.Fault)
		}
	}
	if !in.atBoundaries || in.total >= in.params.MaxFaults {
		return Action{} // (what swarmCrossing would answer, drawing nothing)
	}
	return in.swarmCrossing(b, n)
}

// matchesCrossing reports whether an explicit fault strikes this crossing.
func (f Fault) matchesCrossing(b model.Boundary, worker, global, own int32) bool {
	if !f.Kind.atBoundary() || f.Boundary != b {
		return false
	}
	if f.Worker == AnyWorker {
		return f.Nth == global
	}
	return f.Worker == worker && f.Nth == own
}

// rareBoost multiplies the crash and pause rates at boundaries a run
// crosses only a few times (a dead letter, an accept), so that they get
// their share of faults rather than a tenth of the others'.
var rareBoost = [...]scheduler.PPM{model.AfterDLQWrite: 8, model.AfterAcceptBeforeEnqueue: 2}

// swarmCrossing rolls the swarm's crash rate, then its pause rate.
func (in *Injector) swarmCrossing(b model.Boundary, n int32) Action {
	boost := scheduler.PPM(1)
	if int(b) < len(rareBoost) && rareBoost[b] > 0 {
		boost = rareBoost[b]
	}
	for _, k := range [...]Kind{Crash, Pause} {
		if !in.swarmOn(k) || !in.r.Chance(min(scheduler.Million, boost*in.swarm.Kinds[k].Rate)) {
			continue
		}
		f := Fault{Kind: k, Boundary: b, Worker: AnyWorker, Nth: n}
		if k == Pause {
			f.For = in.pauseLength()
		}
		in.take(f)
		return actionOf(f)
	}
	return Action{}
}

// pauseLength draws a GC or network stall where the bugs are: a third end
// before the lease does (the lease must survive them), a third end just
// after it, while the job's new holder is still at work (the zombie's
// window), and a third are long, up to three leases.
func (in *Injector) pauseLength() model.Time {
	lease := in.params.Lease
	switch in.r.IntN(3) {
	case 0:
		return between(in.r, lease/2, lease-model.Millisecond)
	case 1:
		return between(in.r, lease, lease+lease/10)
	}
	return between(in.r, lease+lease/10, 3*lease)
}

func actionOf(f Fault) Action { return Action{Kind: f.Kind, For: f.For, Ok: true} }
