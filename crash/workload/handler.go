package workload

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// Job is a job as a library handed it to its handler.
type Job struct {
	ID      int64 // the seam's job number
	Attempt int   // as the library counts it (River's attempt, asynq's Retried+1, goqite's received)
	Args    DocArgs
	Fetched int64 // when the library fetched it (wall-clock ns; 0: not known, the handler's start)
	Own     any   // the library's own value of the job, for its Completion (River's *river.Job)
}

// Completion is a library's transactional completion of j in the
// handler's transaction tx (River's JobCompleteTx, goqite's DeleteTx):
// the job's row as it returned it, its state and attempt.
type Completion func(ctx context.Context, tx Tx, j Job) (target.State, int, error)

// Handler is the one handler of every library's document jobs: the
// run's design, with kill points between its calls and a history line
// after each. A library's worker calls Handle with the job it was given
// and returns what Handle returns (nil: the library acks or completes
// the job; an error: it retries it).
type Handler struct {
	Store    Store
	Design   targetsim.Design
	Name     string // the process's
	Hist     *History
	Kill     *Killer
	Work     time.Duration // per job, ±50%
	Complete Completion    // the transactional designs'

	txs atomic.Int64
	mu  sync.Mutex
	rng *rand.Rand
}

// Seeded makes h's work times come from seed's stream of slot id's
// incarnation inc, and returns h.
func (h *Handler) Seeded(seed uint64, id, inc int) *Handler {
	h.rng = rand.New(rand.NewPCG(seed, uint64(id)<<32|uint64(inc)))
	return h
}

// ErrStale is tx-checked's refusal: the completion returned the row not
// completed at this handler's attempt, so the transaction rolled back and
// the handler returns an error.
var ErrStale = errors.New("the transactional completion returned the job not completed at this attempt; rolled back")

// Handle is the handler: the fetch line, the work, the design's writes.
func (h *Handler) Handle(ctx context.Context, j Job) error {
	e := Line("", j.ID, j.Attempt)
	f := e
	f.Op, f.T1 = OpFetch, Stamp()
	f.T0 = f.T1
	if j.Fetched > 0 {
		f.T0 = min(j.Fetched, f.T1)
	}
	h.Hist.Write(f)
	h.Kill.Cross(boundary.AfterFetch, e)
	if err := h.doWork(ctx, e); err != nil {
		return err
	}
	switch h.Design {
	case targetsim.TxChecked:
		return h.inTx(ctx, j, e, true)
	case targetsim.TxAsDocumented:
		return h.inTx(ctx, j, e, false)
	case targetsim.IdempotentKey:
		return h.keyed(ctx, j, e, j.Args.Key())
	case targetsim.KeyWithoutTenant:
		return h.keyed(ctx, j, e, j.Args.KeyWithoutTenant())
	}
	return h.outside(ctx, j, e)
}

// doWork sleeps the job's work time, or until its context ends.
func (h *Handler) doWork(ctx context.Context, e Entry) error {
	h.mu.Lock()
	d := h.Work/2 + time.Duration(h.rng.Int64N(int64(h.Work)+1))
	h.mu.Unlock()
	t0 := Stamp()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return h.failed(ctx, e, t0, ctx.Err())
	case <-t.C:
	}
	h.line(e, OpWork, t0)
	return nil
}

// line writes e as op, between t0 and now.
func (h *Handler) line(e Entry, op string, t0 int64) {
	e.Op, e.T0, e.T1 = op, t0, Stamp()
	h.Hist.Write(e)
}

// failed writes the line of a call that failed, a timeout when the job's
// context had ended, and returns err for the library to record.
func (h *Handler) failed(ctx context.Context, e Entry, t0 int64, err error) error {
	e.Err = errText(err)
	op := OpError
	if ctx.Err() != nil {
		op = OpTimeout
	}
	h.line(e, op, t0)
	return err
}

func (h *Handler) effect(j Job, key string, t0 int64) Effect {
	return Effect{Job: j.ID, Attempt: j.Attempt, Worker: h.Name, Key: key, Tenant: j.Args.Tenant, Doc: j.Args.Doc, At: t0}
}

// begin opens the handler's transaction, numbered in e.Tx.
func (h *Handler) begin(ctx context.Context, e *Entry) (Tx, error) {
	t0 := Stamp()
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		return nil, h.failed(ctx, *e, t0, err)
	}
	e.Tx = int(h.txs.Add(1))
	return tx, nil
}

// fail writes a failed call's line, rolls tx back, and returns err.
func (h *Handler) fail(ctx context.Context, tx Tx, e Entry, t0 int64, err error) error {
	err = h.failed(ctx, e, t0, err)
	h.rollback(tx, e, "error")
	return err
}

// rollback rolls tx back and writes the line: the transaction did not
// commit whether or not ROLLBACK reached the server (a broken connection
// aborts it too).
func (h *Handler) rollback(tx Tx, e Entry, why string) {
	t0 := Stamp()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tx.Rollback(ctx)
	e.Err = why
	h.line(e, OpRollback, t0)
}

// commit commits tx and writes its line, or, for a COMMIT that returned
// an error, the line saying whether it committed is unknown (and a
// timeout line when the job's context had ended).
func (h *Handler) commit(ctx context.Context, tx Tx, e Entry) error {
	t0 := Stamp()
	if err := tx.Commit(ctx); err != nil {
		if ctx.Err() != nil {
			h.line(e, OpTimeout, t0)
		}
		ce := e
		ce.Err = errText(err)
		h.line(ce, OpUnknown, t0)
		return err
	}
	h.line(e, OpCommit, t0)
	h.Kill.Cross(boundary.AfterCommit, e)
	return nil
}

// inTx is the transactional handler: the effect and the library's
// completion in one transaction. checked (tx-checked): commit only if the
// row came back completed at this attempt, else roll back and return
// ErrStale; otherwise (tx-as-documented) commit whenever the completion
// returned no error.
func (h *Handler) inTx(ctx context.Context, j Job, e Entry, checked bool) error {
	tx, err := h.begin(ctx, &e)
	if err != nil {
		return err
	}
	t0 := Stamp()
	if err := tx.Effect(ctx, h.effect(j, j.Args.Key(), t0)); err != nil {
		return h.fail(ctx, tx, e, t0, err)
	}
	ef := e
	ef.Key, ef.Applied = j.Args.Key(), true
	h.line(ef, OpEffect, t0)
	h.Kill.Cross(boundary.AfterEffect, e)
	t0 = Stamp()
	st, attempt, err := h.Complete(ctx, tx, j)
	if err != nil {
		return h.fail(ctx, tx, e, t0, err)
	}
	c := e
	c.State, c.RowAttempt = st.String(), attempt
	h.line(c, OpComplete, t0)
	h.Kill.Cross(boundary.BeforeCommit, e)
	if checked && (st != target.Completed || attempt != j.Attempt) {
		h.rollback(tx, e, "stale_completion")
		return ErrStale
	}
	return h.commit(ctx, tx, e)
}

// keyed is the ledger design: in one transaction, the ledger row of key
// and, if it was new, the effect; then commit, then return nil (the
// library's ack). With the tenant in the key it is the correct design;
// without it (key-without-tenant) a document of one tenant takes the key
// of another's document of the same name, and its effect is never
// written.
func (h *Handler) keyed(ctx context.Context, j Job, e Entry, key string) error {
	tx, err := h.begin(ctx, &e)
	if err != nil {
		return err
	}
	t0 := Stamp()
	applied, err := tx.Ledger(ctx, key)
	if err != nil {
		return h.fail(ctx, tx, e, t0, err)
	}
	if applied {
		if err := tx.Effect(ctx, h.effect(j, key, t0)); err != nil {
			return h.fail(ctx, tx, e, t0, err)
		}
	}
	ef := e
	ef.Key, ef.Applied = key, applied
	h.line(ef, OpEffect, t0)
	h.Kill.Cross(boundary.AfterEffect, e)
	return h.commit(ctx, tx, e)
}

// outside is effect-outside-tx: the effect written (autocommit) with no
// key; the handler returns nil, and the library acks or completes the job
// afterwards.
func (h *Handler) outside(ctx context.Context, j Job, e Entry) error {
	t0 := Stamp()
	if err := h.Store.Effect(ctx, h.effect(j, j.Args.Key(), t0)); err != nil {
		// It may have committed (an error on the way back): its line
		// carries the error and the checks count it as perhaps durable.
		_ = h.failed(ctx, e, t0, err)
		ef := e
		ef.Key, ef.Applied, ef.Err = j.Args.Key(), true, errText(err)
		h.line(ef, OpEffect, t0)
		return err
	}
	ef := e
	ef.Key, ef.Applied = j.Args.Key(), true
	h.line(ef, OpEffect, t0)
	h.Kill.Cross(boundary.AfterEffect, e)
	return nil
}

// errText is an error's first 200 bytes: history lines stay short.
func errText(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
