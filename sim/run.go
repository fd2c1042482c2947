package sim

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// Result is everything one run produced.
type Result struct {
	Seed         uint64
	Config       Config
	Events       uint64 // trace events (lines)
	Steps        uint64 // scheduler events run (trace events plus timers, polls, ticks)
	Hash         uint64
	Trace        []string      // only with Config.KeepTrace
	History      []model.Event // only with Config.KeepTrace
	Violations   []invariants.Violation
	Metrics      Metrics
	Realized     faults.Plan   // every fault that took effect, as a replayable plan
	swarm        *faults.Swarm // the seed's swarm (nil when off), spelled by Swarm()
	Injected     [faults.KindCount]int
	BoundaryHits []int // crash/pause faults per model.Boundary
	Crossings    []int32
	Publishes    int32 // broker publishes (where broker faults can strike)
	Commits      int32 // outbox commits (where an ambiguous commit can strike)
	Drained      bool
	// LineKinds are the kinds of line the trace shows: bit k of [1] an
	// accepted event of kind k, of [0] one not OK (a refusal, a skip).
	LineKinds [2]uint64
	// Pairs are the rare conjunctions the trace shows (pairs.go).
	Pairs PairSet
	End   model.Time
	DLQ   []model.Envelope   // the dead-letter queue at the end of the run
	Audit []model.AuditEntry // the operators' audit log at the end of the run
}

// Swarm is the seed's swarm options ("" when off): the fault rates the
// seed drew and the configuration options, as a report prints them. It is
// spelled on demand, from the swarm and the Config: only a report of a
// failure reads it, and a sweep's passing seeds need not pay for it.
func (r *Result) Swarm() string {
	if r.swarm == nil {
		return ""
	}
	s := r.swarm.String()
	if o := optionsOf(r.Config); o != "" {
		s += " options: " + o
	}
	return s
}

// Failed reports whether any invariant was violated.
func (r *Result) Failed() bool { return len(r.Violations) > 0 }

// HashHex is the trace hash as 16 hex digits.
func (r *Result) HashHex() string { return fmt.Sprintf("%016x", r.Hash) }

// Scheduler event kinds.
const (
	evWorker int32 = iota
	evWorkerRestart
	evRelay
	evRelayRestart
	evDeliver
	evRedeliver
	evConsumerRestart
	evArrival       // a client (re)submits a document
	evArrivalEdited // a client submits an edited document under the same id
	evNextArrival   // the next document of the workload arrives
	evAPIRestart
	evStatus
	evOperator
	evTick    // drain check, during quiescence
	evQuiesce // the fault phase ends
	evReady
)

// Timing of the simulated environment.
const (
	tick          = 100 * model.Millisecond
	idleMax       = 1000 * model.Millisecond
	operatorEvery = 2000 * model.Millisecond
	clientRetry   = 1500 * model.Millisecond
	visibility    = 2000 * model.Millisecond // broker redelivers an unacked message
	faultWindow   = 60_000 * model.Millisecond
	drainCheck    = 1000 * model.Millisecond // how often quiescence checks for the drain
)

// run is the state of one simulation.
type run struct {
	cfg       Config
	seed      uint64
	sched     *scheduler.Scheduler
	sys       *model.System
	design    *model.Design
	inj       *faults.Injector
	swarm     *faults.Swarm
	suite     *invariants.Suite
	rec       *recorder
	metrics   *metricsRecorder
	docs      []Doc
	lat, ops  *scheduler.Stream
	tie       *scheduler.Stream // the scheduler's tie-breaking stream
	faultRand *scheduler.Stream // the injector's and the swarm's

	workers    []worker
	parked     []int32    // idle workers waiting for work, most recent last
	readyAt    model.Time // when the ready timer fires (0: not armed)
	readyToken int64
	relay      relayActor
	consumer   restartable
	api        restartable
	provider   provider
	operator   operator
	wf         wfRuns // durable workflows (workflow.go)

	jobDoc        []int32       // job id → doc index (0-based); reprocessed jobs keep their doc
	docJob        []model.JobID // doc index → the job id its client was given
	malformedSent []bool        // doc index → its client sent its malformed request
	docKeys       []builtKey    // doc index → its idempotency key (docKey)
	arrivalsLeft  int
	lastArrival   model.Time
	quiescent     bool
	texts         textArena  // the workload's texts, when it is small
	secrets       docSecrets // the workload as the suite's SecretSource
	drainBy       model.Time // the quiescence phase ends here, drained or not
	nextSample    model.Time // the next tick boundary at which to sample the queue depth
	drained       bool
	done          bool
	stopped       bool // ended early at a safety violation
}

// restartable is the crash state of a stateless actor (API, consumer).
type restartable struct {
	down bool
	inc  int32
	upAt model.Time
}

// Run executes one seed of cfg and checks every invariant.
func Run(cfg Config, seed uint64) (*Result, error) { return NewRunner().Run(cfg, seed) }

// Runner runs seeds one after another, reusing the memory of the previous
// run — event heap, model tables, invariant suite, workload — so a sweep
// of short seeds does not allocate and collect a whole pipeline per seed.
// Only memory is carried over: a seed's trace is the same on a fresh
// Runner, a reused one, and Run. A Result owns its data; it stays valid
// after the next Run. A Runner is not safe for concurrent use: give each
// goroutine its own.
type Runner struct{ r *run }

// NewRunner returns a Runner with nothing to reuse yet.
func NewRunner() *Runner { return &Runner{} }

// PanicError is a seed whose run panicked: a bug in what the harness
// drives (the model, a naive variant, a backend) or in the harness itself.
// Like a violation, it names the seed and the command that replays it.
type PanicError struct {
	Seed   uint64
	Value  any
	Config Config // the configuration as the caller gave it
	// Replay is the command that replays the seed, from the root of
	// durasim's checkout ([Command]; "" when no flags can: a caller that
	// knows where the user is sets its own, see [Reproducer]).
	Replay string
	Stack  string // where it panicked
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("seed %d panicked%s: %v (%s)", e.Seed, panicSite(e.Stack), e.Value, reproduceHint(e.Replay, e.Config))
}

// reproduceHint is "reproduce: CMD", or why there is no command to print.
func reproduceHint(cmd string, cfg Config) string {
	if cmd != "" {
		return "reproduce: " + cmd
	}
	if _, err := backendName(cfg.Backend); err != nil {
		return "reproduce with its go test line: " + err.Error()
	}
	return "reproduce with its go test line or a repro file: no flag sets " + strings.Join(cfg.Unflagged(), ", ")
}

// panicSite is " in F (dir/file.go:N)": the frame that panicked, read from
// a goroutine's stack as runtime/debug prints it ("" if none is found).
func panicSite(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") || i+2 >= len(lines) {
			continue
		}
		// Skip the runtime's own frames (a bounds check reports from there).
		for j := i + 2; j+1 < len(lines); j += 2 {
			fn, at := lines[j], strings.TrimSpace(lines[j+1])
			if strings.HasPrefix(fn, "runtime.") {
				continue
			}
			if k := strings.LastIndexByte(fn, '('); k > 0 && strings.HasSuffix(fn, ")") {
				fn = fn[:k] // the arguments' words
			}
			at, _, _ = strings.Cut(at, " ")
			dir, file := filepath.Split(at)
			return fmt.Sprintf(" in %s (%s)", fn, filepath.Join(filepath.Base(dir), file))
		}
	}
	return ""
}

// Run executes one seed of cfg and checks every invariant. A panic in the
// run is returned as a *PanicError.
func (rn *Runner) Run(cfg Config, seed uint64) (res *Result, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	asked := cfg
	defer func(asked Config) {
		if p := recover(); p != nil {
			rn.r = nil // left half-way: the next seed starts afresh
			res, err = nil, &PanicError{Seed: seed, Value: p, Config: asked, Replay: Command("replay", asked, seed), Stack: string(debug.Stack())}
		}
	}(cfg)
	stalls := false // the swarm's stalling (drawn with the options, used by newInjector)
	if cfg.Swarm {
		// The options drawn must make a configuration the CLI would take:
		// the seed's replay command prints them as flags.
		o := drawOptions(seed)
		stalls = o.stalls
		if cfg = o.apply(cfg); cfg.Validate() != nil {
			return nil, fmt.Errorf("seed %d: its swarm options (%s) make a configuration the CLI refuses: %v", seed, optionsOf(cfg), cfg.Validate())
		}
		if o.pastEdge > 0 {
			if err := probeEdge(cfg, asked, seed, &pastEdges[o.pastEdge-1]); err != nil {
				return nil, err
			}
		}
	}
	if rn.r == nil {
		rn.r = &run{}
	}
	r := rn.r
	r.reset(cfg, seed, stalls)
	r.loop()
	return r.result(), nil
}

// reset prepares r for one seed of cfg: every field starts as in a new
// run; the previous run's storage is kept only as capacity.
func (r *run) reset(cfg Config, seed uint64, stalls bool) {
	old := *r
	*r = run{cfg: cfg, seed: seed}
	if r.design = old.design; r.design == nil || old.cfg.Variant != cfg.Variant {
		// (A design is a table of functions no run changes: the last
		// seed's serves the next of the same variant.)
		r.design, _ = model.LookupDesign(cfg.Variant)
	}
	r.texts = old.texts
	r.docs = workloadInto(old.docs, cfg, seed, &r.texts)
	r.lat, r.ops, r.tie = derived(old.lat, seed, scheduler.StreamLatency), derived(old.ops, seed, scheduler.StreamOperator),
		derived(old.tie, seed, scheduler.StreamSchedule)
	r.faultRand = derived(old.faultRand, seed, scheduler.StreamFaults)
	if r.sched = old.sched; r.sched == nil {
		r.sched = scheduler.New(r.tie, r)
	} else {
		r.sched.Reset(r.tie, r)
	}
	r.secrets = docSecrets{docs: r.docs, texts: &r.texts} // (the run's: an interface of a new value allocates it)
	icfg := invariants.Config{Model: cfg.Model, SecretSource: &r.secrets, Clients: int32(len(r.docs))}
	if r.suite = old.suite; r.suite == nil {
		r.suite = invariants.NewSuite(icfg)
	} else {
		r.suite.Reset(icfg)
	}
	// One record per document, plus a few for resubmits and reprocesses:
	// sized up front so a large run does not hold two copies while growing.
	// Metrics are the Result's, so they are never reused; the recorder
	// (the Result copies its Metrics) and its own scratch by job are.
	if r.metrics = old.metrics; r.metrics == nil {
		r.metrics = &metricsRecorder{}
	}
	*r.metrics = metricsRecorder{firstLeased: r.metrics.firstLeased[:0], reviewCommit: r.metrics.reviewCommit[:0]}
	r.metrics.m.Docs = make([]DocMetrics, 0, len(r.docs)+len(r.docs)/16)
	r.metrics.firstLeased = slices.Grow(r.metrics.firstLeased, cap(r.metrics.m.Docs))
	r.metrics.reviewCommit = slices.Grow(r.metrics.reviewCommit, cap(r.metrics.m.Docs))
	r.metrics.m.Tick = tick
	r.rec = old.rec
	if r.rec == nil {
		r.rec = &recorder{}
	}
	r.rec.reset(cfg.KeepTrace, r.suite, r.metrics)
	env := model.Env{Clock: r.sched.Clock(), Epoch: scheduler.Epoch, Rand: r.lat, Recorder: r.rec}
	if r.sys = old.sys; r.sys == nil {
		r.sys = model.NewSystem(cfg.Model, r.design, env)
	} else {
		r.sys.Reset(cfg.Model, r.design, env)
	}
	r.inj = r.newInjector(old.inj, stalls)
	r.provider = newProvider()
	r.resetWorkflows(&old.wf)
	r.operator.tried, r.operator.quarantined, r.operator.looked = old.operator.tried, old.operator.quarantined[:0], old.operator.looked[:0]
	if r.operator.tried == nil {
		r.operator.tried = map[model.JobID]bool{}
	}
	clear(r.operator.tried)
	r.workers = reuse.Resized(old.workers, int(cfg.Workers))
	r.parked = old.parked[:0]
	r.jobDoc = old.jobDoc[:0]
	r.docJob = reuse.Resized(old.docJob, len(r.docs))
	r.malformedSent = reuse.Resized(old.malformedSent, len(r.docs))
	r.docKeys = reuse.Resized(old.docKeys, len(r.docs))
	if cfg.Backend != nil {
		r.rec.backend = &backendState{b: cfg.Backend}
		if err := cfg.Backend.Begin(seed, r.sys); err != nil {
			r.rec.backend.err = fmt.Errorf("begin: %w", err)
		}
	}
	r.start()
}

// derived returns s reset to the stream Derive(seed, id) gives (a new one
// when s is nil).
func derived(s *scheduler.Stream, seed uint64, id scheduler.StreamID) *scheduler.Stream {
	if s == nil {
		return scheduler.Derive(seed, id)
	}
	s.ResetDerived(seed, id)
	return s
}

// newInjector is the seed's injector: old reset when there is one. With
// stalls, the swarm is a stalling one (drawOptions).
func (r *run) newInjector(old *faults.Injector, stalls bool) *faults.Injector {
	fr := r.faultRand
	if r.cfg.Swarm {
		// 429 bursts land while documents arrive and are worked on, not in
		// the idle tail of the fault window.
		horizon := r.docs[len(r.docs)-1].Arrival + 5000*model.Millisecond
		r.swarm = faults.NewSwarm(fr, faults.SwarmParams{
			Workers: r.cfg.Workers, Docs: r.cfg.Docs, Lease: r.cfg.Model.Lease,
			Horizon: horizon, MaxFaults: r.cfg.MaxFaults,
		})
		if stalls {
			stallingSwarm(r.swarm)
		}
	}
	if old == nil {
		return faults.NewInjector(r.cfg.Plan, r.swarm, fr)
	}
	old.Reset(r.cfg.Plan, r.swarm, fr)
	return old
}

// crossing is every actor's passage through a named boundary, handed to
// the injector, which counts it (the Result's Crossings) and may crash or
// pause the actor there.
func (r *run) crossing(b model.Boundary, worker int32) faults.Action {
	return r.inj.Crossing(b, worker)
}

// start schedules the first events: arrivals, idle workers, relay,
// operator and the tick.
func (r *run) start() {
	for i := range r.workers {
		w := &r.workers[i]
		w.id = int32(i)
		r.wake(w, 0)
	}
	// Arrivals are chained, each scheduling the next, so the event heap
	// holds one of them at a time however large the workload.
	r.at(r.docs[0].Arrival, evNextArrival, 0, 0)
	r.arrivalsLeft = len(r.docs)
	r.lastArrival = r.docs[len(r.docs)-1].Arrival
	r.wakeRelay(0)
	r.sched.At(scheduler.Time(operatorEvery), scheduler.Event{Kind: evOperator})
	r.at(r.lastArrival+faultWindow, evQuiesce, 0, 0)
	r.nextSample = tick
	// One depth sample per tick until the faults stop, then the drain.
	r.metrics.m.QueueDepth = make([]int32, 0, (r.lastArrival+2*faultWindow)/tick)
}

// now is the current virtual time in model units.
func (r *run) now() model.Time { return model.Time(r.sched.Now()) }

// at schedules a scheduler event at model time t.
func (r *run) at(t model.Time, kind int32, actor int32, arg int64) {
	r.sched.At(scheduler.Time(t), scheduler.Event{Kind: kind, Actor: actor, Arg: arg})
}

// Handle dispatches one scheduler event to its actor.
func (r *run) Handle(ev scheduler.Event) {
	if model.Time(ev.At) >= r.nextSample {
		r.sampleUntil(model.Time(ev.At))
	}
	switch ev.Kind {
	case evWorker:
		r.workerWake(&r.workers[ev.Actor], ev.Arg)
	case evWorkerRestart:
		r.restartWorker(&r.workers[ev.Actor])
	case evRelay:
		r.relayWake(ev.Arg)
	case evRelayRestart:
		r.restartRelay()
	case evDeliver, evRedeliver:
		r.deliver(ev.Arg, ev.Kind == evRedeliver)
	case evConsumerRestart:
		r.restart(&r.consumer, model.RoleConsumer)
	case evNextArrival:
		if next := ev.Arg + 1; next < int64(len(r.docs)) {
			r.at(r.docs[next].Arrival, evNextArrival, 0, next)
		}
		r.arrive(int32(ev.Arg), false)
	case evArrival, evArrivalEdited:
		r.arrive(int32(ev.Arg), ev.Kind == evArrivalEdited)
	case evAPIRestart:
		r.restart(&r.api, model.RoleAPI)
	case evStatus:
		r.statusProbe(int32(ev.Arg))
	case evOperator:
		r.operatorRound()
	case evTick:
		r.tick()
	case evQuiesce:
		r.endFaults()
	case evReady:
		r.readyFired(ev.Arg)
	}
}

// loop runs events until the run drained, hit a limit or (optionally) a
// safety violation.
func (r *run) loop() {
	for !r.done && r.sched.Step() {
		if r.cfg.MaxEvents > 0 && r.sched.Steps() >= r.cfg.MaxEvents || r.quiescent && r.now() >= r.drainBy {
			break
		}
		if r.cfg.StopOnViolation && r.suite.Failed() || r.rec.backend.diverged() {
			r.stopped = true
			break
		}
	}
}

// simEvent records an event of the simulation itself (crash, pause, phase).
// (Zeroed in place, then stamped: assigning a literal built the event on
// the stack and copied it over.)
func (r *run) simEvent(kind model.EventKind, actor model.Actor) *model.Event {
	e := &r.rec.scratch
	*e = model.Event{}
	e.Kind, e.Actor, e.At = kind, actor, r.now()
	return e
}

func (r *run) emit(e *model.Event) { r.rec.Record(e) }

// sampleUntil records the queue depth at every tick boundary up to at: the
// depth cannot have changed since the last event, so no tick event is
// needed to take the samples (half of all events, when there was one).
func (r *run) sampleUntil(at model.Time) {
	live := r.sys.Live()
	for ; r.nextSample <= at; r.nextSample += tick {
		r.metrics.sampleDepth(live)
	}
}

// endFaults ends the fault phase once every document has been accepted
// (a client may still be retrying), and starts checking for the drain.
func (r *run) endFaults() {
	if r.arrivalsLeft > 0 {
		r.at(r.now()+tick, evQuiesce, 0, 0)
		return
	}
	r.quiesce()
	r.tick()
}

// tick checks, during quiescence, whether the system has drained.
func (r *run) tick() {
	now := r.now()
	if r.settled() {
		r.drained, r.done = true, true
		r.metrics.m.Drained = now
		e := r.simEvent(model.EvPhase, model.Actor{Role: model.RoleSim})
		e.Text, e.OK = "drained", true
		r.emit(e)
		return
	}
	r.at(now+drainCheck, evTick, 0, 0)
}

// quiesce stops every fault: the liveness phase begins.
func (r *run) quiesce() {
	r.quiescent = true
	r.drainBy = r.now() + r.cfg.DrainLimit
	r.inj.Stop()
	e := r.simEvent(model.EvPhase, model.Actor{Role: model.RoleSim})
	e.Text, e.OK = "quiesce", true
	r.emit(e)
}

// settled reports that nothing is left to do: every job terminal, every
// outbox row published and every message acked, and no operator decision
// pending.
func (r *run) settled() bool {
	return r.arrivalsLeft == 0 && r.sys.Live() == 0 && r.sys.PendingRows() == 0 &&
		r.sys.Unacked() == 0 && r.relay.row == 0 && !r.operator.hasWork(r)
}

func (r *run) result() *Result {
	r.sampleUntil(r.now())
	r.suite.Drained(r.drained)
	res := &Result{
		Seed: r.seed, Config: r.cfg, Events: r.rec.seq, Steps: r.sched.Steps(), Hash: r.rec.hash,
		Trace: r.rec.trace, History: r.rec.history,
		Metrics: r.metrics.m, Realized: r.inj.Realized(), Injected: r.inj.Injected(),
		BoundaryHits: r.inj.BoundaryHits(), Drained: r.drained, LineKinds: r.rec.kinds, Pairs: r.rec.pairs.set, End: r.now(),
		DLQ: r.sys.DLQEntries(), Audit: r.sys.Audit(),
	}
	res.Crossings = r.inj.Crossings()
	res.Publishes, res.Commits = r.inj.Calls()
	res.swarm = r.swarm
	var storeChecks []invariants.Violation
	if b := r.rec.backend; b != nil && !b.diverged() && !r.stopped {
		if err := b.b.End(r.sys); err != nil {
			b.err = fmt.Errorf("final state: %w", err)
		} else if c, ok := b.b.(Checker); ok {
			storeChecks = c.Check(r.drained)
		}
	}
	if r.stopped {
		// Stopped at the first safety violation: the run never got to drain,
		// so liveness has nothing to say.
		res.Violations = r.suite.Violations()
	} else {
		res.Violations = r.suite.Finish(r.suite.FinalOf(r.sys))
	}
	if v := r.rec.backend.violation(r.seed); v != nil {
		res.Violations = append(res.Violations, *v)
	}
	res.Violations = append(res.Violations, storeChecks...)
	return res
}

// restart brings a stateless actor back as a new incarnation.
func (r *run) restart(a *restartable, role model.Role) {
	a.down = false
	a.inc++
	e := r.simEvent(model.EvRestart, model.Actor{Role: role, Incarnation: a.inc})
	e.OK = true
	r.emit(e)
}

// crash takes a stateless actor down at boundary b until its restart. A
// consumer's crash names the message it held (msg, 0 for none): the SQL
// mirror tears that delivery there.
func (r *run) crash(a *restartable, role model.Role, b model.Boundary, kind int32, msg int64) {
	a.down = true
	a.upAt = r.now() + r.restartDelay()
	e := r.simEvent(model.EvCrash, model.Actor{Role: role, Incarnation: a.inc})
	e.Boundary, e.N2 = b, msg
	r.emit(e)
	r.at(a.upAt, kind, 0, 0)
}

// Latencies, all drawn from the latency stream.
func (r *run) dbLatency() model.Time     { return model.Time(1+r.lat.Int64N(5)) * model.Millisecond }
func (r *run) brokerLatency() model.Time { return model.Time(1+r.lat.Int64N(20)) * model.Millisecond }
func (r *run) restartDelay() model.Time {
	return model.Time(1000+r.lat.Int64N(2000)) * model.Millisecond
}
