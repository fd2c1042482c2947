package targetsim

import (
	"cmp"
	"errors"
	"strconv"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
)

// A worker's steps: each is one call of the seam, scheduled as its own
// event, with a boundary after it.
type step int64

const (
	stepPoll step = iota
	stepWorked
	stepHandle
	stepReport
	stepRestart
	stepTxComplete // races mode: the handler's transaction's completion, a step of its own
	stepTxCommit   // and its commit
	stepCount
)

// worker is one River client working one job at a time: it fetches,
// works, runs its handler and reports, as River's producer and executor
// do. It loses what it holds when it crashes.
type worker struct {
	r        *run
	idx      int // from 0: the worker's name is w0, w1… (w0.1 after its first restart)
	inc      int // incarnation: restarts so far
	name     string
	conn     target.Conn
	token    int64 // bumped at a crash: events of the dead incarnation are dropped
	has      bool  // a job in its hands
	job      target.Job
	deadline target.Time // the job's work context expires here (River's JobTimeout after the fetch)
	report   target.Report
	crossed  [boundaryCount]int
	lat      *scheduler.Stream // its poll jitter
	slowed   *faults.Fault     // the slow fault drawing out the work in hand
	life     int               // its incarnation's index in run.lives
	open     *raceTx           // races mode: the handler's transaction open across steps
}

func (w *worker) incarnate() {
	w.name = "w" + strconv.Itoa(w.idx)
	if w.inc > 0 {
		w.name += "." + strconv.Itoa(w.inc)
	}
	w.conn = w.r.q.Conn(w.name)
	w.life = len(w.r.lives)
	w.r.lives = append(w.r.lives, Incarnation{Name: w.name, From: w.r.now(), To: -1})
}

// died ends the incarnation's life at t (crashed: by a crash; else the
// run ended), once.
func (w *worker) died(t target.Time, crashed bool) {
	if l := &w.r.lives[w.life]; l.To < 0 {
		l.To, l.Crashed = t, crashed
	}
}

// after schedules the worker's next step d from now.
func (w *worker) after(d target.Time, s step) {
	w.r.sched.After(scheduler.Time(d), scheduler.Event{Kind: evWorker, Actor: int32(w.idx), Arg: w.token*int64(stepCount) + int64(s)})
}

func (w *worker) handle(arg int64) {
	if arg/int64(stepCount) != w.token {
		return // an event of an incarnation that crashed
	}
	switch step(arg % int64(stepCount)) {
	case stepPoll:
		w.poll()
	case stepWorked:
		w.worked()
	case stepHandle:
		w.handler()
	case stepReport:
		w.reportStep()
	case stepRestart:
		w.inc++
		w.incarnate()
		w.poll()
	case stepTxComplete:
		w.raceComplete()
	case stepTxCommit:
		w.raceCommit()
	}
}

// cross is the worker at boundary b: a crash there ends the incarnation
// (false), a pause delays what follows (the span returned).
func (w *worker) cross(b boundary.Boundary, inTx bool) (alive bool, delay target.Time) {
	w.crossed[b]++
	w.r.cross[b]++
	f := w.r.crossing(int32(w.idx), b, w.crossed[b], w.r.cross[b], inTx)
	if f == nil {
		return true, 0
	}
	held := target.JobID(0)
	if w.has {
		held = w.job.ID
	}
	if f.Kind == faults.Crash {
		w.r.counts.Crashes++
		w.r.record(target.Op{Kind: target.OpCrash, Actor: w.name, Job: held, Boundary: b.String()})
		w.died(w.r.now(), true)
		w.has = false
		w.token++
		w.after(restartDelay, stepRestart)
		return false, 0
	}
	w.r.counts.Pauses++
	w.r.record(target.Op{Kind: target.OpPause, Actor: w.name, Job: held, Boundary: b.String(), At: w.r.now() + f.For})
	return true, f.For
}

func (w *worker) poll() {
	r := w.r
	jobs, err := w.conn.Fetch(r.ctx, r.now(), 1)
	if r.blocked(err) {
		r.parkCont = w.poll
		return
	}
	if err != nil {
		r.fail("fetch", err)
		return
	}
	r.counts.Polls++
	if len(jobs) == 0 {
		w.after(pollInterval+r.between(w.lat, 0, 50*ms), stepPoll)
		return
	}
	r.counts.Fetches++
	w.has, w.job = true, jobs[0]
	own := r.jobTimeout(w.job)
	r.timeouts[w.job.ID] = own
	switch t := cmp.Or(own, r.pol.JobTimeout); {
	case own < 0:
		r.counts.NoTimeouts++
		w.deadline = 0
	case own > 0:
		r.counts.WorkerTimeouts++
		fallthrough
	case t > 0:
		w.deadline = r.now() + t
	default:
		w.deadline = 0
	}
	r.record(target.Op{Kind: target.OpFetch, Actor: w.name, Job: w.job.ID, Attempt: w.job.Attempt, Timeout: own})
	alive, d := w.cross(boundary.AfterFetch, false)
	if !alive {
		return
	}
	w.after(d+w.workTime(), stepWorked)
}

// workTime is how long the job's work takes: a short call, or a slow
// fault's span.
func (w *worker) workTime() target.Time {
	if f := w.r.docFault(faults.Slow, w.job); f != nil {
		w.slowed = f // struck at the work it drew out
		return f.For
	}
	return w.r.workTime(w.job)
}

// worked decides how the work ended (the plan's handler errors, cancels
// and snoozes) and records it.
func (w *worker) worked() {
	r := w.r
	if w.slowed != nil {
		r.strike(*w.slowed)
		w.slowed = nil
	}
	var f *faults.Fault
	w.report, f = w.outcome()
	if f != nil {
		r.strike(*f)
	}
	r.record(target.Op{Kind: target.OpWork, Actor: w.name, Job: w.job.ID, Attempt: w.job.Attempt, Outcome: w.report.Outcome,
		At: w.report.Snooze})
	alive, d := w.cross(boundary.AfterWork, false)
	if !alive {
		return
	}
	w.after(d+ms, stepHandle)
}

// outcome is how the plan ends the work in hand (a handler error, a
// cancel or a snooze: the first that strikes), and the fault that ends
// it (nil: the work is done).
func (w *worker) outcome() (target.Report, *faults.Fault) {
	r := w.r
	if f := r.docFault(faults.Transient, w.job); f != nil {
		return target.Report{Outcome: target.Errored}, f
	}
	if f := r.docFault(faults.Cancel, w.job); f != nil {
		return target.Report{Outcome: target.Cancel}, f
	}
	if f := r.docFault(faults.Snooze, w.job); f != nil {
		return target.Report{Outcome: target.Snooze, Snooze: f.For}, f
	}
	return target.Report{Outcome: target.Done}, nil
}

// reportStep is the executor's report of the result.
func (w *worker) reportStep() {
	r := w.r
	rep, err := w.conn.Report(r.ctx, r.now(), w.job, w.report)
	if r.blocked(err) {
		r.parkCont = w.reportStep
		return
	}
	if err != nil {
		r.fail("report", err)
		return
	}
	r.counts.Reports++
	if !rep.Applied {
		r.counts.Refused++
	}
	at := rep.ScheduledAt
	if rep.State.Final() {
		at = 0
	}
	w.zombieWrite()
	r.record(target.Op{Kind: target.OpReport, Actor: w.name, Job: w.job.ID, Outcome: w.report.Outcome, Applied: rep.Applied,
		State: rep.State, At: at, Attempt: rep.Attempt})
	w.has = false
	alive, d := w.cross(boundary.AfterReport, false)
	if !alive {
		return
	}
	w.after(d+fetchCooldown, stepPoll)
}

// errStale is what a checked handler returns when its completion came
// back completed by another attempt, or not completed: it rolled back.
var errStale = errors.New("the job came back not completed at this attempt")
