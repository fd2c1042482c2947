package targetsim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
)

// Result is what one target run produced.
type Result struct {
	Seed   uint64
	Config Config
	Target string // "river v0.51.2 on sqlite"
	Hash   uint64
	Lines  int
	Trace  []string    // with Config.KeepTrace
	Ops    []target.Op // with Config.KeepTrace
	// Incarnations are the workers' lives, in the order they started,
	// and Strikes where each fault of the plan showed (both with
	// Config.KeepTrace): what a timeline draws beside the ops.
	Incarnations []Incarnation
	Strikes      []Strike
	Policy       target.Policy // what the queue declared it promises
	Violations   []invariants.Violation
	Exposures    []invariants.Exposure
	Realized     faults.Plan // every fault that took effect, as a replayable plan
	Swarm        string      // the seed's swarm ("" when off)
	Drained      bool        // the run reached the end of its quiescence window (liveness applied)
	End          target.Time
	Jobs         int // jobs in the database at the end
	Effects      int // effects in the database at the end
	Counts       Counts
}

// Failed reports whether an oracle found a violation.
func (r *Result) Failed() bool { return len(r.Violations) > 0 }

// FirstHandler is the name of the first violated check of the handler's
// effects ("" when none).
func (r *Result) FirstHandler() string {
	for _, v := range r.Violations {
		if invariants.TargetHandlerCheck(v.Invariant) {
			return v.Invariant
		}
	}
	return ""
}

// HandlerFailed reports whether a check of the handler's effects failed
// (invariants.TargetHandlerCheck): the handler's design is at fault, not
// only the queue.
func (r *Result) HandlerFailed() bool {
	return slices.ContainsFunc(r.Violations, func(v invariants.Violation) bool { return invariants.TargetHandlerCheck(v.Invariant) })
}

// HashHex is the trace hash as 16 hex digits.
func (r *Result) HashHex() string { return fmt.Sprintf("%016x", r.Hash) }

// Incarnation is one life of a worker: from its start (the run's, or
// its restart) to its crash or the run's end.
type Incarnation struct {
	Name     string // the actor's name in the trace: w0, w0.1…
	From, To target.Time
	Crashed  bool
}

// Strike is a fault of the plan where it took effect: the op that shows
// it (the crash or pause itself, the work a slow, transient, cancel or
// snooze fault ended, the insert of a resubmit or of a document given
// fewer attempts, the operator's retry of a redrive).
type Strike struct {
	Op    uint64 // the op's Seq
	Fault faults.Fault
}

// Counts are how often a run took each path.
type Counts struct {
	Inserts       int `json:"inserts"`
	UniqueSkipped int `json:"unique_skipped"`
	Polls         int `json:"polls"` // fetch calls, empty ones included
	Fetches       int `json:"fetches"`
	Reports       int `json:"reports"`
	Refused       int `json:"refused"`   // reports the queue left (the job no longer running)
	Rollbacks     int `json:"rollbacks"` // handler transactions rolled back
	// StaleCompletions are completions that came back not this worker's.
	StaleCompletions int `json:"stale_completions"`
	Stuck            int `json:"stuck"`
	Rescued          int `json:"rescued"`
	Scheduled        int `json:"scheduled"`
	Crashes          int `json:"crashes"`
	Pauses           int `json:"pauses"`
	Retries          int `json:"retries"`
	Timeouts         int `json:"timeouts"`      // handlers whose work outlived the job's context
	ZombieWrites     int `json:"zombie_writes"` // writes by a worker whose attempt another worker had fetched since
	// The workload's reach beyond the worker's calls (target.Operator).
	OutsideCancels  int `json:"outside_cancels"`  // an operator's cancels of a running job
	WorkerTimeouts  int `json:"worker_timeouts"`  // fetches of a job whose worker sets its own timeout
	NoTimeouts      int `json:"no_timeouts"`      // fetches of a job whose worker sets none
	Deletes         int `json:"deletes"`          // jobs an operator deleted
	MetadataUpdates int `json:"metadata_updates"` // an operator's metadata updates
	OutOfBand       int `json:"out_of_band"`      // rows another writer changed (each a long error history)
	LongErrors      int `json:"long_errors"`      // of them, live jobs whose next attempt carries the long error history
	BatchInserts    int `json:"batch_inserts"`    // inserts made in a batch that repeats a unique key
	// Races mode: calls that waited on another actor's lock, handler
	// transactions the database refused for a race (rolled back), and of
	// those the deadlocks it broke.
	LockWaits     int `json:"lock_waits,omitempty"`
	RaceRollbacks int `json:"race_rollbacks,omitempty"`
	Deadlocks     int `json:"deadlocks,omitempty"`
}

// Timing of the simulated environment (all whole milliseconds, so that
// SQLite's and PostgreSQL's timestamps hold them exactly).
const (
	ms              = target.Millisecond
	pollInterval    = 1000 * ms // River's FetchPollInterval
	fetchCooldown   = 100 * ms  // River's FetchCooldown
	rescuerInterval = 2000 * ms
	restartDelay    = 500 * ms
	operatorEvery   = 2000 * ms
	quiesceAt       = 30_000 * ms
	drainWindow     = 20 * 60_000 * ms
	arrivalGapMax   = 500 * ms
)

// Scheduler event kinds.
const (
	evArrive int32 = iota
	evDup
	evWorker
	evRescuer
	evRescue
	evSchedule
	evOperator
	evQuiesce
	evBatch
	evCancel
)

// Run runs one seed against q and checks it.
func Run(ctx context.Context, q target.Queue, cfg Config, seed uint64) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := PrepareRaces(q, cfg); err != nil {
		return nil, err
	}
	r := newRun(ctx, q, cfg, seed)
	if r.err != nil {
		return nil, r.err
	}
	if err := q.Reset(ctx, scheduler.Derive(seed, streamJitter)); err != nil {
		return nil, fmt.Errorf("target: reset: %w", err)
	}
	clocks, err := clockPlan(r.plan, q.Name(), r.pol.Clocks)
	if err != nil {
		return nil, err
	}
	if cq, ok := q.(target.ClockedQueue); ok {
		cq.SetClocks(clocks)
	} else if !clocks.Empty() {
		return nil, fmt.Errorf("target %s declares clocks it cannot set (no SetClocks)", q.Name())
	}
	r.start()
	for !r.done && r.err == nil && r.sched.Step() {
	}
	if r.err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, r.err)
	}
	return r.finish()
}

// The seed's random streams.
const (
	streamWorkload scheduler.StreamID = iota + 1
	streamLatency
	streamTie
	streamSwarm
	streamJitter
	streamWork   // a job's work time: drawn from (seed, document, attempt)
	streamWorker // and up: each worker's own poll jitter
)

type doc struct {
	args target.Args
	max  int           // its job's max_attempts
	few  *faults.Fault // the few-attempts fault that set max, if any
	job  target.JobID
	at   target.Time
}

type run struct {
	ctx     context.Context
	q       target.Queue
	cfg     Config
	seed    uint64
	pol     target.Policy
	sched   *scheduler.Scheduler
	lat     *scheduler.Stream
	plan    []planned
	swarm   string
	docs    []doc
	byJob   map[target.JobID]int // job → document index (-1: an outbox job's document is its Args)
	states  map[target.JobID]target.State
	due     map[target.JobID]target.Time // a retryable or scheduled job's time, as the call that made it so returned it
	fetched map[target.JobID]int         // each job's attempt at its last fetch
	txDone  map[int]*target.Op           // each handler transaction's completion
	jobs    []target.JobID               // every job, in insert order
	ops     []target.Op
	trace   []string
	lives   []Incarnation
	strikes []Strike
	struck  []faults.Fault // faults taken effect, to attach to the next op recorded
	hash    hashWriter
	work    []*worker
	resc    rescuer
	client  target.Conn
	ops2    target.Conn     // the scheduler's and operator's connection
	oper    target.Operator // its operator calls (nil: the queue offers none)
	deleted map[target.JobID]bool
	// timeouts: each job's timeout as its worker set it at its last
	// fetch (0: the client's; negative: none), for the rescuer.
	timeouts map[target.JobID]target.Time
	batches  int
	cross    [boundaryCount]int // crossings by any worker
	txSeq    int
	pending  int // arrivals and duplicate inserts still to come
	counts   Counts
	// Races mode (races.go): each actor's steps parked behind its call
	// that waits on a lock, the first a continuation of that call.
	racer     target.Racer
	parked    map[int][]parkItem
	parkCont  func()
	rerunning bool
	quiet     bool // the faults stopped
	done      bool
	end       target.Time
	err       error
}

// opsCap is the room a run's ops start with: a River seed of the
// standard sweep records 74 on average (its ops grown one doubling at a
// time were 6% of the bytes a seed allocates).
const opsCap = 128

func newRun(ctx context.Context, q target.Queue, cfg Config, seed uint64) *run {
	r := &run{ctx: ctx, q: q, cfg: cfg, seed: seed, pol: q.Policy(), lat: scheduler.Derive(seed, streamLatency),
		byJob: map[target.JobID]int{}, deleted: map[target.JobID]bool{}, timeouts: map[target.JobID]target.Time{}, states: map[target.JobID]target.State{}, due: map[target.JobID]target.Time{}, fetched: map[target.JobID]int{}, txDone: map[int]*target.Op{}, hash: newHash(),
		ops: make([]target.Op, 0, opsCap)}
	r.sched = scheduler.New(scheduler.Derive(seed, streamTie), r)
	plan := slices.Clone(cfg.Plan.Faults)
	if cfg.Swarm {
		var extra []faults.Fault
		_, reach := q.Conn("maintenance").(target.Operator)
		extra, r.swarm = swarmFaults(scheduler.Derive(seed, streamSwarm), cfg, r.pol, reach)
		plan = append(plan, extra...)
	}
	for _, f := range keepDocs(plan, cfg.Only) {
		r.plan = append(r.plan, planned{Fault: f})
	}
	r.client, r.ops2 = q.Conn("client"), q.Conn("maintenance")
	r.oper, r.err = operatorOf(r.ops2, q.Name(), r.plan)
	if r.err == nil {
		r.err = timeoutsOf(r.pol, q.Name(), r.plan)
	}
	return r
}

// planned is a fault of the run's plan and whether it took effect.
type planned struct {
	faults.Fault
	consumed bool
}

// keepDocs drops the faults of documents Only leaves out.
func keepDocs(plan []faults.Fault, only []int) []faults.Fault {
	if only == nil {
		return plan
	}
	return slices.DeleteFunc(plan, func(f faults.Fault) bool { return f.Doc != 0 && !slices.Contains(only, int(f.Doc)) })
}

// start schedules the workload: the documents' arrivals, the workers'
// first polls, the maintenance passes, the operator and quiescence.
func (r *run) start() {
	wl := scheduler.Derive(r.seed, streamWorkload)
	at := target.Time(0)
	for i := range r.cfg.Docs {
		at += r.between(wl, 0, arrivalGapMax)
		t := tenantNames[i%r.cfg.Tenants]
		r.docs = append(r.docs, doc{args: target.Args{Tenant: t, Doc: "d" + strconv.Itoa(i/r.cfg.Tenants+1), Version: 1}, max: r.cfg.MaxAttempts, at: at})
		if r.cfg.Only == nil || slices.Contains(r.cfg.Only, i+1) {
			r.pending++
			r.sched.At(scheduler.Time(at), scheduler.Event{Kind: evArrive, Arg: int64(i)})
		}
	}
	for i, f := range r.plan {
		if f.Kind == faults.FewAttempts {
			r.docs[f.Doc-1].max = int(f.Max)
			r.docs[f.Doc-1].few = &r.plan[i].Fault
			r.plan[i].consumed = true // struck at the document's first insert
		}
		if f.Kind == faults.ResubmitAt {
			r.pending++
			r.sched.At(scheduler.Time(f.At), scheduler.Event{Kind: evDup, Arg: int64(i)})
		}
	}
	for i := range r.cfg.Workers {
		w := &worker{r: r, idx: i, lat: scheduler.Derive(r.seed, streamWorker+scheduler.StreamID(i))}
		w.incarnate()
		r.work = append(r.work, w)
		w.after(r.between(w.lat, 0, 50*ms), stepPoll)
	}
	r.startReach()
	r.resc = rescuer{r: r, conn: r.q.Conn("rescuer")}
	r.sched.At(scheduler.Time(rescuerInterval), scheduler.Event{Kind: evRescuer})
	r.sched.At(scheduler.Time(r.scheduleEvery()), scheduler.Event{Kind: evSchedule})
	r.sched.At(scheduler.Time(operatorEvery), scheduler.Event{Kind: evOperator})
	r.sched.At(scheduler.Time(quiesceAt), scheduler.Event{Kind: evQuiesce})
}

// workTime is how long a document's attempt works: drawn from the seed,
// the document and the attempt alone, so that what other documents and
// workers do (or a shrinker leaves out) does not move it.
func (r *run) workTime(j target.Job) target.Time {
	key := uint64(j.ID)
	if di, ok := r.byJob[j.ID]; ok && di >= 0 {
		key = uint64(di + 1)
	}
	s := scheduler.Derive(r.seed^key*0x9e3779b97f4a7c15^uint64(j.Attempt)<<32, streamWork)
	return r.between(s, 20*ms, 400*ms)
}

// between draws a whole number of milliseconds in [lo, hi].
func (r *run) between(s *scheduler.Stream, lo, hi target.Time) target.Time {
	return lo + s.Int64N((hi-lo)/ms+1)*ms
}

func (r *run) now() target.Time { return target.Time(r.sched.Now()) }

// Handle runs one scheduler event.
func (r *run) Handle(ev scheduler.Event) {
	if r.err != nil || r.done {
		return
	}
	if r.cfg.Races {
		r.raceStep(ev)
	} else {
		r.dispatch(ev)
	}
	// A run ends once nothing is left to do: after the faults stopped, or
	// before, when every document has arrived and every job finished
	// (no fault can strike a run in which nothing runs).
	if (r.quiet || r.pending == 0 && !r.retryDue()) && r.drained() && len(r.parked) == 0 {
		r.done = true
	}
	if r.now() >= quiesceAt+drainWindow {
		r.done = true
	}
}

// dispatch runs ev's step.
func (r *run) dispatch(ev scheduler.Event) {
	switch ev.Kind {
	case evArrive:
		r.pending--
		if !r.arrive(int(ev.Arg), false) {
			r.pending++ // parked: its call is still in flight
		}
	case evDup:
		r.pending--
		if !r.quiet {
			r.realize(int(ev.Arg))
			i := int(r.plan[ev.Arg].Doc - 1)
			if !r.arrive(i, true) {
				r.pending++ // parked: its call is still in flight
			}
		}
	case evWorker:
		r.work[ev.Actor].handle(ev.Arg)
	case evRescuer:
		r.resc.pass()
	case evRescue:
		r.resc.rescue(ev.Arg)
	case evSchedule:
		r.schedulePass()
	case evOperator:
		r.operator()
	case evBatch:
		r.batch(int(ev.Arg))
	case evCancel:
		r.cancelJob(int(ev.Arg))
	case evQuiesce:
		r.quiet = true
		r.record(target.Op{Kind: target.OpQuiesce, Actor: "sim"})
	}
}

// fail stops the run: the queue failed a call (not a violation: the
// database or the adapter is broken).
func (r *run) fail(what string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at %s: %w", what, target.FormatSeconds(r.now()), err)
	}
}

// record appends an op to the history and its line to the trace.
func (r *run) record(o target.Op) *target.Op {
	o.Seq, o.T = uint64(len(r.ops)+1), r.now()
	r.ops = append(r.ops, o)
	for _, f := range r.struck {
		r.strikes = append(r.strikes, Strike{Op: o.Seq, Fault: f})
	}
	r.struck = r.struck[:0]
	line := o.Append(nil)
	r.hash.line(line)
	if r.cfg.KeepTrace {
		r.trace = append(r.trace, string(line))
	}
	r.noteState(&r.ops[len(r.ops)-1])
	return &r.ops[len(r.ops)-1]
}

// noteState follows each job's state as the calls returned it: what the
// drain check and the operator go by (the oracles keep their own).
func (r *run) noteState(o *target.Op) {
	switch o.Kind {
	case target.OpInsert:
		if o.Tx == 0 && !o.Skipped {
			r.states[o.Job] = target.Available
		}
	case target.OpFetch:
		r.states[o.Job] = target.Running
		r.fetched[o.Job] = o.Attempt
		r.atFetch(o)
	case target.OpReport:
		r.states[o.Job] = o.State // the row as the call left it, applied or not
		r.due[o.Job] = o.At
	case target.OpComplete:
		r.txDone[o.Tx] = o
	case target.OpCommit:
		if c := r.txDone[o.Tx]; c != nil {
			r.states[c.Job] = c.State
		}
	case target.OpRescue:
		if o.Applied {
			r.states[o.Job] = o.State
			r.due[o.Job] = o.At
		}
	case target.OpSchedule:
		r.states[o.Job] = o.State
	case target.OpRetry:
		if o.Err == "" {
			r.states[o.Job] = o.State
		}
	case target.OpCancelJob:
		if o.Applied {
			r.states[o.Job] = o.State
		}
	}
}

// drained: every job finished, no worker holding one, nothing the plan
// still has to do.
func (r *run) drained() bool {
	for _, id := range r.jobs {
		// A deleted job is finished, whatever a late report of its
		// attempt says of the row it no longer finds (state none).
		if !r.deleted[id] && !r.states[id].Final() && !r.stranded(id) && !r.dueAfterEnd(id) {
			return false
		}
	}
	for _, w := range r.work {
		if w.has {
			return false
		}
	}
	return len(r.jobs) > 0 || r.cfg.Only != nil && len(r.cfg.Only) == 0
}

// dueAfterEnd: a job waiting for a retry or a snooze due past the end of
// the drain window (River's retry after a long error history: errors⁴ s,
// days away). The drain cannot reach it, and nothing is lost: the queue
// runs it when it comes due (the oracle judges its delay).
func (r *run) dueAfterEnd(id target.JobID) bool {
	st := r.states[id]
	return (st == target.Retryable || st == target.Scheduled) && r.due[id] >= quiesceAt+drainWindow
}

// stranded: a job left running with no worker holding it, whose worker
// set it no timeout, on a queue whose rescuer never takes such a job back
// (Policy.WorkerTimeouts): nothing will ever finish it.
func (r *run) stranded(id target.JobID) bool {
	if !r.pol.WorkerTimeouts || r.timeouts[id] >= 0 || r.states[id] != target.Running {
		return false
	}
	for _, w := range r.work {
		if w.has && w.job.ID == id {
			return false
		}
	}
	return true
}

// arrive is a client's insert of document i (dup: again); false: its
// call waits on a lock (races mode), parked.
func (r *run) arrive(i int, dup bool) bool {
	d := &r.docs[i]
	ins, err := r.client.Insert(r.ctx, r.now(), target.InsertReq{Kind: KindDoc, Args: d.args, MaxAttempts: d.max, Unique: true})
	if r.blocked(err) {
		r.parkCont = func() {
			if r.arrive(i, dup) {
				r.pending--
			}
		}
		return false
	}
	if d.few != nil && !dup {
		r.strike(*d.few)
	}
	if err != nil {
		r.fail("insert", err)
		return true
	}
	r.counts.Inserts++
	if ins.Skipped {
		r.counts.UniqueSkipped++
	}
	r.inserted(target.Op{Kind: target.OpInsert, Actor: "client", Job: ins.Job, Kind2: KindDoc, Args: d.args,
		MaxAttempts: d.max, Unique: true, Skipped: ins.Skipped}, i)
	if !dup || d.job == 0 {
		d.job = ins.Job
	}
	return true
}

// inserted records an insert and follows its job.
func (r *run) inserted(o target.Op, docIdx int) {
	r.record(o)
	if o.Skipped {
		return
	}
	if _, ok := r.byJob[o.Job]; !ok {
		r.byJob[o.Job] = docIdx
		r.jobs = append(r.jobs, o.Job)
	}
}

// newTx numbers a handler transaction.
func (r *run) newTx() int {
	r.txSeq++
	return r.txSeq
}

// scheduleEvery is the scheduler's interval: the span within which the
// queue may make a due job available at once (River's scheduler
// interval), or, for a queue that makes none early, the poll interval.
func (r *run) scheduleEvery() target.Time {
	if r.pol.AvailableWithin > 0 {
		return r.pol.AvailableWithin
	}
	return pollInterval
}

// schedulePass is the queue's scheduler: River's job scheduler, or the
// pass that takes back jobs whose lease ran out (Policy.Lease).
func (r *run) schedulePass() {
	got, err := r.ops2.Schedule(r.ctx, r.now())
	if r.blocked(err) {
		r.parkCont = r.schedulePass
		return
	}
	if err != nil {
		r.fail("schedule", err)
		return
	}
	for _, s := range got {
		r.counts.Scheduled++
		r.record(target.Op{Kind: target.OpSchedule, Actor: "scheduler", Job: s.Job, State: s.State})
	}
	r.sched.After(scheduler.Time(r.scheduleEvery()), scheduler.Event{Kind: evSchedule})
}

// operator runs the plan's retries: a document's job, once discarded or
// cancelled, is asked to run again (once per fault).
func (r *run) operator() {
	if r.retriesFrom(0) && r.err == nil {
		r.reachTick()
	}
	r.sched.After(scheduler.Time(operatorEvery), scheduler.Event{Kind: evOperator})
}

// retriesFrom is the operator's retries from plan fault start on; false:
// one waits on a lock (races mode), parked, and the same call runs again
// once it has returned, then the rest of the operator's pass.
func (r *run) retriesFrom(start int) bool {
	if r.quiet {
		return true
	}
	for i := start; i < len(r.plan); i++ {
		f := r.plan[i]
		if f.Kind != faults.Redrive || f.consumed {
			continue
		}
		// A redrive: only a job that failed (discarded or cancelled)
		// is brought back; a completed one's effect stands.
		id := r.docs[f.Doc-1].job
		if st := r.states[id]; id == 0 || st != target.Discarded && st != target.Cancelled {
			continue
		}
		if !r.retryCall(i, id) {
			var cont func()
			cont = func() {
				if !r.retryCall(i, id) {
					r.parkCont = cont // still waiting
				} else if r.err == nil && r.retriesFrom(i+1) && r.err == nil {
					r.reachTick()
				}
			}
			r.parkCont = cont
			return false
		}
		if r.err != nil {
			return true
		}
	}
	return true
}

// retryCall is plan fault i's retry of job id; false: it waits on a lock.
func (r *run) retryCall(i int, id target.JobID) bool {
	j, err := r.ops2.Retry(r.ctx, r.now(), id)
	if r.blocked(err) {
		return false
	}
	r.realize(i)
	switch {
	case errors.Is(err, target.ErrNotFound):
		r.record(target.Op{Kind: target.OpRetry, Actor: "operator", Job: id, State: r.states[id], Err: "not_found"})
	case errors.Is(err, target.ErrUniqueConflict):
		// A newer job of the document holds its unique args (the
		// client inserted it again once this one was cancelled).
		r.record(target.Op{Kind: target.OpRetry, Actor: "operator", Job: id, State: r.states[id], Err: "unique_conflict"})
	case err != nil:
		r.fail("retry", err)
	default:
		r.counts.Retries++
		r.record(target.Op{Kind: target.OpRetry, Actor: "operator", Job: id, State: j.State, At: j.ScheduledAt})
	}
	return true
}

// retryDue reports whether the operator has a retry to make: a plan
// retry whose document's job is discarded or cancelled.
func (r *run) retryDue() bool {
	for _, f := range r.plan {
		if f.Kind == faults.Redrive && !f.consumed {
			if st := r.states[r.docs[f.Doc-1].job]; st == target.Discarded || st == target.Cancelled {
				return true
			}
		}
	}
	return false
}

// realize marks plan fault i as taken effect.
func (r *run) realize(i int) {
	r.plan[i].consumed = true
	r.strike(r.plan[i].Fault)
}

// strike notes that f took effect: the next op recorded shows it.
func (r *run) strike(f faults.Fault) {
	if r.cfg.KeepTrace {
		r.struck = append(r.struck, f)
	}
}

// crossing finds the fault, if any, that strikes an actor (worker index
// worker, or faults.AnyWorker for the rescuer) at its n-th crossing of b
// (any: the crossing count of b by every actor that crosses it); inTx
// allows crashes only.
func (r *run) crossing(worker int32, b boundary.Boundary, n, any int, inTx bool) *faults.Fault {
	if r.quiet {
		return nil
	}
	for i := range r.plan {
		f := &r.plan[i]
		if f.consumed || f.Boundary != b || f.Kind != faults.Crash && f.Kind != faults.Pause || inTx && f.Kind == faults.Pause {
			continue
		}
		if f.Worker == faults.AnyWorker && int(f.Nth) == any || f.Worker == worker && int(f.Nth) == n {
			f.consumed = true
			r.strike(f.Fault) // the crash or pause op follows at once
			return &f.Fault
		}
	}
	return nil
}

// docFault is the unconsumed fault of kind k for a job's document and
// attempt (an outbox job's faults are its source's). The caller strikes
// it where its op is recorded.
func (r *run) docFault(k faults.Kind, j target.Job) *faults.Fault {
	di, ok := r.byJob[j.ID]
	if r.quiet || !ok || j.Kind != KindDoc {
		return nil
	}
	for i := range r.plan {
		f := &r.plan[i]
		// An attempt's fault strikes once (a snooze gives the attempt
		// number back); an every-attempt fault strikes at each.
		if f.Kind == k && int(f.Doc) == di+1 && (f.Attempt == 0 || int(f.Attempt) == j.Attempt && !f.consumed) {
			f.consumed = true
			return &f.Fault
		}
	}
	return nil
}

// finish reads the state back and runs the oracles.
func (r *run) finish() (*Result, error) {
	snap, err := r.q.Snapshot(r.ctx)
	if err != nil {
		return nil, fmt.Errorf("seed %d: snapshot: %w", r.seed, err)
	}
	if err := r.pol.Validate(); err != nil {
		return nil, fmt.Errorf("seed %d: %s %w", r.seed, r.q.Name(), err)
	}
	// The sweep's history is complete: every call of every actor, in the
	// order the scheduler ran them.
	rep := invariants.CheckTarget(invariants.CompleteHistory(r.ops), snap, invariants.TargetFeed{
		Complete: true, Drained: true, DrainUntil: quiesceAt + drainWindow, ExactlyOnce: true, EffectKinds: r.cfg.Design.effectKinds(), Transactional: r.cfg.Design.transactional(),
		Policy: r.pol,
	})
	res := &Result{Seed: r.seed, Config: r.cfg, Target: fmt.Sprintf("%s %s on %s", r.q.Name(), r.q.Version(), r.q.Backend()),
		Hash: r.hash.sum(), Lines: len(r.ops), Violations: rep.Violations, Exposures: rep.Exposures, Swarm: r.swarm,
		Drained: true, End: r.now(), Jobs: len(snap.Jobs), Effects: len(snap.Effects), Counts: r.counts, Policy: r.pol}
	for _, f := range r.plan {
		if f.consumed {
			res.Realized.Faults = append(res.Realized.Faults, f.Fault)
		}
	}
	if r.cfg.KeepTrace {
		res.Trace, res.Ops, res.Strikes = r.trace, r.ops, r.strikes
		for _, w := range r.work {
			w.died(r.now(), false)
		}
		res.Incarnations = r.lives
		slices.SortStableFunc(res.Incarnations, func(a, b Incarnation) int { return cmp.Compare(a.From, b.From) })
	}
	return res, nil
}

// hashWriter hashes trace lines, each ended by a new line.
type hashWriter struct {
	h interface {
		Write([]byte) (int, error)
		Sum64() uint64
	}
}

func newHash() hashWriter { return hashWriter{h: fnv.New64a()} }

func (w hashWriter) line(b []byte) {
	_, _ = w.h.Write(b)
	_, _ = w.h.Write([]byte{'\n'})
}

func (w hashWriter) sum() uint64 { return w.h.Sum64() }
