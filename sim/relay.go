package sim

import (
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
)

// relayActor publishes outbox rows to the broker and then marks them
// published; a crash between the two republishes the row.
type relayActor struct {
	inc         int32
	down        bool
	token       int64
	parked      bool
	pendingMark model.EventID // published, not yet marked
	lastPrune   model.Time
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
	if id := r.relay.pendingMark; id != 0 {
		r.relay.pendingMark = 0
		r.sys.MarkPublished(r.relayActorID(), id)
		r.wakeRelay(r.now() + r.dbLatency())
		return
	}
	row, ok := r.sys.NextUnpublished()
	if !ok {
		r.relayIdle()
		return
	}
	msg := r.sys.Publish(r.relayActorID(), row.EventID)
	r.brokerPublish(msg)
	r.relay.pendingMark = row.EventID
	act := r.crossing(model.RelayAfterPublishBeforeMark, faults.AnyWorker)
	if act.Ok && act.Kind == faults.Crash {
		r.relay.down, r.relay.pendingMark = true, 0
		r.relay.token++
		e := r.simEvent(model.EvCrash, r.relayActorID())
		e.Boundary, e.EventID = model.RelayAfterPublishBeforeMark, row.EventID
		r.emit(e)
		r.at(r.now()+r.restartDelay(), evRelayRestart, 0, 0)
		return
	}
	r.wakeRelay(r.now() + r.dbLatency())
}

// relayIdle prunes the outbox now and then and parks until a commit.
func (r *run) relayIdle() {
	now := r.now()
	if now-r.relay.lastPrune >= r.cfg.Model.Retention {
		r.relay.lastPrune = now
		r.sys.PruneOutbox(r.relayActorID())
	}
	r.relay.parked = true
	r.wakeRelay(now + r.cfg.Model.Retention) // a commit kicks it sooner
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
// consumer crash after applying leaves it unacked: the broker redelivers.
func (r *run) deliver(msg int64, redelivery bool) {
	if m, _ := r.sys.Message(msg); redelivery && m.Acked {
		return
	}
	if r.consumer.down {
		r.at(r.consumer.upAt+r.brokerLatency(), evRedeliver, 0, msg)
		return
	}
	actor := model.Actor{Role: model.RoleConsumer, Incarnation: r.consumer.inc}
	r.sys.Deliver(actor, msg)
	act := r.crossing(model.ConsumerAfterApply, faults.AnyWorker)
	if act.Ok && act.Kind == faults.Crash {
		r.crash(&r.consumer, model.RoleConsumer, model.ConsumerAfterApply, evConsumerRestart)
		r.at(r.now()+visibility, evRedeliver, 0, msg)
		return
	}
	r.sys.AckMessage(msg)
}
