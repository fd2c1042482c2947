package mirror

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// extraSQL implements [Extra] with SQL on the store's own schema, through
// its pool: each method is one statement or one transaction, so which
// pooled connection runs it does not matter to the lockstep (no actor
// holds a transaction open across events). The statements are written for
// both dialects ($n placeholders, ON CONFLICT upserts).
type extraSQL struct{ db *sql.DB }

// Cancel implements Extra.
func (x extraSQL) Cancel(ctx context.Context, job model.JobID, fence uint64, code model.Code, now model.Time) error {
	return x.fenced(ctx, job, fence, `UPDATE jobs SET state = 'cancelled', last_code = $2
		WHERE id = $1 AND `, code.String())
}

// MarkDead implements Extra.
func (x extraSQL) MarkDead(ctx context.Context, job model.JobID, fence uint64, reason model.Code, now model.Time) error {
	return x.fenced(ctx, job, fence, `UPDATE jobs SET state = 'dead', last_code = $2
		WHERE id = $1 AND `, reason.String())
}

// fenced runs a terminal transition: fenced like Ack (the holder's fence
// on a leased job), or with fence 0 on any live job (the lease path).
func (x extraSQL) fenced(ctx context.Context, job model.JobID, fence uint64, update string, code string) error {
	var res sql.Result
	var err error
	if fence == 0 {
		res, err = x.db.ExecContext(ctx, update+`state IN ('pending', 'retry_wait', 'leased')`, int64(job), code)
	} else {
		res, err = x.db.ExecContext(ctx, update+`state = 'leased' AND fence = $3`, int64(job), code, int64(fence))
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("%w: %s fence %d", sqlstore.ErrFenced, job, fence)
	}
	return nil
}

// WriteDLQ implements Extra: an upsert, as the model overwrites an
// envelope written again.
func (x extraSQL) WriteDLQ(ctx context.Context, row sqlstore.DLQRow, lastCode model.Code, now model.Time) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if lastCode != model.CodeNone {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET last_code = $2 WHERE id = $1`, int64(row.Job), lastCode.String()); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO dlq (job, tenant, reason, attempts, redrive_count, at)
		VALUES ($1, $2, $3, $4, (SELECT redrive_count FROM jobs WHERE id = $1), $5)
		ON CONFLICT (job) DO UPDATE SET tenant = excluded.tenant, reason = excluded.reason,
			attempts = excluded.attempts, redrive_count = excluded.redrive_count, at = excluded.at`,
		int64(row.Job), row.Tenant, row.Reason.String(), row.Attempts, int64(now))
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Redrive implements Extra: only a dead job comes back.
func (x extraSQL) Redrive(ctx context.Context, job model.JobID, now, deadlineAt model.Time) error {
	res, err := x.db.ExecContext(ctx, `UPDATE jobs SET state = 'pending', attempt = 0, visible_at = $2,
		ready_at = $2, deadline_at = $3, redrive_count = redrive_count + 1
		WHERE id = $1 AND state = 'dead'`, int64(job), int64(now), int64(deadlineAt))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("%s is not dead", job)
	}
	return nil
}

// Audit implements Extra.
func (x extraSQL) Audit(ctx context.Context, row sqlstore.AuditRow, now model.Time) error {
	_, err := x.db.ExecContext(ctx, `INSERT INTO audit (at, operator, action, job, new_job) VALUES ($1, $2, $3, $4, $5)`,
		int64(now), row.Operator, row.Action, int64(row.Job), int64(row.NewJob))
	return err
}
