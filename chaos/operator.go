package chaos

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// OperatorOps is what the operator writes: sqlstore.Conn's Enqueue,
// Redrive and Audit, each one transaction.
type OperatorOps interface {
	Enqueue(ctx context.Context, j sqlstore.NewJob) (model.JobID, bool, error)
	Redrive(ctx context.Context, job model.JobID, now, deadlineAt model.Time) error
	Audit(ctx context.Context, row sqlstore.AuditRow, now model.Time) error
}

// Operator is the operator role: the human at the DLQ console and a
// careless client, in one loop.
//
//   - A job dead for max attempts is redriven (its dependency is taken as
//     fixed: a ".flaky" job stops failing once redriven), with a redrive
//     audit row.
//   - A poison job of version 1 is reprocessed: its next version is
//     enqueued (a new key, model.BuildIdempotencyKey, Origin the dead
//     job), then a reprocess audit row links the two. Killed between the
//     enqueue and the audit, the next incarnation enqueues again (the key
//     dedupes it to the same job) and writes the row once.
//   - Redrives whose audit row a kill cut off get it now.
//   - Each round it resubmits a random existing job (same key, same
//     payload: must be deduplicated to that job) and submits another
//     payload under another existing key (must be refused as a conflict).
type Operator struct {
	Ops      OperatorOps
	Read     DBReader
	Clock    clock.Clock
	Name     string        // the operator id in the audit log
	Deadline time.Duration // deadline of redriven and reprocessed jobs
	Idle     time.Duration // between rounds
	Rand     *rand.Rand
	Hist     *History
	Kill     *Killer
}

// Run runs rounds until ctx is done.
func (op *Operator) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		if err := op.Step(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if op.Idle > 0 {
			sleep(ctx, op.Clock, op.Idle)
		}
	}
	return nil
}

// Step is one round. As the worker's, its store calls run to their end
// with their history line even when ctx is cancelled.
func (op *Operator) Step(ctx context.Context) error {
	dctx := context.WithoutCancel(ctx)
	dead, err := op.Read.Dead(ctx)
	if err != nil {
		return err
	}
	for _, d := range dead {
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case d.Reason == model.CodeMaxAttemptsExceeded:
			err = op.redrive(dctx, d.ID)
		case d.Reason == model.CodePoisonSchema && d.Version == 1 && d.Reprocessed == 0:
			err = op.reprocess(dctx, d)
		}
		if err != nil {
			return err
		}
	}
	missing, ids, err := op.Read.Unaudited(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		for range missing[id] {
			if err := op.audit(dctx, "redrive", id, id); err != nil {
				return err
			}
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return op.submit(dctx)
}

func (op *Operator) redrive(ctx context.Context, id model.JobID) error {
	e := Entry{Job: int64(id), T0: wall(op.Clock)}
	n := now(op.Clock)
	err := inside(op.Ops, op.Kill, boundary.InsideRedriveAfterStmt, e, func() error {
		return op.Ops.Redrive(ctx, id, n, n+model.Time(op.Deadline))
	})
	if errors.Is(err, sqlstore.ErrNotDead) {
		return nil // the listing is stale: someone else got there
	}
	if err != nil {
		return err
	}
	e.T1 = wall(op.Clock)
	op.Hist.Write(withOp(e, OpRedrive))
	op.Kill.Cross(boundary.OperatorAfterRedrive, e)
	return op.audit(ctx, "redrive", id, id)
}

func (op *Operator) reprocess(ctx context.Context, d DeadJob) error {
	key, err := model.BuildIdempotencyKey(d.Tenant, d.Document, int(d.Version)+1)
	if err != nil {
		return err
	}
	e := Entry{Job: int64(d.ID), Key: key, T0: wall(op.Clock)}
	n := now(op.Clock)
	var nid model.JobID
	var created bool
	err = inside(op.Ops, op.Kill, boundary.InsideEnqueueAfterStmt, e, func() (err error) {
		nid, created, err = op.Ops.Enqueue(ctx, sqlstore.NewJob{Tenant: d.Tenant, Document: d.Document, Version: d.Version + 1,
			Key: key, PayloadHash: d.Payload, MaxAttempts: d.MaxAttempts, Now: n, DeadlineAt: n + model.Time(op.Deadline), Origin: d.ID})
		return err
	})
	if err != nil {
		return err
	}
	e.New, e.Deduped, e.T1 = int64(nid), !created, wall(op.Clock)
	op.Hist.Write(withOp(e, OpReprocess))
	op.Kill.Cross(boundary.OperatorAfterReprocessEnqueue, e)
	return op.audit(ctx, "reprocess", d.ID, nid)
}

func (op *Operator) audit(ctx context.Context, action string, job, nid model.JobID) error {
	e := Entry{Job: int64(job), New: int64(nid), Err: action, T0: wall(op.Clock)}
	if err := op.Ops.Audit(ctx, sqlstore.AuditRow{Operator: op.Name, Action: action, Job: job, NewJob: nid}, now(op.Clock)); err != nil {
		return err
	}
	e.T1 = wall(op.Clock)
	op.Hist.Write(withOp(e, OpAudit))
	return nil
}

// submit resubmits one random existing job and sends a conflicting
// payload under another's key.
func (op *Operator) submit(ctx context.Context) error {
	if op.Rand == nil {
		return nil
	}
	top, err := op.Read.MaxJob(ctx)
	if err != nil || top == 0 {
		return err
	}
	for _, conflict := range []bool{false, true} {
		id := model.JobID(1 + op.Rand.Int64N(int64(top)))
		j, ok, err := op.Read.Job(ctx, id)
		if err != nil || !ok {
			return err
		}
		j.Now = now(op.Clock)
		j.DeadlineAt = j.Now + model.Time(op.Deadline)
		if conflict {
			j.PayloadHash ^= 1
		}
		e := Entry{Key: j.Key, T0: wall(op.Clock)}
		var got model.JobID
		var created bool
		err = inside(op.Ops, op.Kill, boundary.InsideEnqueueAfterStmt, e, func() (err error) {
			got, created, err = op.Ops.Enqueue(ctx, j)
			return err
		})
		e.T1 = wall(op.Clock)
		refused := errors.Is(err, sqlstore.ErrIdempotencyConflict)
		if err != nil && !refused {
			return err
		}
		// The line records what the store answered; the checks judge it.
		if conflict {
			e.Op, e.Job, e.Payload = OpConflict, int64(id), j.PayloadHash
			if !refused {
				e.Err = "accepted as j" + strconv.FormatInt(int64(got), 10)
			}
		} else {
			e.Op, e.Job = OpResubmit, int64(got)
			if refused {
				e.Job, e.Err = int64(id), "refused as a conflict"
			} else {
				e.Deduped = !created // only an answer without an error says it
			}
		}
		op.Hist.Write(e)
	}
	return nil
}
