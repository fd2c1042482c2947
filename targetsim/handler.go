package targetsim

import (
	"errors"
	"strconv"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/target"
)

// handler runs the job's handler as its design writes it, then hands the
// result to the report step. A handler only writes when its work is Done;
// an error, cancel or snooze goes straight to the report.
func (w *worker) handler() {
	if w.report.Outcome != target.Done {
		w.after(ms, stepReport)
		return
	}
	if w.deadline != 0 && w.r.now() >= w.deadline {
		// The client cancelled the work's context: every call the handler
		// makes with it fails, and it returns that error.
		w.r.counts.Timeouts++
		w.r.record(target.Op{Kind: target.OpTimeout, Actor: w.name, Job: w.job.ID, Attempt: w.job.Attempt})
		w.report = target.Report{Outcome: target.Errored}
		w.after(ms, stepReport)
		return
	}
	d := w.r.cfg.Design
	if w.r.cfg.Races {
		w.raceHandler()
		return
	}
	switch {
	case w.job.Kind == KindDeliver:
		w.inTx(true, true, false)
	case d == TxChecked:
		w.inTx(true, false, false)
	case d == TxAsDocumented:
		w.inTx(false, false, false)
	case d == Outbox:
		w.inTx(true, false, true)
	case d == IdempotentKey || d == KeyWithoutTenant:
		w.effectThenReport(true, boundary.AfterEffect)
	case d == EffectOutsideTx:
		w.effectThenReport(false, boundary.AfterEffect)
	case d == CompleteOutsideTx:
		w.effectThenReport(false, boundary.AfterCommit)
	}
}

// key is the handler's idempotency key for the job's document.
func (w *worker) key() string {
	a := w.job.Args
	k := a.Doc + ":v" + strconv.Itoa(a.Version)
	if w.r.cfg.Design != KeyWithoutTenant {
		k = a.Tenant + ":" + k
	}
	return k
}

func (w *worker) effect(dedupe bool) target.Effect {
	a := w.job.Args
	return target.Effect{Job: w.job.ID, Attempt: w.job.Attempt, Worker: w.name, Key: w.key(), Tenant: a.Tenant, Doc: a.Doc,
		At: w.r.now(), Dedupe: dedupe}
}

// inTx is the transactional handler: the effect (or, for the outbox, the
// outbox job) and JobCompleteTx in one transaction. checked: commit only
// if the completion came back completed at this worker's attempt, else
// roll back and report an error; otherwise commit whatever came back.
// A crash inside (after_effect, before_commit) rolls it back.
func (w *worker) inTx(checked, dedupe, outbox bool) {
	r := w.r
	tx, err := w.conn.Begin(r.ctx)
	if err != nil {
		r.fail("begin", err)
		return
	}
	txID := r.newTx()
	ok := false
	defer func() {
		if !ok {
			_ = tx.Rollback(r.ctx)
		}
	}()
	if outbox {
		a := w.job.Args
		a.Source = w.job.ID
		req := target.InsertReq{Kind: KindDeliver, Args: a, MaxAttempts: r.cfg.MaxAttempts}
		ins, err := tx.Insert(r.ctx, r.now(), req)
		if err != nil {
			r.fail("insert in transaction", err)
			return
		}
		r.inserted(target.Op{Kind: target.OpInsert, Actor: w.name, Job: ins.Job, Kind2: KindDeliver, Args: a,
			MaxAttempts: req.MaxAttempts, Skipped: ins.Skipped, Tx: txID}, -1)
	} else {
		e := w.effect(dedupe)
		applied, err := tx.Effect(r.ctx, e)
		if err != nil {
			r.fail("effect", err)
			return
		}
		w.zombieWrite()
		r.record(target.Op{Kind: target.OpEffect, Actor: w.name, Job: w.job.ID, Attempt: w.job.Attempt, Key: e.Key, Applied: applied, Tx: txID})
	}
	if !w.crossInTx(boundary.AfterEffect, txID) {
		return
	}
	got, err := tx.Complete(r.ctx, r.now(), w.job)
	if code := completeRefusal(err); code != "" {
		// A queue whose completion of a job no longer running fails
		// (target.CompletionFails), or of a job deleted since its fetch
		// (River's JobCompleteTx: no row): the handler rolls back and
		// returns the error.
		r.record(target.Op{Kind: target.OpComplete, Actor: w.name, Job: w.job.ID, Tx: txID, Err: code})
		r.counts.StaleCompletions++
		r.counts.Rollbacks++
		r.record(target.Op{Kind: target.OpRollback, Actor: w.name, Job: w.job.ID, Tx: txID, Err: code})
		w.report = target.Report{Outcome: target.Errored}
		w.after(ms, stepReport)
		return
	}
	if err != nil {
		r.fail("complete in transaction", err)
		return
	}
	r.record(target.Op{Kind: target.OpComplete, Actor: w.name, Job: w.job.ID, State: got.State, Tx: txID})
	if !w.crossInTx(boundary.BeforeCommit, txID) {
		return
	}
	if checked && (got.State != target.Completed || got.Attempt != w.job.Attempt) {
		r.counts.StaleCompletions++
		r.counts.Rollbacks++
		r.record(target.Op{Kind: target.OpRollback, Actor: w.name, Job: w.job.ID, Tx: txID, Err: "stale_completion"})
		w.report = target.Report{Outcome: target.Errored} // errStale
		w.after(ms, stepReport)
		return
	}
	if err := tx.Commit(r.ctx); err != nil {
		r.fail("commit", err)
		return
	}
	ok = true
	r.record(target.Op{Kind: target.OpCommit, Actor: w.name, Job: w.job.ID, Tx: txID})
	if alive, d := w.cross(boundary.AfterCommit, false); alive {
		w.after(d+ms, stepReport) // the worker returns nil: the executor completes (the job already is)
	}
}

// completeRefusal is the history's code of a transactional completion's
// refusal ("" for any other error, or none).
func completeRefusal(err error) string {
	switch {
	case errors.Is(err, target.ErrNotRunning):
		return "not_running"
	case errors.Is(err, target.ErrNotFound):
		return "not_found"
	}
	return ""
}

// crossInTx is a boundary inside the handler's transaction: only a crash
// strikes there, and it rolls the transaction back.
func (w *worker) crossInTx(b boundary.Boundary, txID int) bool {
	held := w.job.ID
	alive, _ := w.cross(b, true)
	if !alive {
		w.r.counts.Rollbacks++
		w.r.record(target.Op{Kind: target.OpRollback, Actor: w.name, Job: held, Tx: txID, Err: "crash"})
	}
	return alive
}

// effectThenReport writes the effect in a transaction of its own (with
// dedupe: only if its key is new), then lets the completer complete the
// job: the at-least-once designs, idempotent or not. after is the
// boundary between the two.
func (w *worker) effectThenReport(dedupe bool, after boundary.Boundary) {
	r := w.r
	tx, err := w.conn.Begin(r.ctx)
	if err != nil {
		r.fail("begin", err)
		return
	}
	e := w.effect(dedupe)
	applied, err := tx.Effect(r.ctx, e)
	if err == nil {
		err = tx.Commit(r.ctx)
	}
	if err != nil {
		_ = tx.Rollback(r.ctx)
		r.fail("effect", err)
		return
	}
	w.zombieWrite()
	r.record(target.Op{Kind: target.OpEffect, Actor: w.name, Job: w.job.ID, Attempt: w.job.Attempt, Key: e.Key, Applied: applied})
	if alive, d := w.cross(after, false); alive {
		w.after(d+ms, stepReport)
	}
}

// zombieWrite counts a write made while another worker holds the job.
func (w *worker) zombieWrite() {
	for i := len(w.r.ops) - 1; i >= 0; i-- {
		if o := &w.r.ops[i]; o.Kind == target.OpFetch && o.Job == w.job.ID {
			if o.Actor != w.name {
				w.r.counts.ZombieWrites++
			}
			return
		}
	}
}
