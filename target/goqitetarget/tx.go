package goqitetarget

import (
	"context"
	"database/sql"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/effectsql"
)

// handlerTx is a handler's transaction on goqite's database: durasim's
// effect and ledger rows, goqite's DeleteTx (the completion) and
// SendAndGetIDTx (an outbox message).
type handlerTx struct {
	c    *conn
	tx   *sql.Tx
	done bool
}

// Effect writes the effect; with Dedupe, the ledger's row for its key
// first, and nothing if the key was there.
func (t *handlerTx) Effect(ctx context.Context, e target.Effect) (bool, error) {
	return effectsql.Write(ctx, t.run, e)
}

// run executes SQL in the transaction and reports the rows it affected.
func (t *handlerTx) run(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := t.tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Complete is goqite's DeleteTx in the handler's transaction: it deletes
// the message whatever it is doing (no receipt: whoever holds it), and
// does nothing to one already deleted; the job as it then is comes back.
func (t *handlerTx) Complete(ctx context.Context, now target.Time, fetched target.Job) (target.Job, error) {
	j, err := byID(ctx, t.tx, fetched.ID)
	if err != nil {
		return target.Job{}, err
	}
	if j.live && !t.c.gone(j) {
		if err := t.c.del(ctx, t.tx, now, j, noteCompleted); err != nil {
			return target.Job{}, err
		}
		if j, err = byID(ctx, t.tx, fetched.ID); err != nil {
			return target.Job{}, err
		}
	}
	return j.Job, nil
}

func (t *handlerTx) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	id, err := t.c.send(ctx, t.tx, now, r)
	return target.Inserted{Job: id}, err
}

func (t *handlerTx) Commit(context.Context) error {
	t.done = true
	return t.tx.Commit()
}

func (t *handlerTx) Rollback(context.Context) error {
	if t.done {
		return nil
	}
	t.done = true
	return t.tx.Rollback()
}
