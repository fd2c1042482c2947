package targetsim

import (
	"errors"
	"fmt"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
)

// Races mode (Config.Races): the queue runs each actor's calls on a
// connection of its own (target.Racer), so that a call may wait on a
// lock another actor's open transaction holds. Such a call returns
// target.ErrBlocked with nothing recorded: its step is parked, and so is
// every later event of the same actor, while the other actors go on.
// After every step the queue settles (every call in flight has returned,
// or waits on a transaction idle between its actor's calls), and the
// parked steps are run again in actor order (workers by index, the
// rescuer, the maintenance connection, the client): a call that has
// returned hands back its result, and the step records its ops then, at
// that virtual time. The history's order is the order the results
// became known, and each result is decided by the order the calls were
// made in, which the seed chose.
//
// The handler's transaction is a call per step (begin and effect or
// outbox insert; completion; commit), with a gap the worker's stream
// draws between them, so that the others' calls land while it holds its
// locks. A call the database refuses for the race (a deadlock it broke,
// target.RaceError) rolls the handler's transaction back, and the
// handler returns the error (the report is an error), as River's
// executor would.

// raceGapMax is the longest gap between a handler transaction's steps.
const raceGapMax = 500 * ms

// PrepareRaces turns q's races mode on or off as cfg says; an error when
// cfg asks for it of a queue that cannot race.
func PrepareRaces(q target.Queue, cfg Config) error {
	rq, ok := q.(target.Racer)
	if !cfg.Races {
		if ok {
			return rq.Races(false)
		}
		return nil
	}
	if !ok {
		return fmt.Errorf("-races: target %s on %s has no races mode (target.Racer)", q.Name(), q.Backend())
	}
	if err := rq.Races(true); err != nil {
		return fmt.Errorf("-races: %w", err)
	}
	return nil
}

// parkItem is a parked step: the continuation of a call in flight, or an
// event of its actor that came after it.
type parkItem struct {
	cont func()
	ev   scheduler.Event
}

// blocked reports whether err is a call left in flight waiting on a lock
// (counted once, when it first waits).
func (r *run) blocked(err error) bool {
	if !errors.Is(err, target.ErrBlocked) {
		return false
	}
	if !r.rerunning {
		r.counts.LockWaits++
	}
	return true
}

// actorKey is the actor whose connection ev's step calls (-1: none), in
// the order parked steps are run again.
func (r *run) actorKey(ev scheduler.Event) int {
	n := len(r.work)
	switch ev.Kind {
	case evWorker:
		return int(ev.Actor)
	case evRescuer, evRescue:
		return n
	case evSchedule, evOperator, evBatch, evCancel:
		return n + 1
	case evArrive, evDup:
		return n + 2
	}
	return -1
}

// raceStep runs ev in races mode: behind its actor's parked steps, or
// now; then the queue settles and the parked steps run again.
func (r *run) raceStep(ev scheduler.Event) {
	if r.racer == nil {
		r.racer = r.q.(target.Racer) // PrepareRaces checked it
		r.parked = map[int][]parkItem{}
	}
	k := r.actorKey(ev)
	if k >= 0 && len(r.parked[k]) > 0 {
		r.parked[k] = append(r.parked[k], parkItem{ev: ev})
		return
	}
	r.parkable(k, func() { r.dispatch(ev) })
	r.settle()
}

// parkable runs f, a step of actor k; if its call waits, the step's
// continuation goes first in k's parked steps (true).
func (r *run) parkable(k int, f func()) bool {
	n := len(r.struck)
	r.parkCont = nil
	f()
	if r.parkCont == nil {
		return false
	}
	if k < 0 {
		r.fail("races", errors.New("a step of no actor waits on a lock"))
		return true
	}
	r.struck = r.struck[:n] // what it struck strikes when it runs again
	r.parked[k] = append([]parkItem{{cont: r.parkCont}}, r.parked[k]...)
	r.parkCont = nil
	return true
}

// settle lets the queue settle, then runs the parked steps again in
// actor order, each actor's until one waits, as long as one returns.
func (r *run) settle() {
	for r.err == nil && len(r.parked) > 0 {
		if err := r.racer.Settle(r.ctx); err != nil {
			r.fail("settle", err)
			return
		}
		moved := false
		for k := 0; k <= len(r.work)+2; k++ {
			for len(r.parked[k]) > 0 && r.err == nil {
				it := r.parked[k][0]
				r.parked[k] = r.parked[k][1:]
				f := it.cont
				r.rerunning = f != nil
				if f == nil {
					ev := it.ev
					f = func() { r.dispatch(ev) }
				}
				again := r.parkable(k, f)
				r.rerunning = false
				if again && it.cont != nil {
					break // still waiting
				}
				moved = true
				if again {
					break // a later step's call waits
				}
			}
			if len(r.parked[k]) == 0 {
				delete(r.parked, k)
			}
		}
		if !moved {
			return
		}
	}
}

// raceTx is a handler's transaction open across a worker's steps.
type raceTx struct {
	tx      target.Tx
	id      int  // its number in the history (0: an effect's own transaction, unnumbered as outside races mode)
	checked bool // commit only if the completion came back completed at this attempt
	dedupe  bool
	outbox  bool
	own     bool              // the effect's own transaction: effect, commit, then the completer
	after   boundary.Boundary // own: the boundary after its commit
	applied bool              // own: the effect was written
	key     string
	got     target.Job // the completion's row
}

// raceHandler is handler in races mode: the design's transaction, a
// call per step.
func (w *worker) raceHandler() {
	r := w.r
	t := &raceTx{after: boundary.AfterEffect}
	switch d := r.cfg.Design; {
	case w.job.Kind == KindDeliver:
		t.checked, t.dedupe = true, true
	case d == TxChecked:
		t.checked = true
	case d == TxAsDocumented:
	case d == Outbox:
		t.checked, t.outbox = true, true
	case d == IdempotentKey || d == KeyWithoutTenant:
		t.own, t.dedupe = true, true
	case d == EffectOutsideTx:
		t.own = true
	case d == CompleteOutsideTx:
		t.own, t.after = true, boundary.AfterCommit
	}
	tx, err := w.conn.Begin(r.ctx)
	if err != nil {
		r.fail("begin", err)
		return
	}
	t.tx = tx
	if !t.own {
		t.id = r.newTx()
	}
	w.open = t
	w.raceFirst()
}

// gap is the seed's gap before the transaction's next step.
func (w *worker) gap() target.Time { return w.r.between(w.lat, ms, raceGapMax) }

// raceFirst is the transaction's first call: the effect, or the outbox
// insert.
func (w *worker) raceFirst() {
	r, t := w.r, w.open
	if t.outbox {
		a := w.job.Args
		a.Source = w.job.ID
		req := target.InsertReq{Kind: KindDeliver, Args: a, MaxAttempts: r.cfg.MaxAttempts}
		ins, err := t.tx.Insert(r.ctx, r.now(), req)
		if !w.callDone(err, w.raceFirst, "insert in transaction") {
			return
		}
		r.inserted(target.Op{Kind: target.OpInsert, Actor: w.name, Job: ins.Job, Kind2: KindDeliver, Args: a,
			MaxAttempts: req.MaxAttempts, Skipped: ins.Skipped, Tx: t.id}, -1)
	} else {
		e := w.effect(t.dedupe)
		applied, err := t.tx.Effect(r.ctx, e)
		if !w.callDone(err, w.raceFirst, "effect") {
			return
		}
		if t.own {
			t.applied, t.key = applied, e.Key
			w.after(w.gap(), stepTxCommit)
			return
		}
		w.zombieWrite()
		r.record(target.Op{Kind: target.OpEffect, Actor: w.name, Job: w.job.ID, Attempt: w.job.Attempt, Key: e.Key, Applied: applied, Tx: t.id})
	}
	if !w.raceCrossInTx(boundary.AfterEffect) {
		return
	}
	w.after(w.gap(), stepTxComplete)
}

// raceComplete is JobCompleteTx, a step of its own.
func (w *worker) raceComplete() {
	r, t := w.r, w.open
	got, err := t.tx.Complete(r.ctx, r.now(), w.job)
	if r.blocked(err) {
		r.parkCont = w.raceComplete
		return
	}
	if code := completeRefusal(err); code != "" {
		r.record(target.Op{Kind: target.OpComplete, Actor: w.name, Job: w.job.ID, Tx: t.id, Err: code})
		r.counts.StaleCompletions++
		w.rollBack(code)
		return
	}
	if w.lost(err) {
		return
	}
	if err != nil {
		r.fail("complete in transaction", err)
		return
	}
	t.got = got
	r.record(target.Op{Kind: target.OpComplete, Actor: w.name, Job: w.job.ID, State: got.State, Tx: t.id})
	if !w.raceCrossInTx(boundary.BeforeCommit) {
		return
	}
	if t.checked && (got.State != target.Completed || got.Attempt != w.job.Attempt) {
		r.counts.StaleCompletions++
		w.rollBack("stale_completion") // errStale
		return
	}
	w.after(w.gap(), stepTxCommit)
}

// raceCommit is the commit, a step of its own.
func (w *worker) raceCommit() {
	r, t := w.r, w.open
	err := t.tx.Commit(r.ctx)
	if !w.callDone(err, w.raceCommit, "commit") {
		return
	}
	w.open = nil
	if t.own {
		w.zombieWrite()
		r.record(target.Op{Kind: target.OpEffect, Actor: w.name, Job: w.job.ID, Attempt: w.job.Attempt, Key: t.key, Applied: t.applied})
		if alive, d := w.cross(t.after, false); alive {
			w.after(d+ms, stepReport)
		}
		return
	}
	r.record(target.Op{Kind: target.OpCommit, Actor: w.name, Job: w.job.ID, Tx: t.id})
	if alive, d := w.cross(boundary.AfterCommit, false); alive {
		w.after(d+ms, stepReport)
	}
}

// lost: err is the database refusing the call for the race (a deadlock
// it broke): the handler rolls back and returns the error.
func (w *worker) lost(err error) bool {
	code := target.RaceCode(err)
	if code == "" {
		return false
	}
	w.r.counts.RaceRollbacks++
	if code == "deadlock" {
		w.r.counts.Deadlocks++
	}
	if w.open.own {
		// The effect's own transaction: nothing of it in the history yet.
		w.abort()
		if w.r.err == nil {
			w.report = target.Report{Outcome: target.Errored}
			w.after(ms, stepReport)
		}
		return true
	}
	w.rollBack(code)
	return true
}

// rollBack rolls the transaction back and has the handler return an
// error (code: why, in the history).
func (w *worker) rollBack(code string) {
	r, id := w.r, w.open.id
	w.abort()
	if r.err != nil {
		return
	}
	r.counts.Rollbacks++
	r.record(target.Op{Kind: target.OpRollback, Actor: w.name, Job: w.job.ID, Tx: id, Err: code})
	w.report = target.Report{Outcome: target.Errored}
	w.after(ms, stepReport)
}

// abort rolls the open transaction back.
func (w *worker) abort() {
	t := w.open
	w.open = nil
	if err := t.tx.Rollback(w.r.ctx); err != nil {
		w.r.fail("rollback", err)
	}
}

// raceCrossInTx is crossInTx with the transaction open across steps: a
// crash rolls it back.
func (w *worker) raceCrossInTx(b boundary.Boundary) bool {
	t := w.open
	if w.crossInTx(b, t.id) {
		return true
	}
	w.abort()
	return false
}

// callDone folds the error of a call the races mode made: false when the
// step stops there (parked on a lock, cont to run it again once the call
// returned; its transaction lost to a race; or the run failed on what).
func (w *worker) callDone(err error, cont func(), what string) bool {
	r := w.r
	switch {
	case r.blocked(err):
		r.parkCont = cont
		return false
	case w.lost(err):
		return false
	case err != nil:
		r.fail(what, err)
		return false
	}
	return true
}
