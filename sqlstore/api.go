package sqlstore

// This file is the contract between the store (this package), the
// deterministic mirror (sim's -backend) and the real-crash mode (chaos).
// Times are integer nanoseconds of model time (model.Time); ids are the
// model's where the caller passes them (deterministic mode) or the
// database's where it passes 0 (real-crash mode).

import (
	"context"
	"errors"

	"github.com/durasim/durasim/model"
)

// Driver names accepted by Open.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// ErrSchemaVersion is returned (wrapped) by Open when the database holds
// a durasim schema of another version than this binary's migrations.
var ErrSchemaVersion = errors.New("sqlstore: schema of another version")

// ErrIdempotencyConflict: the key exists with another payload hash.
var ErrIdempotencyConflict = errors.New("sqlstore: idempotency conflict")

// ErrFenced: the caller's fence is not the job's current one (a zombie).
var ErrFenced = errors.New("sqlstore: stale fence")

// NewJob is a job to enqueue.
type NewJob struct {
	ID          model.JobID // 0: the database assigns one
	Tenant      string
	Document    string
	Version     int32
	Key         string // idempotency key, UNIQUE
	PayloadHash uint64
	MaxAttempts int32
	Now         model.Time
	DeadlineAt  model.Time
	Origin      model.JobID // reprocess: the dead job it redoes
}

// LeaseReq asks for the next visible job.
type LeaseReq struct {
	Worker     string
	Now        model.Time
	LeaseUntil model.Time
	// Ordered leases only the oldest unfinished job, and only once it is
	// ready (the model's ordered queue: an SQS FIFO group, a partition).
	Ordered bool
}

// Leased is a granted lease.
type Leased struct {
	Job     model.JobID
	Fence   uint64
	Attempt int32
	Stage   model.Stage
	Key     string
	Tenant  string
	Payload uint64
}

// CommitReq is one stage's result with its outbox event, one transaction.
type CommitReq struct {
	Job         model.JobID
	Fence       uint64
	Tenant      string
	Key         string
	Stage       model.Stage
	PayloadHash uint64
	Value       uint64
	EventID     model.EventID // 0: the database assigns one
	Now         model.Time
	// BeforeCommit, when set, runs after the INSERTs and before COMMIT:
	// real-crash mode kills the process there.
	BeforeCommit func()
	// Fenced makes Commit check the fence: ErrFenced unless Job is leased
	// under Fence. Added after the contract: the model's correct design
	// does not fence commits (commitDedupe ignores the lease; a zombie's
	// commit is absorbed by the (key, stage) dedupe), so the default,
	// false, mirrors the model. See (*Conn).Commit.
	Fenced bool
}

// Committed is a commit's outcome.
type Committed struct {
	EventID model.EventID
	Value   uint64
	Deduped bool // the key and stage already had this result
}

// Row is an outbox row.
type Row struct {
	EventID     model.EventID
	Key         string
	Stage       model.Stage
	Tenant      string
	Job         model.JobID
	CommittedAt model.Time
	Published   bool
	PublishedAt model.Time // 0 until marked (State reads it; a claim's rows are unpublished)
}

// State is the durable state read back at the end of a run, for the
// invariant checks and the mirror's comparison with the model: every
// column of every table, each table ordered by its id (results by event
// id, the ledger by event id).
type State struct {
	Jobs    []JobRow
	Rows    []Row
	Results []ResultRow
	Broker  []BrokerRow
	Effects []EffectRow
	DLQ     []DLQRow
	Audit   []AuditRow
	Ledger  []LedgerRow // the events the consumer applied
	Fence   uint64      // the global fencing counter: the last fence granted
}

// JobRow is a job as stored.
type JobRow struct {
	ID           model.JobID
	Tenant, Key  string
	Document     string
	Version      int32
	PayloadHash  uint64
	State        model.State
	Attempt      int32
	MaxAttempts  int32
	Fence        uint64
	Holder       string // the actor that holds (or last held) its lease, as model.Actor prints
	Stage        model.Stage
	RedriveCount int32
	LastCode     model.Code
	Origin       model.JobID
	CreatedAt    model.Time
	VisibleAt    model.Time
	LeaseUntil   model.Time
	ReadyAt      model.Time // when a lease may take it: VisibleAt while waiting, LeaseUntil while leased
	DeadlineAt   model.Time
}

// ResultRow is a committed stage result.
type ResultRow struct {
	Key         string
	Stage       model.Stage
	Tenant      string
	Job         model.JobID
	PayloadHash uint64
	Value       uint64
	EventID     model.EventID
}

// BrokerRow is a broker message.
type BrokerRow struct {
	ID          int64
	Event       model.EventID
	PublishedAt model.Time
	Deliveries  int32
	Acked       bool
}

// LedgerRow is an event the consumer applied, and when.
type LedgerRow struct {
	Event model.EventID
	At    model.Time
}

// EffectRow is one applied effect.
type EffectRow struct {
	EventID model.EventID
	Key     string
	Stage   model.Stage
	Tenant  string
	Job     model.JobID
	At      model.Time
}

// DLQRow is a dead-lettered job (no raw content: codes only).
type DLQRow struct {
	Job      model.JobID
	Tenant   string
	Reason   model.Code
	Attempts int32
	// Read back by State; WriteDLQ takes the job's own count and its now.
	RedriveCount int32
	At           model.Time
}

// AuditRow is an operator action.
type AuditRow struct {
	Operator string
	Action   string
	Job      model.JobID
	NewJob   model.JobID
	At       model.Time // read back by State; Audit takes its now
}

// Ops is what one actor does against the store, each method one
// transaction on the actor's own connection. A crash closes the
// connection (Close): whatever transaction was open rolls back.
// Implemented by *Conn.
type Ops interface {
	Enqueue(ctx context.Context, j NewJob) (id model.JobID, created bool, err error)
	// LeaseNext leases the earliest visible job — pending or retry_wait
	// with visible_at <= now, or leased with lease_until <= now — ordered
	// by (that time, id), taking the next global fence; in PostgreSQL with
	// FOR UPDATE SKIP LOCKED so concurrent workers never take one job.
	LeaseNext(ctx context.Context, r LeaseReq) (Leased, bool, error)
	Heartbeat(ctx context.Context, job model.JobID, fence uint64, until model.Time) error // ErrFenced
	Advance(ctx context.Context, job model.JobID, fence uint64, next model.Stage) error   // ErrFenced
	Commit(ctx context.Context, r CommitReq) (Committed, error)                           // ErrIdempotencyConflict, ErrFenced (only with r.Fenced)
	Ack(ctx context.Context, job model.JobID, fence uint64, now model.Time) error         // ErrFenced
	Retry(ctx context.Context, job model.JobID, fence uint64, visibleAt model.Time, code model.Code) error
	Dead(ctx context.Context, job model.JobID, fence uint64, reason model.Code, now model.Time) error // job dead + DLQ row, one tx
	// ClaimUnpublished takes up to limit unpublished rows, oldest first,
	// FOR UPDATE SKIP LOCKED in PostgreSQL; Publish appends a broker
	// message for the event; MarkPublished marks the row.
	ClaimUnpublished(ctx context.Context, limit int) ([]Row, error)
	Publish(ctx context.Context, event model.EventID, now model.Time) (msg int64, err error)
	MarkPublished(ctx context.Context, event model.EventID, now model.Time) error
	// Apply records the event in the consumer ledger and its effect, one
	// transaction; applied is false for an event already in the ledger.
	Apply(ctx context.Context, event model.EventID, now model.Time) (applied bool, err error)
	Close() error
}
