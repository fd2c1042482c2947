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

	// unixNano, when the clock offers it, reads the time without going
	// through time.Time (the scheduler's virtual clock does).
	unixNano   func() int64
	epochNanos int64

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
	if design == nil {
		design = Correct()
	}
	if env.Recorder == nil {
		env.Recorder = Discard
	}
	s := &System{
		cfg: cfg, design: design, clock: env.Clock, epoch: env.Epoch, rnd: env.Rand, rec: env.Recorder,
		perTenantReprocess: map[string]*bucket{},
	}
	if u, ok := env.Clock.(interface{ UnixNano() int64 }); ok {
		s.unixNano, s.epochNanos = u.UnixNano, env.Epoch.UnixNano()
	}
	s.queue.byKey = map[string]JobID{}
	s.outbox.results = map[string]int32{}
	s.consumer.applied = map[string][StageDone]int32{}
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
func (s *System) Now() Time {
	if s.unixNano != nil {
		return s.unixNano() - s.epochNanos
	}
	return Time(s.clock.Now().Sub(s.epoch))
}

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
