package model

import (
	"time"

	"github.com/durasim/durasim/internal/reuse"
)

// System is the durable state of the pipeline: queue, outbox, broker,
// consumer ledger, DLQ, audit log, breaker and rate limiters. It survives
// every actor crash. It is not safe for concurrent use; in simulation one
// scheduler drives it.
type System struct {
	cfg    Config
	design *Design
	clock  Clock
	epoch  time.Time
	rnd    Rand
	rec    Recorder
	ev     Event // scratch event, reused so recording never allocates

	// nowRef, when the clock offers it, is where the clock keeps the time
	// (the scheduler's virtual clock does): Now reads it without a call or
	// a time.Time. Now is *nowRef - nowOffset.
	nowRef    *int64
	nowOffset int64

	queue              queue
	outbox             Outbox
	broker             Broker
	consumer           Consumer
	dlq                DLQ
	audit              []AuditEntry
	breaker            Breaker
	redrive            bucket
	perTenantReprocess map[string]*bucket
}

// Env is what a System needs from its host.
type Env struct {
	Clock    Clock     // the time seam (virtual clock in simulation)
	Epoch    time.Time // model time 0
	Rand     Rand      // retry jitter
	Recorder Recorder  // receives every event; nil discards
}

// NewSystem returns an empty pipeline. cfg must be valid (see
// Config.Validate); design nil means [Correct].
func NewSystem(cfg Config, design *Design, env Env) *System {
	s := new(System)
	s.Reset(cfg, design, env)
	return s
}

// Reset makes s exactly what NewSystem(cfg, design, env) returns, keeping its
// storage: a sweep runs thousands of short seeds, and reusing the tables,
// maps and heaps of the last one saves most of a seed's allocations.
// Pointers handed out before (EachJob's *Job) are invalid afterwards.
func (s *System) Reset(cfg Config, design *Design, env Env) {
	if design == nil {
		design = Correct()
	}
	if env.Recorder == nil {
		env.Recorder = Discard
	}
	prev := *s // a copy, so the literal below cannot read what it overwrites
	q, o, c, d := &prev.queue, &prev.outbox, &prev.consumer, &prev.dlq
	// One composite literal: every field not named here is zeroed, so a
	// field added later cannot survive a Reset by being forgotten.
	*s = System{
		cfg: cfg, design: design, clock: env.Clock, epoch: env.Epoch, rnd: env.Rand, rec: env.Recorder,
		queue: queue{
			jobs:      q.jobs.reset(),
			ready:     readyHeap{items: reuse.Slice(q.ready.items)},
			byKey:     reuse.Map(q.byKey),
			cancelled: reuse.Slice(q.cancelled),
		},
		outbox: Outbox{
			results: reuse.Map(o.results),
			keys:    o.keys.reset(),
			rows:    o.rows.reset(),
			tenants: reuse.Slice(o.tenants),
		},
		broker: Broker{msgs: prev.broker.msgs.reset()},
		consumer: Consumer{
			seen:    reuse.Slice(c.seen),
			effects: c.effects.reset(),
		},
		dlq:                DLQ{entries: reuse.Map(d.entries), order: reuse.Slice(d.order)},
		audit:              reuse.Slice(prev.audit),
		breaker:            newBreaker(cfg.Breaker, prev.breaker.window),
		redrive:            newBucket(cfg.Redrive, 0),
		perTenantReprocess: reuse.Map(prev.perTenantReprocess),
	}
	if c, ok := env.Clock.(interface{ NowRef() (*int64, int64) }); ok {
		ref, epoch := c.NowRef()
		s.nowRef, s.nowOffset = ref, env.Epoch.UnixNano()-epoch
	}
}

// Config returns the system's configuration.
func (s *System) Config() Config { return s.cfg }

// Now is the current model time. (Small enough to inline: the model reads
// the time at every event; a clock with no NowRef is the rare case.)
func (s *System) Now() Time {
	if s.nowRef != nil {
		return *s.nowRef - s.nowOffset
	}
	return s.clockNow()
}

func (s *System) clockNow() Time { return Time(s.clock.Now().Sub(s.epoch)) }

// event returns the zeroed scratch event stamped with kind and time.
// (Zeroed in place, then stamped: assigning a literal built the event on
// the stack and copied it over.)
func (s *System) event(kind EventKind, actor Actor) *Event {
	e := &s.ev
	*e = Event{}
	e.Kind, e.Actor, e.At = kind, actor, s.Now()
	return e
}

func (s *System) emit(e *Event) { s.rec.Record(e) }

// jobEvent fills the job-identifying fields of an event.
func jobEvent(e *Event, j *Job) *Event {
	e.Job, e.Tenant, e.Key = j.ID, j.Tenant, j.Key
	return e
}
