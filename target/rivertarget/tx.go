package rivertarget

import (
	"context"
	"errors"

	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/effectsql"
)

// handlerTx is a handler's transaction on River's database: durasim's
// effect and ledger rows, River's JobCompleteTx and InsertTx.
type handlerTx struct {
	tx   dbTx
	c    *conn
	done bool
}

// Effect writes the effect; with Dedupe, the ledger's row for its key
// first, and nothing if the key was there.
func (t *handlerTx) Effect(ctx context.Context, e target.Effect) (bool, error) {
	return effectsql.Write(ctx, t.tx.run, e)
}

// Complete is River's JobCompleteTx on the job the worker fetched, in the
// handler's transaction, returning the row River returned. Like the
// handler in JobCompleteTx's doc comment, it does not check the state that
// row is in.
func (t *handlerTx) Complete(ctx context.Context, now target.Time, j target.Job) (target.Job, error) {
	held, err := t.c.holding(j)
	if err != nil {
		return target.Job{}, err
	}
	r, err := t.c.code.complete(ctx, t.tx, now, held)
	if errors.Is(err, rivertype.ErrNotFound) {
		return target.Job{}, target.ErrNotFound
	}
	if err != nil {
		return target.Job{}, err
	}
	return jobOf(r)
}

// Insert is River's client's InsertTx in the handler's transaction.
func (t *handlerTx) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	return t.c.code.insert(ctx, t.tx, now, r)
}

func (t *handlerTx) Commit(ctx context.Context) error {
	t.done = true
	return t.tx.commit(ctx)
}

func (t *handlerTx) Rollback(ctx context.Context) error {
	if t.done {
		return nil
	}
	t.done = true
	return t.tx.rollback(ctx)
}
