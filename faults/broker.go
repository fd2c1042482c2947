package faults

import (
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// BrokerAction is what the broker does to one published message. The zero
// value delivers it normally. Reorder asks the simulator to deliver the
// message after the next one (how is the simulator's choice).
type BrokerAction struct {
	Duplicate bool
	Delay     model.Time
	Reorder   bool
}

// brokerKinds are the kinds that act on a publish, in the order they apply.
var brokerKinds = [...]Kind{Duplicate, Delay, Reorder}

// Publish is called once per broker publish. Every explicit fault on this
// publish applies (the first one of each kind); the swarm then rolls each
// kind not yet set, in the order duplicate, delay, reorder.
func (in *Injector) Publish() BrokerAction {
	in.counts.publishes++
	var a BrokerAction
	if in.stopped {
		return a
	}
	n := in.counts.publishes
	for i, p := range in.plan {
		if p.Kind.onBroker() && p.Nth == n && !a.has(p.Kind) {
			a.set(p.Fault)
			in.takePlanned(i)
		}
	}
	for _, k := range brokerKinds {
		if !a.has(k) && in.roll(k) {
			f := Fault{Kind: k, Nth: n}
			if k == Delay {
				f.For = between(in.r, in.params.Lease/4, 2*in.params.Lease)
			}
			a.set(f)
			in.take(f)
		}
	}
	return a
}

func (k Kind) onBroker() bool { return k == Duplicate || k == Delay || k == Reorder }

func (a *BrokerAction) has(k Kind) bool {
	switch k {
	case Duplicate:
		return a.Duplicate
	case Delay:
		return a.Delay > 0
	}
	return a.Reorder
}

func (a *BrokerAction) set(f Fault) {
	switch f.Kind {
	case Duplicate:
		a.Duplicate = true
	case Delay:
		a.Delay = f.For
	case Reorder:
		a.Reorder = true
	}
}

// absorbedBoost multiplies the ambiguous-commit rate on a commit the
// outbox absorbed as a duplicate (a retry, or a zombie's commit of a stage
// the job's new holder already committed): a run makes few, and a zombie
// back after the job finished that then sees its commit time out is the
// conjunction ambiguous-commit@done (sim/pairs.go).
const absorbedBoost = 16

// Commit is called once per outbox commit; absorbed says the outbox
// absorbed it as a duplicate. True means the commit is ambiguous: it
// happened, but the caller sees a timeout.
func (in *Injector) Commit(absorbed bool) bool {
	in.counts.commits++
	if in.stopped {
		return false
	}
	n := in.counts.commits
	for i, p := range in.plan {
		if p.Kind == AmbiguousCommit && p.Nth == n {
			in.takePlanned(i)
			return true
		}
	}
	boost := scheduler.PPM(1)
	if absorbed {
		boost = absorbedBoost
	}
	if in.swarmOn(AmbiguousCommit) && in.r.Chance(min(scheduler.Million, boost*in.swarm.Kinds[AmbiguousCommit].Rate)) {
		in.take(Fault{Kind: AmbiguousCommit, Nth: n})
		return true
	}
	return false
}
