package rivertarget

import (
	"context"

	"github.com/riverqueue/river/riverdriver"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/effectsql"
)

// handlerTx is a handler's transaction on River's database: durasim's
// effect and ledger rows, River's JobCompleteTx and InsertTx.
type handlerTx struct {
	tx    dbTx
	actor string
	done  bool
}

// Effect writes the effect; with Dedupe, the ledger's row for its key
// first, and nothing if the key was there.
func (t *handlerTx) Effect(ctx context.Context, e target.Effect) (bool, error) {
	return effectsql.Write(ctx, t.tx.run, e)
}

// Complete is JobCompleteTx: JobSetStateIfRunningMany in the handler's
// transaction, returning the row River returned. Like JobCompleteTx, it
// does not check the state that row is in.
func (t *handlerTx) Complete(ctx context.Context, now target.Time, j target.Job) (target.Job, error) {
	r, err := setState(ctx, t.tx.exec(), now, riverdriver.JobSetStateCompleted(int64(j.ID), wall(now), nil))
	if err != nil {
		return target.Job{}, err
	}
	return jobOf(r)
}

func (t *handlerTx) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	return insert(ctx, t.tx.exec(), now, r)
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
