package mirror

import (
	"context"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Extra is what the model does beyond [sqlstore.Ops] (sqlstore implements
// it on *Conn): each method one transaction on the actor's connection,
// like Ops. A fence of 0
// means unfenced: the lease path cancels or dead-letters whatever job it
// finds expired or out of attempts, holder or not.
type Extra interface {
	// Cancel makes the job cancelled (terminal) with code.
	Cancel(ctx context.Context, job model.JobID, fence uint64, code model.Code, now model.Time) error // ErrFenced
	// WriteDLQ writes (or overwrites: it is idempotent) the job's DLQ row,
	// the first of the model's two dead-letter steps. A worker's decision
	// comes from a failed attempt whose code the model records on the job
	// then (lastCode; CodeNone for the lease path's): a crash before the
	// second step leaves it there.
	WriteDLQ(ctx context.Context, row sqlstore.DLQRow, lastCode model.Code, now model.Time) error
	// MarkDead is the second step: the job dead with reason.
	MarkDead(ctx context.Context, job model.JobID, fence uint64, reason model.Code, now model.Time) error // ErrFenced
	// Redrive sends a dead job back to pending, visible now, with its
	// attempts reset, a new deadline and one more redrive; it refuses a
	// job that is not dead.
	Redrive(ctx context.Context, job model.JobID, now, deadlineAt model.Time) error
	// Audit appends an operator action to the audit log.
	Audit(ctx context.Context, row sqlstore.AuditRow, now model.Time) error
}

// Conn is what the mirror needs of one actor's connection: the contract,
// the store's Deliver (a broker message by id, so the message-to-event
// mapping is checked too), its read of the broker as a consumer makes it
// (Messages: past a cursor, and those behind it never applied) and Extra.
type Conn interface {
	sqlstore.Ops
	Extra
	Deliver(ctx context.Context, msg int64, now model.Time) (model.EventID, bool, error)
	Messages(ctx context.Context, after int64, limit int) ([]sqlstore.Message, error)
	// A crash between two statements of an operation (see sqlstore.Conn).
	CountStatements()
	Statements() int
	TearAfter(n int)
	Torn() bool
	// A hook before each statement (sqlstore.Conn.OnStatement): the
	// mirror's races hold two connections in step with it.
	SetOnStatement(f func(n int))
	// A statement that fails inside an operation (see sqlstore.Conn).
	FailAt(op, n int)
	Failed() (fired, committed bool)
}

// *sqlstore.Conn is the mirror's connection: the store implements Extra.
var _ Conn = (*sqlstore.Conn)(nil)
