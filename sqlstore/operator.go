package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/durasim/durasim/model"
)

// The model's dead-letter path in two steps (WriteDLQ, then MarkDead, with
// a crash boundary between them), its unfenced terminal transitions of the
// lease path, redrive and the audit log. Dead is the one-transaction form
// real workers use; these keep the deterministic mirror in step with the
// model, each one transaction on the actor's own connection.

// unfencedWhere matches any live job: the lease path cancels or
// dead-letters a job it finds expired or out of attempts, holder or not.
var unfencedWhere = " WHERE id = $1 AND $2 = 0 AND state IN ('" + sPending + "', '" + sRetryWait + "', '" + sLeased + "')"

// terminal runs a terminal transition, fenced like Ack, or unfenced when
// fence is 0.
func (c *Conn) terminal(ctx context.Context, op string, job model.JobID, fence uint64, set string, reason model.Code) error {
	where := fenceWhere
	if fence == 0 {
		where = unfencedWhere
	}
	return c.fencedOp(ctx, op, job, fence, "UPDATE jobs SET "+set+", last_code = $3"+where, reason.String())
}

// MarkDead makes the job dead with reason (the model's second dead-letter
// step). Fence 0: unfenced, for the lease path. ErrFenced otherwise.
func (c *Conn) MarkDead(ctx context.Context, job model.JobID, fence uint64, reason model.Code, now model.Time) error {
	return c.terminal(ctx, "mark dead", job, fence, "state = '"+sDead+"'", reason)
}

// WriteDLQ writes (or overwrites, as the model does) the job's DLQ row:
// the model's first dead-letter step. lastCode, unless CodeNone, is the
// failed attempt's code that the model records on the job at that moment.
func (c *Conn) WriteDLQ(ctx context.Context, row DLQRow, lastCode model.Code, now model.Time) error {
	const op = "write dlq"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return err
	}
	defer c.end(tx)
	if lastCode != model.CodeNone {
		if _, err := c.exec(ctx, tx, "UPDATE jobs SET last_code = $2 WHERE id = $1", row.Job, lastCode.String()); err != nil {
			return c.wrap(op, err)
		}
	}
	var redrives int32
	if err := c.queryRow(ctx, tx, "SELECT redrive_count FROM jobs WHERE id = $1", row.Job).Scan(&redrives); err != nil {
		return c.wrap(op, err)
	}
	if err := c.writeDLQ(ctx, tx, row.Job, row.Tenant, row.Reason, row.Attempts, redrives, now); err != nil {
		return c.wrap(op, err)
	}
	return c.commit(tx, op)
}

// ErrNotDead: a redrive of a job that is not dead.
var ErrNotDead = errors.New("sqlstore: job is not dead")

// Redrive sends a dead job back to pending, visible now, with its attempts
// reset, a new deadline and one more redrive; any other job: ErrNotDead.
func (c *Conn) Redrive(ctx context.Context, job model.JobID, now, deadlineAt model.Time) error {
	const op = "redrive"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return err
	}
	defer c.end(tx)
	res, err := c.exec(ctx, tx, "UPDATE jobs SET state = '"+sPending+"', attempt = 0, visible_at = $2, ready_at = $2,"+
		" deadline_at = $3, redrive_count = redrive_count + 1 WHERE id = $1 AND state = '"+sDead+"'", job, now, deadlineAt)
	if err != nil {
		return c.wrap(op, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("%w: %s", ErrNotDead, job)
	}
	// The job's DLQ row stays (the model resolves its entry, it does not
	// delete it) and counts the redrive, as the model's envelope does.
	if _, err := c.exec(ctx, tx, "UPDATE dlq SET redrive_count = (SELECT redrive_count FROM jobs WHERE id = $1) WHERE job = $1", job); err != nil {
		return c.wrap(op, err)
	}
	return c.commit(tx, op)
}

// Audit appends an operator action to the audit log.
func (c *Conn) Audit(ctx context.Context, row AuditRow, now model.Time) error {
	const op = "audit"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return err
	}
	defer c.end(tx)
	if _, err := c.exec(ctx, tx, "INSERT INTO audit (at, operator, action, job, new_job) VALUES ($1, $2, $3, $4, $5)",
		now, row.Operator, row.Action, row.Job, row.NewJob); err != nil {
		return c.wrap(op, err)
	}
	return c.commit(tx, op)
}
