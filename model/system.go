package model

import "time"

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

	queue              queue
	outbox             Outbox
	broker             Broker
	consumer           Consumer
	dlq                DLQ
	audit              []AuditEntry
	breaker            Breaker
	redrive            bucket
	perTenantReprocess map[string]*bucket
	dualWrite          map[resultKey]JobID // dual-write variant: rows written with no outbox
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
	if design == nil {
		design = Correct()
	}
	if env.Recorder == nil {
		env.Recorder = Discard
	}
	s := &System{
		cfg: cfg, design: design, clock: env.Clock, epoch: env.Epoch, rnd: env.Rand, rec: env.Recorder,
		perTenantReprocess: map[string]*bucket{},
		dualWrite:          map[resultKey]JobID{},
	}
	s.queue.byKey = map[string]JobID{}
	s.outbox.results = map[resultKey]*Result{}
	s.consumer.seen = map[EventID]bool{}
	s.consumer.applied = map[resultKey]int32{}
	s.dlq.entries = map[JobID]*Envelope{}
	s.breaker.init(cfg.Breaker)
	s.redrive = newBucket(cfg.Redrive, 0)
	return s
}

// Config returns the system's configuration.
func (s *System) Config() Config { return s.cfg }

// Design returns the design (correct or naive variant) under test.
func (s *System) Design() *Design { return s.design }

// Now is the current model time.
func (s *System) Now() Time { return Time(s.clock.Now().Sub(s.epoch)) }

// event returns the zeroed scratch event stamped with kind and time.
func (s *System) event(kind EventKind, actor Actor) *Event {
	s.ev = Event{Kind: kind, Actor: actor, At: s.Now()}
	return &s.ev
}

func (s *System) emit(e *Event) { s.rec.Record(e) }

// jobEvent fills the job-identifying fields of an event.
func jobEvent(e *Event, j *Job) *Event {
	e.Job, e.Tenant, e.Key = j.ID, j.Tenant, j.Key
	return e
}
