package asynqchaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/targetsim"
)

// handler is the asynq handler of the document type: the run's design,
// with kill points between its calls and a history line after each.
// Returning nil is asynq's ack; an error retries the task.
type handler struct {
	pool   *pgxpool.Pool
	design targetsim.Design
	name   string
	hist   *History
	kill   *Killer
	work   time.Duration
	txs    atomic.Int64

	mu  sync.Mutex
	rng *rand.Rand
}

// ProcessTask is the handler: the fetch line, the work, the design's
// writes.
func (h *handler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	id, _ := asynq.GetTaskID(ctx)
	retried, _ := asynq.GetRetryCount(ctx)
	job, err := jobOfID(id)
	if err != nil {
		return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
	}
	var a DocArgs
	if err := json.Unmarshal(t.Payload(), &a); err != nil {
		return fmt.Errorf("task %s: payload: %v: %w", id, err, asynq.SkipRetry)
	}
	e := line("", job, retried+1)
	h.line(e, OpFetch, stamp())
	h.kill.Cross(boundary.AfterFetch, e)
	if err := h.doWork(ctx, e); err != nil {
		return err
	}
	switch h.design {
	case targetsim.IdempotentKey:
		return h.keyed(ctx, e, a, a.key())
	case targetsim.KeyWithoutTenant:
		return h.keyed(ctx, e, a, a.keyWithoutTenant())
	default:
		return h.outside(ctx, e, a)
	}
}

// doWork sleeps the task's work time, or until its context ends (its
// Timeout, or its lease lost: a frozen server's heartbeater finds the
// lease expired when it wakes, and asynq cancels the task's context).
func (h *handler) doWork(ctx context.Context, e Entry) error {
	h.mu.Lock()
	d := h.work/2 + time.Duration(h.rng.Int64N(int64(h.work)+1))
	h.mu.Unlock()
	t0 := stamp()
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
func (h *handler) line(e Entry, op string, t0 int64) {
	e.Op, e.T0, e.T1 = op, t0, stamp()
	h.hist.Write(e)
}

// failed writes the line of a call that failed (a timeout when the task's
// context had ended) and returns err for asynq to retry.
func (h *handler) failed(ctx context.Context, e Entry, t0 int64, err error) error {
	e.Err = errText(err)
	op := OpError
	if ctx.Err() != nil {
		op = OpTimeout
	}
	h.line(e, op, t0)
	return err
}

// outside is effect-outside-tx: the effect written (autocommit) with no
// key; the handler returns nil, and asynq acks.
func (h *handler) outside(ctx context.Context, e Entry, a DocArgs) error {
	t0 := stamp()
	if _, err := h.pool.Exec(ctx, insertEffect, e.Job, e.Attempt, h.name, a.key(), a.Tenant, a.Doc, t0); err != nil {
		h.maybeEffect(ctx, e, a.key(), t0, err)
		return err
	}
	ef := e
	ef.Key, ef.Applied = a.key(), true
	h.line(ef, OpEffect, t0)
	h.kill.Cross(boundary.AfterEffect, e)
	return nil
}

// keyed is the ledger design: in one transaction, the ledger row of key
// and, if it was new, the effect; then commit, then return nil (asynq's
// ack). With the tenant in the key it is the correct design; without it
// (key-without-tenant) a document of one tenant takes the key of
// another's document of the same name, and its effect is never written.
func (h *handler) keyed(ctx context.Context, e Entry, a DocArgs, key string) error {
	t0 := stamp()
	tx, err := h.pool.Begin(ctx)
	if err != nil {
		return h.failed(ctx, e, t0, err)
	}
	e.Tx = int(h.txs.Add(1))
	fail := func(t0 int64, err error) error {
		err = h.failed(ctx, e, t0, err)
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r0 := stamp()
		_ = tx.Rollback(rctx)
		rb := e
		rb.Err = "error"
		h.line(rb, OpRollback, r0)
		return err
	}
	t0 = stamp()
	tag, err := tx.Exec(ctx, insertLedger, key)
	if err != nil {
		return fail(t0, err)
	}
	applied := tag.RowsAffected() == 1
	if applied {
		if _, err := tx.Exec(ctx, insertEffect, e.Job, e.Attempt, h.name, key, a.Tenant, a.Doc, t0); err != nil {
			return fail(t0, err)
		}
	}
	ef := e
	ef.Key, ef.Applied = key, applied
	h.line(ef, OpEffect, t0)
	h.kill.Cross(boundary.AfterEffect, e)
	t0 = stamp()
	if err := tx.Commit(ctx); err != nil {
		// Committed or not, unknown: the line has no end, so its writes
		// count as perhaps durable.
		if ctx.Err() != nil {
			h.line(e, OpTimeout, t0)
		}
		ce := e
		ce.Err = errText(err)
		h.line(ce, OpUnknown, t0)
		return err
	}
	h.line(e, OpCommit, t0)
	h.kill.Cross(boundary.AfterCommit, e)
	return nil
}

// maybeEffect writes the lines of an autocommitted effect that returned
// an error: it may have committed, so its line carries the error and the
// checks count it as perhaps durable.
func (h *handler) maybeEffect(ctx context.Context, e Entry, key string, t0 int64, err error) {
	_ = h.failed(ctx, e, t0, err)
	ef := e
	ef.Key, ef.Applied, ef.Err = key, true, errText(err)
	h.line(ef, OpEffect, t0)
}

// errText is an error's first 200 bytes: history lines stay short.
func errText(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
