package sim

import (
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
)

// relayActor moves outbox rows to the broker: publish, then mark the row
// published (the design may reverse the two). A crash between the two
// steps republishes the row (correct order) or loses its event (reversed).
type relayActor struct {
	inc       int32
	down      bool
	token     int64
	parked    bool
	row       model.EventID // the row in hand (0: none)
	step      int           // next step of the design's relay protocol
	lastPrune model.Time
}

func (r *run) relayActorID() model.Actor {
	return model.Actor{Role: model.RoleRelay, Incarnation: r.relay.inc}
}

func (r *run) wakeRelay(t model.Time) {
	r.relay.token++
	r.at(t, evRelay, 0, r.relay.token)
}

// kickRelay wakes a parked relay: a row was just committed.
func (r *run) kickRelay() {
	if r.relay.parked && !r.relay.down {
		r.relay.parked = false
		r.wakeRelay(r.now() + r.dbLatency())
	}
}

func (r *run) relayWake(token int64) {
	if token != r.relay.token || r.relay.down {
		return
	}
	r.relay.parked = false
	if r.relay.row == 0 {
		r.retention()
		row, ok := r.sys.NextUnpublishedID()
		if !ok {
			r.relayIdle()
			return
		}
		r.relay.row, r.relay.step = row, 0
	}
	steps := r.design.Relay
	r.relayStep(steps[r.relay.step])
	r.relay.step++
	if r.relay.step == len(steps) {
		r.relay.row = 0
		r.wakeRelay(r.now() + r.dbLatency())
		return
	}
	b := model.RelayAfterPublishBeforeMark
	if steps[0] == model.RelayMark {
		b = model.RelayAfterMarkBeforePublish
	}
	if act := r.crossing(b, faults.AnyWorker); act.Ok && act.Kind == faults.Crash {
		r.crashRelay(b)
		return
	}
	r.wakeRelay(r.now() + r.dbLatency())
}

func (r *run) relayStep(st model.RelayStep) {
	switch st {
	case model.RelayPublish:
		r.brokerPublish(r.sys.Publish(r.relayActorID(), r.relay.row))
	case model.RelayMark:
		r.sys.MarkPublished(r.relayActorID(), r.relay.row)
	}
}

// crashRelay takes the relay down with the row in hand forgotten.
func (r *run) crashRelay(b model.Boundary) {
	e := r.simEvent(model.EvCrash, r.relayActorID())
	e.Boundary, e.EventID = b, r.relay.row
	r.emit(e)
	r.relay.down, r.relay.row = true, 0
	r.relay.token++
	r.at(r.now()+r.restartDelay(), evRelayRestart, 0, 0)
}

// retention applies the outbox retention, at most once per retention
// period, between two rows: busy or idle, so that under a steady load
// (a relay never idle) the outbox is still pruned, and a pass meets rows
// still waiting to be published, which it must keep.
func (r *run) retention() {
	now := r.now()
	if now-r.relay.lastPrune < r.cfg.Model.Retention {
		return
	}
	r.relay.lastPrune = now
	// The relay records the pass and what it was told (the rows the outbox
	// says it pruned), so the oracles can tell a pass that kept a row past
	// its retention from no pass at all.
	n := r.sys.PruneOutbox(r.relayActorID())
	e := r.simEvent(model.EvPrune, r.relayActorID())
	e.N, e.OK = int64(n), true
	r.emit(e)
}

// relayIdle parks the relay until a commit kicks it. It leaves no timer
// behind: a parked relay with a far-future wake would leave one dead event
// in the heap per commit that kicked it.
func (r *run) relayIdle() {
	r.relay.parked = true
	r.relay.token++ // no pending wake
}

func (r *run) restartRelay() {
	r.relay.down = false
	r.relay.inc++
	e := r.simEvent(model.EvRestart, r.relayActorID())
	e.OK = true
	r.emit(e)
	r.wakeRelay(r.now())
}

// brokerPublish schedules the deliveries of a message: at least once, with
// the injector's duplicates, delays and reorderings.
func (r *run) brokerPublish(msg int64) {
	act := r.inj.Publish()
	lat := r.brokerLatency()
	if act.Delay > 0 {
		lat += act.Delay
		r.brokerFault(msg, "delay", act.Delay)
	}
	if act.Reorder {
		lat += 100 * model.Millisecond // lets the next message overtake it
		r.brokerFault(msg, "reorder", 0)
	}
	r.at(r.now()+lat, evDeliver, 0, msg)
	if act.Duplicate {
		r.brokerFault(msg, "duplicate", 0)
		r.at(r.now()+lat+r.brokerLatency(), evDeliver, 0, msg)
	}
}

func (r *run) brokerFault(msg int64, what string, d model.Time) {
	e := r.simEvent(model.EvFault, model.Actor{Role: model.RoleBroker})
	e.Text, e.N, e.N2 = what, msg, d
	r.emit(e)
}

// deliver hands a message to the consumer, which applies it and acks. A
// consumer crash after receiving it or after applying it leaves it
// unacked: the broker redelivers.
func (r *run) deliver(msg int64, redelivery bool) {
	if m, ok := r.sys.Message(msg); !ok || redelivery && m.Acked {
		return // a message the broker does not have cannot be delivered
	}
	if r.consumer.down {
		r.at(r.consumer.upAt+r.brokerLatency(), evRedeliver, 0, msg)
		return
	}
	if act := r.crossing(model.ConsumerAfterReceive, faults.AnyWorker); act.Ok && act.Kind == faults.Crash {
		r.crash(&r.consumer, model.RoleConsumer, model.ConsumerAfterReceive, evConsumerRestart, msg)
		r.at(r.now()+visibility, evRedeliver, 0, msg)
		return
	}
	actor := model.Actor{Role: model.RoleConsumer, Incarnation: r.consumer.inc}
	r.sys.Deliver(actor, msg)
	act := r.crossing(model.ConsumerAfterApply, faults.AnyWorker)
	if act.Ok && act.Kind == faults.Crash {
		r.crash(&r.consumer, model.RoleConsumer, model.ConsumerAfterApply, evConsumerRestart, msg)
		r.at(r.now()+visibility, evRedeliver, 0, msg)
		return
	}
	r.sys.AckMessage(msg)
}
