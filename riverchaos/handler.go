package riverchaos

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/targetsim"
)

// docWorker is the River worker of the document kind: its Work is the
// handler of the run's design, with kill points between its calls and a
// history line after each.
type docWorker struct {
	river.WorkerDefaults[DocArgs]
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

// errStale is tx-checked's refusal: JobCompleteTx returned the row not
// completed at this worker's attempt, so the transaction rolled back and
// River records an error.
var errStale = errors.New("riverchaos: JobCompleteTx returned the job not completed at this attempt; rolled back")

// Work is the handler: the fetch line (River's fetch set attempted_at;
// Work starts now), the work, then the design's writes.
func (w *docWorker) Work(ctx context.Context, job *river.Job[DocArgs]) error {
	e := Entry{Job: job.ID, Attempt: job.Attempt}
	f := e
	f.Op, f.T1 = OpFetch, stamp()
	f.T0 = f.T1
	if job.AttemptedAt != nil {
		f.T0 = min(job.AttemptedAt.UnixNano(), f.T1)
	}
	w.hist.Write(f)
	w.kill.Cross(boundary.AfterFetch, e)
	if err := w.doWork(ctx, e); err != nil {
		return err
	}
	switch w.design {
	case targetsim.TxChecked:
		return w.inTx(ctx, job, e, true)
	case targetsim.TxAsDocumented:
		return w.inTx(ctx, job, e, false)
	case targetsim.IdempotentKey:
		return w.idempotent(ctx, job, e)
	default:
		return w.outside(ctx, job, e)
	}
}

// doWork sleeps the job's work time, or until its context expires.
func (w *docWorker) doWork(ctx context.Context, e Entry) error {
	w.mu.Lock()
	d := w.work/2 + time.Duration(w.rng.Int64N(int64(w.work)+1))
	w.mu.Unlock()
	t0 := stamp()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return w.failed(ctx, e, t0, ctx.Err())
	case <-t.C:
	}
	w.line(e, OpWork, t0)
	return nil
}

// line writes e as op, between t0 and now.
func (w *docWorker) line(e Entry, op string, t0 int64) Entry {
	e.Op, e.T0, e.T1 = op, t0, stamp()
	w.hist.Write(e)
	return e
}

// failed writes the line of a call that failed, a timeout when the work
// context had expired, and returns err for River to record.
func (w *docWorker) failed(ctx context.Context, e Entry, t0 int64, err error) error {
	e.Err = errText(err)
	op := OpError
	if ctx.Err() != nil {
		op = OpTimeout
	}
	w.line(e, op, t0)
	return err
}

// inTx is the transactional handler: the effect and JobCompleteTx in one
// transaction. checked (tx-checked): commit only if the row came back
// completed at this attempt, else roll back and return errStale;
// otherwise (tx-as-documented) commit whenever JobCompleteTx returned no
// error.
func (w *docWorker) inTx(ctx context.Context, job *river.Job[DocArgs], e Entry, checked bool) error {
	t0 := stamp()
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return w.failed(ctx, e, t0, err)
	}
	e.Tx = int(w.txs.Add(1))
	fail := func(t0 int64, err error) error {
		err = w.failed(ctx, e, t0, err)
		w.rollback(tx, e, "error")
		return err
	}
	t0 = stamp()
	a := job.Args
	if _, err := tx.Exec(ctx, insertEffect, job.ID, job.Attempt, w.name, a.key(), a.Tenant, a.Doc, t0); err != nil {
		return fail(t0, err)
	}
	ef := e
	ef.Key, ef.Applied = a.key(), true
	w.line(ef, OpEffect, t0)
	w.kill.Cross(boundary.AfterEffect, e)
	t0 = stamp()
	got, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
	if err != nil {
		return fail(t0, err)
	}
	c := e
	c.State, c.RowAttempt = string(got.State), got.Attempt
	w.line(c, OpComplete, t0)
	w.kill.Cross(boundary.BeforeCommit, e)
	if checked && (got.State != rivertype.JobStateCompleted || got.Attempt != job.Attempt) {
		w.rollback(tx, e, "stale_completion")
		return errStale
	}
	t0 = stamp()
	if err := tx.Commit(ctx); err != nil {
		w.commitErr(ctx, e, t0, err)
		return err
	}
	w.line(e, OpCommit, t0)
	w.kill.Cross(boundary.AfterCommit, e)
	return nil
}

// rollback rolls tx back and writes the line: the transaction did not
// commit whether or not ROLLBACK reached the server (a broken connection
// aborts it too).
func (w *docWorker) rollback(tx pgx.Tx, e Entry, why string) {
	t0 := stamp()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tx.Rollback(ctx)
	e.Err = why
	w.line(e, OpRollback, t0)
}

// commitErr writes the line of a COMMIT that returned an error: whether
// the server committed is unknown (and a timeout line when the work
// context had expired).
func (w *docWorker) commitErr(ctx context.Context, e Entry, t0 int64, err error) {
	if ctx.Err() != nil {
		w.line(e, OpTimeout, t0)
	}
	e.Err = errText(err)
	w.line(e, OpUnknown, t0)
}

// outside is effect-outside-tx: the effect written (autocommit) before
// any transaction; Work returns nil and River's completer completes the
// job afterwards.
func (w *docWorker) outside(ctx context.Context, job *river.Job[DocArgs], e Entry) error {
	t0 := stamp()
	a := job.Args
	if _, err := w.pool.Exec(ctx, insertEffect, job.ID, job.Attempt, w.name, a.key(), a.Tenant, a.Doc, t0); err != nil {
		w.maybeEffect(ctx, e, a, t0, err)
		return err
	}
	ef := e
	ef.Key, ef.Applied = a.key(), true
	w.line(ef, OpEffect, t0)
	w.kill.Cross(boundary.AfterEffect, e)
	return nil
}

// idempotent is idempotent-key: the ledger row for the document's key
// and, if it was new, the effect, committed together; then River's
// completer completes the job.
func (w *docWorker) idempotent(ctx context.Context, job *river.Job[DocArgs], e Entry) error {
	t0 := stamp()
	a := job.Args
	applied := false
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, insertLedger, a.key())
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		applied = true
		_, err = tx.Exec(ctx, insertEffect, job.ID, job.Attempt, w.name, a.key(), a.Tenant, a.Doc, t0)
		return err
	})
	if err != nil {
		w.maybeEffect(ctx, e, a, t0, err)
		return err
	}
	ef := e
	ef.Key, ef.Applied = a.key(), applied
	w.line(ef, OpEffect, t0)
	w.kill.Cross(boundary.AfterEffect, e)
	return nil
}

// maybeEffect writes the lines of an effect write that returned an
// error: it may have committed (an error on the way back), so its line
// carries the error and the checks count it as perhaps durable.
func (w *docWorker) maybeEffect(ctx context.Context, e Entry, a DocArgs, t0 int64, err error) {
	_ = w.failed(ctx, e, t0, err)
	ef := e
	ef.Key, ef.Applied, ef.Err = a.key(), true, errText(err)
	w.line(ef, OpEffect, t0)
}

// errText is an error's first 200 bytes: history lines stay short.
func errText(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
