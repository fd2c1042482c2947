package sim

import (
	"errors"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// stepWork runs (or continues) the stage's work: extraction calls the
// modeled LLM provider; the other stages are short. While the work runs, a
// worker following a heartbeat protocol extends its lease.
func (r *run) stepWork(w *worker) {
	now := r.now()
	if !w.working {
		// A worker that heartbeats also confirms its lease before starting
		// costly work, so a zombie never starts a stage of a job it lost.
		if r.design.Protocol.Heartbeats {
			if err := r.sys.Heartbeat(r.actor(w), w.lease.Job, w.lease.Fence); err != nil {
				r.lost(w, model.EvHeartbeat, err)
				return
			}
		}
		r.startWork(w, now)
		return
	}
	if now < w.busyUntil {
		if err := r.sys.Heartbeat(r.actor(w), w.lease.Job, w.lease.Fence); err != nil {
			r.lost(w, model.EvHeartbeat, err)
			return
		}
		w.nextBeat = now + r.cfg.Model.HeartbeatEvery
		r.sleepWork(w)
		return
	}
	w.working = false
	if w.workErr != nil {
		// A failed call is stage work done too, nothing committed: the
		// worker may crash or freeze there before it reports the failure
		// (a zombie's failure report must then be refused).
		w.failing = true
		r.cross(w, model.AfterExtract, 0)
		return
	}
	if r.isWorkflowDoc(w) && !r.wfTask(w) {
		return
	}
	r.advance(w, model.AfterExtract)
}

func (r *run) startWork(w *worker, now model.Time) {
	d := &r.docs[w.doc]
	job := r.sys.JobRef(w.lease.Job)
	latency, tokens := r.dbLatency()+model.Time(r.lat.Int64N(10))*model.Millisecond, int64(0)
	w.workErr = nil
	if w.stage == model.StageExtract {
		latency, tokens = d.Latency, d.Tokens
		if r.provider.limited(now, r.inj.RateLimited(now)) {
			latency, tokens = 50*model.Millisecond, 0
			w.workErr = &model.WorkError{Code: model.CodeProviderRateLimited, Raw: "429 Too Many Requests"}
		}
	}
	if w.workErr == nil && job.Origin == 0 {
		if code := r.inj.WorkError(d.Index, w.stage, job.Attempt); code != model.CodeNone {
			w.workErr = &model.WorkError{Code: code, Raw: d.ParseErr()}
			if code == model.CodePoisonSchema {
				w.workErr.SchemaPaths = []string{"$.fields.total", "$.fields.taxId"}
			}
		}
	}
	// The call runs under the job's deadline, as its context would: a call
	// that would end at or past the deadline (as the design reads it) is cut
	// there, and the worker reports the third class of error (ARCHITECTURE.md:
	// cancelled, not retried).
	if r.design.PastDeadline(job, now+latency) {
		latency = max(job.DeadlineAt-now, 0)
		w.workErr = deadlineCut()
	}
	w.working = true
	w.busyUntil = now + latency
	w.nextBeat = now + r.cfg.Model.HeartbeatEvery
	w.value = d.TextHash ^ uint64(job.Attempt)<<32 ^ uint64(w.stage)
	r.sys.SpendTokens(w.lease.Job, tokens)
	e := r.simEvent(model.EvExtract, r.actor(w))
	e.Job, e.Stage, e.HasStage, e.Attempt, e.N, e.N2 = w.lease.Job, w.stage, true, job.Attempt, latency, tokens
	e.Fence = w.lease.Fence
	r.emit(e)
	r.sleepWork(w)
}

// sleepWork wakes the worker when its work ends, or earlier to heartbeat.
func (r *run) sleepWork(w *worker) {
	next := w.busyUntil
	if r.design.Protocol.Heartbeats && w.nextBeat < next {
		next = w.nextBeat
	}
	r.wake(w, next)
}

// fail reports the failed attempt and follows the policy's decision.
func (r *run) fail(w *worker, cause error) {
	e := r.simEvent(model.EvWorkFail, r.actor(w))
	e.Job, e.Stage, e.HasStage, e.Fence = w.lease.Job, w.stage, true, w.lease.Fence
	var we *model.WorkError
	if errors.As(cause, &we) {
		e.Code = we.Code
		// The worker's own reference to the raw error it got (FNV-64a of
		// its text, as the envelope's ErrorRef is defined), and what the
		// validator told it: the DLQ entry must keep both.
		e.Text = "ref=" + strconv.FormatUint(fnvString(fnvOffset, we.Raw), 16)
		if len(we.SchemaPaths) > 0 {
			e.Text += " paths=" + strings.Join(we.SchemaPaths, ",")
		}
	} else {
		e.Code = model.CodeIdempotencyConflict
	}
	r.emit(e)
	d, err := r.sys.Fail(r.actor(w), w.lease.Job, w.lease.Fence, cause)
	if err != nil {
		r.lost(w, model.EvRetry, err)
		return
	}
	r.armReady() // a retry becomes visible later
	if d.Outcome != model.DeadLetterOutcome {
		r.release(w)
		return
	}
	r.sys.WriteDLQ(r.actor(w), w.lease.Job, d.Reason, cause)
	w.markDead, w.deadReason = true, d.Reason
	r.cross(w, model.AfterDLQWrite, r.dbLatency())
}

func (r *run) finishDead(w *worker) {
	w.markDead = false
	if err := r.sys.MarkDead(r.actor(w), w.lease.Job, w.lease.Fence, w.deadReason); err != nil {
		r.told(r.actor(w), model.EvDead, w.lease.Job, w.lease.Fence, err)
	}
	r.release(w)
}

// stepCommit commits the stage's result and event through the outbox. An
// ambiguous commit (it happened, the caller saw a timeout) is retried with
// the same key, which the outbox must absorb.
func (r *run) stepCommit(w *worker) {
	job := r.sys.JobRef(w.lease.Job)
	if r.cutAtDeadline(w, job) {
		return
	}
	res, err := r.sys.CommitResultWithEvent(model.CommitRequest{
		Actor: r.actor(w), Job: w.lease.Job, Tenant: job.Tenant, Key: job.Key,
		Stage: w.stage, PayloadHash: job.PayloadHash, Value: w.value,
	})
	if err != nil {
		r.fail(w, err)
		return
	}
	r.wfPersist(w)
	r.kickRelay()
	if r.inj.Commit(res.Deduped) && w.commitTries < 2 {
		w.commitTries++
		e := r.simEvent(model.EvFault, r.actor(w))
		e.Job, e.Text = w.lease.Job, "ambiguous-commit"
		r.emit(e)
		r.wake(w, r.now()+r.dbLatency())
		return
	}
	w.commitTries = 0
	r.advance(w, model.AfterCommitBeforeAck)
}

// cutAtDeadline cuts a commit, checkpoint or ack the worker would make at
// or after its job's deadline (as the design reads it): the call runs
// under the job's deadline, as the stage's work does (startWork), so a
// worker back late — from a pause, a slow step — gets the third class of
// error, reports it, and the queue cancels the job. Nothing of the job is
// committed or acked past its deadline (invariants' deadline rule).
func (r *run) cutAtDeadline(w *worker, job *model.Job) bool {
	if !r.design.PastDeadline(job, r.now()) {
		return false
	}
	r.fail(w, deadlineCut())
	return true
}

// deadlineCut is the error of a call cut at its job's deadline.
func deadlineCut() *model.WorkError {
	return &model.WorkError{Code: model.CodeDeadlineExceeded, Raw: "context deadline exceeded"}
}

// stepAck tells the queue the stage is done: a checkpoint for every stage
// but the last, the final ack for the last.
func (r *run) stepAck(w *worker) {
	if r.cutAtDeadline(w, r.sys.JobRef(w.lease.Job)) {
		return
	}
	var err error
	call := model.EvAdvance
	if w.stage == model.StageReview {
		call = model.EvAck
		err = r.sys.Ack(r.actor(w), w.lease.Job, w.lease.Fence)
	} else {
		err = r.sys.Advance(r.actor(w), w.lease.Job, w.lease.Fence, w.stage+1)
	}
	if err != nil {
		r.lost(w, call, err)
		return
	}
	r.advance(w, model.AfterAck)
}

// stepDBWrite and stepPublish are the dual-write variant's steps.
// Like any idempotent worker it first checks whether the result exists; if
// it does, the stage counts as done and nothing is published again — which
// is how the event of a crash between the two calls is lost for good.
func (r *run) stepDBWrite(w *worker) {
	job := r.sys.JobRef(w.lease.Job)
	if _, done := r.sys.Committed(job.Key, w.stage); done {
		w.step++ // skip the publish: "already done"
		r.advance(w, model.NoBoundary)
		return
	}
	r.sys.DualWrite(r.actor(w), w.lease.Job, job.Key, w.stage)
	r.advance(w, model.AfterDBWriteBeforePublish)
}

func (r *run) stepPublish(w *worker) {
	job := r.sys.JobRef(w.lease.Job)
	if msg, ok := r.sys.PublishDirect(r.actor(w), job.Key, w.stage); ok {
		r.brokerPublish(msg)
	}
	r.advance(w, model.NoBoundary)
}
