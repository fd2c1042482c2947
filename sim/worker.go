package sim

import (
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/workflow"
)

// wstate is what a worker is doing.
type wstate uint8

const (
	wIdle wstate = iota // no job: will try to lease
	wBusy               // holds a lease, running the protocol
	wDown               // crashed, waiting for its restart
)

// worker is a virtual worker process. Everything here is volatile: a crash
// loses it, and the new incarnation starts idle.
type worker struct {
	id     int32
	inc    int32
	state  wstate
	token  int64 // only the wake event carrying the current token is live
	parked bool
	paused bool

	lease       model.Lease
	doc         int32
	stage       model.Stage
	step        int
	working     bool // StepWork started, result pending
	markDead    bool // dead-letter decision taken, MarkDead pending
	failing     bool // the work failed (workErr), the report pending
	deadReason  model.Code
	busyUntil   model.Time
	nextBeat    model.Time
	workErr     *model.WorkError
	value       uint64
	commitTries int
	// A workflow task's history (workflow.go), durable with the commit:
	// wfHist extends the wfBase events the task replayed of the
	// workflow's run wfRun, or (wfReset) replaces that run with a new one;
	// wfDone: the task completed the workflow.
	wfHist  []workflow.HistoryEvent
	wfBase  int
	wfRun   int
	wfReset bool
	wfDone  bool
}

func (r *run) actor(w *worker) model.Actor {
	return model.Actor{Role: model.RoleWorker, ID: w.id, Incarnation: w.inc}
}

// wake schedules the worker's next step at t, superseding any other.
func (r *run) wake(w *worker, t model.Time) {
	w.token++
	r.at(t, evWorker, w.id, w.token)
}

func (r *run) workerWake(w *worker, token int64) {
	if token != w.token || w.state == wDown {
		return
	}
	if w.paused {
		w.paused = false
		r.emit(r.simEvent(model.EvResume, r.actor(w)))
	}
	if w.state == wIdle {
		r.tryLease(w)
		return
	}
	r.doStep(w)
}

func (r *run) tryLease(w *worker) {
	w.parked = false
	l, ok := r.sys.LeaseNext(r.actor(w))
	if !ok {
		if l.HeldBack != 0 { // the worker's own record of being told the breaker is open
			r.told(r.actor(w), model.EvLease, l.HeldBack, 0, model.ErrBreakerOpen)
		} else if b := r.rec.backend; b != nil {
			b.emptyPoll(r.actor(w), r.now(), r.now()+r.cfg.Model.Lease, r.rec.seq)
		}
		r.park(w)
		return
	}
	if at, more := r.sys.NextReadyAt(); more && at <= r.now() {
		r.kickWorker() // more work is waiting: wake a colleague
	}
	r.armReady() // the new lease expires at some point: someone must notice
	w.state, w.lease, w.stage, w.step = wBusy, l, l.Stage, 0
	w.working, w.markDead, w.failing, w.commitTries = false, false, false, 0
	w.wfHist, w.wfDone = nil, false
	w.doc = r.jobDoc[l.Job-1]
	if r.sys.JobRef(l.Job).Origin == 0 && r.inj.CrashLoop(r.docs[w.doc].Index) {
		r.crashWorker(w, model.AfterLease) // the document kills every worker that takes it
		return
	}
	r.cross(w, model.AfterLease, r.dbLatency())
}

// park puts an idle worker to sleep until it is kicked: by an enqueue, a
// redrive, or the ready timer when a waiting job becomes visible. Idle
// workers cost no events, so a thousand of them are as cheap as one.
func (r *run) park(w *worker) {
	w.parked = true
	w.token++ // no pending wake
	r.parked = append(r.parked, w.id)
	r.armReady()
}

// armReady schedules the ready timer for the next time a job may become
// leasable. If a job is ready now but could not be leased (the breaker is
// open), it looks again a little later rather than spinning.
func (r *run) armReady() {
	at, ok := r.sys.NextReadyAt()
	if !ok {
		return
	}
	now := r.now()
	if at <= now {
		at = now + idleMax
	}
	if r.readyAt > now && r.readyAt <= at {
		return // an earlier timer is already armed
	}
	r.readyAt = at
	r.readyToken++
	r.at(at, evReady, 0, r.readyToken)
}

func (r *run) readyFired(token int64) {
	if token != r.readyToken {
		return
	}
	r.readyAt = 0
	r.kickWorker()
	r.armReady()
}

// kickWorker wakes one parked worker soon (a job was just enqueued).
func (r *run) kickWorker() {
	for len(r.parked) > 0 {
		id := r.parked[len(r.parked)-1]
		r.parked = r.parked[:len(r.parked)-1]
		if w := &r.workers[id]; w.parked && w.state == wIdle {
			w.parked = false
			r.wake(w, r.now()+r.dbLatency())
			return
		}
	}
}

// cross passes boundary b: the injector may crash or pause the worker
// there; otherwise the next step runs after delay.
func (r *run) cross(w *worker, b model.Boundary, delay model.Time) {
	if b == model.NoBoundary {
		r.wake(w, r.now()+delay)
		return
	}
	act := r.crossing(b, w.id)
	switch {
	case act.Ok && act.Kind == faults.Crash:
		r.crashWorker(w, b)
	case act.Ok && act.Kind == faults.Pause:
		e := r.simEvent(model.EvPause, r.actor(w))
		e.Boundary, e.Job, e.N = b, w.lease.Job, act.For
		r.emit(e)
		w.paused = true
		r.wake(w, r.now()+act.For)
	default:
		r.wake(w, r.now()+delay)
	}
}

func (r *run) crashWorker(w *worker, b model.Boundary) {
	e := r.simEvent(model.EvCrash, r.actor(w))
	e.Boundary = b
	if w.state == wBusy {
		e.Job, e.Fence = w.lease.Job, w.lease.Fence
	}
	r.emit(e)
	w.state = wDown
	w.token++ // pending wakes die with the process
	r.at(r.now()+r.restartDelay(), evWorkerRestart, w.id, 0)
}

func (r *run) restartWorker(w *worker) {
	w.inc++
	w.state, w.parked, w.paused = wIdle, false, false
	e := r.simEvent(model.EvRestart, r.actor(w))
	e.OK = true
	r.emit(e)
	r.wake(w, r.now())
}

// release ends the worker's hold on its job (finished or lost) and lets
// it look for the next one.
func (r *run) release(w *worker) {
	w.state = wIdle
	r.wake(w, r.now()+r.dbLatency())
}

// doStep runs the next step of the protocol for the current stage.
func (r *run) doStep(w *worker) {
	if w.markDead {
		r.finishDead(w)
		return
	}
	if w.failing {
		w.failing = false
		r.fail(w, w.workErr)
		return
	}
	if w.stage >= model.StageDone {
		r.release(w)
		return
	}
	steps := r.design.Protocol.Steps
	switch steps[w.step] {
	case model.StepWork:
		r.stepWork(w)
	case model.StepCommit:
		r.stepCommit(w)
	case model.StepAck:
		r.stepAck(w)
	case model.StepDBWrite:
		r.stepDBWrite(w)
	case model.StepPublish:
		r.stepPublish(w)
	}
}

// advance moves past a finished step; after the stage's last step the
// worker moves to the next stage.
func (r *run) advance(w *worker, b model.Boundary) {
	w.step++
	if w.step == len(r.design.Protocol.Steps) {
		w.step = 0
		w.stage++
	}
	r.cross(w, b, r.dbLatency())
}

// lost handles a fenced call the queue refused: the worker records what it
// was told, no longer owns the job and drops it.
func (r *run) lost(w *worker, call model.EventKind, err error) {
	r.told(r.actor(w), call, w.lease.Job, w.lease.Fence, err)
	r.release(w)
}

// told is an actor's own record of a call the system refused (the
// system records the refusal too, just before: the oracles match them).
func (r *run) told(actor model.Actor, call model.EventKind, job model.JobID, fence uint64, err error) {
	e := r.simEvent(model.EvRefused, actor)
	e.Job, e.Fence, e.Code, e.Text = job, fence, model.RefusalCode(err), callText(call)
	r.emit(e)
}

// callTexts are the refused event's texts by call ("call=heartbeat"),
// built once (a zombie's refusals are frequent) for more kinds than exist.
var callTexts = func() (t [64]string) {
	for k := range t {
		t[k] = "call=" + model.EventKind(k).String()
	}
	return t
}()

func callText(call model.EventKind) string {
	if int(call) < len(callTexts) {
		return callTexts[call]
	}
	return "call=" + call.String()
}
