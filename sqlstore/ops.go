package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/durasim/durasim/model"
)

// Conn is one actor's connection. Each method is one transaction. A Conn
// is meant for one goroutine; Close may be called from any goroutine,
// including from inside CommitReq.BeforeCommit.
type Conn struct {
	c *sql.Conn
	s *Store

	mu     sync.Mutex
	tx     *sql.Tx // the open transaction, so Close can roll it back
	closed bool

	tear tear // a crash armed between two statements (TearAfter)

	// OnStatement, when set, is called before each statement an operation
	// runs, with the number run since CountStatements: real-crash mode
	// calls CountStatements before an operation and kills the process
	// from here, between two statements of one transaction.
	OnStatement func(n int)
}

// tear is a crash armed between two statements: after `after` more
// statements have run on the connection, it closes before the next one.
// ran counts the statements run since CountStatements. It also holds an
// injected statement failure (FailAt), pending until it fires.
type tear struct {
	armed, fell bool
	after, ran  int

	failing, failed, committedAfter bool
	failOp, failAt                  int
	ops, opRan                      int // operations begun since FailAt; statements of the current one
}

// CountStatements starts counting the statements run on the connection:
// Statements, after an operation, says how many it ran (the places a tear
// can fall are between them).
func (c *Conn) CountStatements() { c.tear.ran = 0 }

// Statements is how many statements ran since CountStatements.
func (c *Conn) Statements() int { return c.tear.ran }

// TearAfter arms a crash inside the connection's next operation: once n
// of its statements have run, the connection closes before the next (its
// open transaction rolls back), and the operation fails. With n at least
// the operation's statement count nothing tears: the lockstep mirror tears
// between statements only, at 1 to count-1. A store that split one
// operation into two transactions keeps the first half, which the model
// never has.
func (c *Conn) TearAfter(n int) { c.tear = tear{armed: true, after: n} }

// Torn reports whether the armed tear fell, and disarms one that did not.
func (c *Conn) Torn() bool {
	c.tear.armed = false
	return c.tear.fell
}

// ErrFailureUnreached is what an operation armed by FailAt returns when it
// came to its commit without running the failing statement: it ran fewer
// statements, and it was rolled back so that the probe changes nothing.
var ErrFailureUnreached = errors.New("sqlstore: the injected statement failure was not reached: rolled back")

// FailAt arms a failed statement: in the operation that begins after op
// more have begun on the connection, the statement after n of its own
// fails without running, as a serialization failure or a statement
// timeout would (its error is context.Canceled); the connection stays
// open. The operation must fail and leave nothing, and Failed says
// whether it committed instead. If it ends before that statement, its
// commit rolls back (ErrFailureUnreached): an armed failure never lets
// its operation write.
func (c *Conn) FailAt(op, n int) { c.tear = tear{failing: true, failOp: op, failAt: n} }

// Failed reports whether the failure FailAt armed fired, and whether its
// operation then committed all the same (a dropped error).
func (c *Conn) Failed() (fired, committed bool) { return c.tear.failed, c.tear.committedAfter }

// armedOp reports whether the current operation is the one FailAt armed.
func (c *Conn) armedOp() bool { return c.tear.ops == c.tear.failOp+1 }

// canceled is a context canceled from the start: a statement given it
// fails at once, before reaching the database (the FailAt failure).
var canceled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// step counts a statement about to run, closing the connection first when
// the tear armed there falls, and returns the context to run it with: a
// canceled one when the failure FailAt armed falls on it.
func (c *Conn) step(ctx context.Context) context.Context {
	if c.OnStatement != nil {
		c.OnStatement(c.tear.ran)
	}
	if c.tear.armed && c.tear.ran == c.tear.after {
		c.tear.armed, c.tear.fell = false, true
		_ = c.Close()
	}
	if c.tear.failing && c.armedOp() && c.tear.opRan == c.tear.failAt {
		c.tear.failing, c.tear.failed = false, true
		ctx = canceled
	}
	c.tear.ran++
	c.tear.opRan++
	return ctx
}

// exec, queryRow and query run one statement of the open transaction,
// each a place where a tear can fall.
func (c *Conn) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	return tx.ExecContext(c.step(ctx), q, args...)
}

func (c *Conn) queryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) *sql.Row {
	return tx.QueryRowContext(c.step(ctx), q, args...)
}

func (c *Conn) query(ctx context.Context, tx *sql.Tx, q string, args ...any) (*sql.Rows, error) {
	return tx.QueryContext(c.step(ctx), q, args...)
}

var _ Ops = (*Conn)(nil)

// FenceError is the ErrFenced a fenced call returns, with the model's
// finer reason: Code is CodeNotFound, CodeStaleFence or CodeNotLeased,
// checked in the model's order (checkLease: existence, fence, state).
// errors.Is(err, ErrFenced) holds for all three.
type FenceError struct {
	Op        string
	Job       model.JobID
	Presented uint64
	Current   uint64
	State     model.State
	Code      model.Code
}

func (e *FenceError) Error() string {
	switch e.Code {
	case model.CodeNotFound:
		return fmt.Sprintf("sqlstore: %s: %v: stale fence %d: no such job", e.Op, e.Job, e.Presented)
	case model.CodeNotLeased:
		return fmt.Sprintf("sqlstore: %s: %v: stale fence %d: job is %v, not leased", e.Op, e.Job, e.Presented, e.State)
	}
	return fmt.Sprintf("sqlstore: %s: %v: stale fence %d (current %d)", e.Op, e.Job, e.Presented, e.Current)
}

// Is makes errors.Is(err, ErrFenced) true.
func (e *FenceError) Is(target error) bool { return target == ErrFenced }

// Close closes the connection. An open transaction rolls back first
// (database/sql would otherwise wait for it to end, which never happens
// when Close is called from inside BeforeCommit).
func (c *Conn) Close() error {
	c.mu.Lock()
	tx := c.tx
	already := c.closed
	c.closed, c.tx = true, nil
	c.mu.Unlock()
	if already {
		return nil
	}
	if tx != nil {
		_ = tx.Rollback()
	}
	return c.c.Close()
}

func (c *Conn) begin(ctx context.Context, op string) (*sql.Tx, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("sqlstore: %s: connection closed", op)
	}
	tx, err := c.c.BeginTx(ctx, nil)
	if err != nil {
		return nil, c.wrap(op, err)
	}
	c.tx = tx
	c.tear.ops++
	c.tear.opRan = 0
	return tx, nil
}

// end rolls back tx unless it was committed; deferred by every op, so a
// panic (BeforeCommit's) or an early return leaves nothing behind.
func (c *Conn) end(tx *sql.Tx) {
	_ = tx.Rollback()
	c.mu.Lock()
	if c.tx == tx {
		c.tx = nil
	}
	c.mu.Unlock()
}

func (c *Conn) commit(tx *sql.Tx, op string) error {
	if c.tear.failing && c.armedOp() {
		c.tear.failing = false
		_ = tx.Rollback()
		return ErrFailureUnreached
	}
	if c.tear.failed && c.armedOp() {
		c.tear.committedAfter = true // noted before the outcome: a commit tried at all is the bug
	}
	if err := tx.Commit(); err != nil {
		if errors.Is(err, sql.ErrTxDone) {
			return fmt.Errorf("sqlstore: %s: connection closed before COMMIT: rolled back", op)
		}
		return c.wrap(op, err)
	}
	return nil
}

func (c *Conn) wrap(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("sqlstore: %s: %w", op, err)
	}
	return fmt.Errorf("sqlstore: %s: %s", op, oneLine(err))
}

func (c *Conn) pg() bool { return c.s.dialect == Postgres }

// skipLocked is the row-locking clause of a claiming SELECT. SQLite has
// none: its immediate transactions already serialise writers.
func (c *Conn) skipLocked() string {
	if c.pg() {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// forUpdate locks the selected row on PostgreSQL, waiting for it (SQLite
// holds the write lock from BEGIN IMMEDIATE).
func (c *Conn) forUpdate() string {
	if c.pg() {
		return " FOR UPDATE"
	}
	return ""
}

// Enqueue inserts a job, visible now. The same key with the same payload
// hash returns the existing job (created=false); another hash is
// ErrIdempotencyConflict. DeadlineAt 0 means no deadline.
func (c *Conn) Enqueue(ctx context.Context, j NewJob) (model.JobID, bool, error) {
	const op = "enqueue"
	switch {
	case j.Key == "":
		return 0, false, errors.New("sqlstore: enqueue: empty idempotency key")
	case j.ID < 0:
		return 0, false, fmt.Errorf("sqlstore: enqueue: negative job id %d", j.ID)
	case j.MaxAttempts < 1:
		return 0, false, fmt.Errorf("sqlstore: enqueue: max attempts %d (want at least 1)", j.MaxAttempts)
	}
	deadline := j.DeadlineAt
	if deadline == 0 {
		deadline = math.MaxInt64
	}
	tx, err := c.begin(ctx, op)
	if err != nil {
		return 0, false, err
	}
	defer c.end(tx)
	cols := "tenant, document, version, idem_key, payload_hash, state, max_attempts, visible_at, ready_at, deadline_at, origin, created_at"
	vals := "$1, $2, $3, $4, $5, '" + sPending + "', $6, $7, $7, $8, $9, $7"
	args := []any{j.Tenant, j.Document, j.Version, j.Key, int64(j.PayloadHash), j.MaxAttempts, j.Now, deadline, int64(j.Origin)}
	if j.ID != 0 {
		cols, vals = "id, "+cols, "$10, "+vals
		args = append(args, int64(j.ID))
	}
	// ON CONFLICT with no target: two enqueues of one key and one caller's
	// id at once (the mirror races them) meet on either unique index, the
	// key's or the id's, and the second must wait for the first and be
	// deduplicated, not fail on the id's.
	var id model.JobID
	err = c.queryRow(ctx, tx, "INSERT INTO jobs ("+cols+") VALUES ("+vals+") ON CONFLICT DO NOTHING RETURNING id", args...).Scan(&id)
	created := err == nil
	if errors.Is(err, sql.ErrNoRows) {
		var hash int64
		err = c.queryRow(ctx, tx, "SELECT id, payload_hash FROM jobs WHERE idem_key = $1", j.Key).Scan(&id, &hash)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return 0, false, fmt.Errorf("sqlstore: enqueue: job id %d is another key's", j.ID)
		case err == nil && uint64(hash) != j.PayloadHash:
			return 0, false, fmt.Errorf("%w: key %q exists with another payload hash", ErrIdempotencyConflict, j.Key)
		}
	}
	if err != nil {
		return 0, false, c.wrap(op, err)
	}
	if err := c.commit(tx, op); err != nil {
		return 0, false, err
	}
	return id, created, nil
}

// LeaseNext leases the earliest ready job (see Ops). Like the model's
// LeaseNext, a job past its deadline is cancelled (deadline_exceeded) and
// one with no attempt left is dead-lettered (max_attempts_exceeded, with
// its DLQ row) instead, in that order, and the next job is tried; those
// changes commit even when no job is leased. The model's token budget
// check has no counterpart: the store does not track tokens.
func (c *Conn) LeaseNext(ctx context.Context, r LeaseReq) (Leased, bool, error) {
	const op = "lease"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return Leased{}, false, err
	}
	defer c.end(tx)
	live := " WHERE state IN ('" + sPending + "', '" + sRetryWait + "', '" + sLeased + "')"
	pick := "SELECT id, tenant, attempt, max_attempts, deadline_at, redrive_count, ready_at FROM jobs" +
		live + " AND ready_at <= $1 ORDER BY ready_at, id LIMIT 1" + c.skipLocked()
	args := []any{r.Now}
	if r.Ordered { // the head only: skipping a locked head would break the order
		pick = "SELECT id, tenant, attempt, max_attempts, deadline_at, redrive_count, ready_at FROM jobs" +
			live + " ORDER BY id LIMIT 1" + c.forUpdate()
		args = nil
	}
	for {
		var id model.JobID
		var tenant string
		var attempt, maxAttempts, redrives int32
		var deadline, ready int64
		err := c.queryRow(ctx, tx, pick, args...).Scan(&id, &tenant, &attempt, &maxAttempts, &deadline, &redrives, &ready)
		if errors.Is(err, sql.ErrNoRows) || err == nil && ready > r.Now { // the head is not ready yet
			return Leased{}, false, c.commit(tx, op)
		}
		if err != nil {
			return Leased{}, false, c.wrap(op, err)
		}
		switch {
		case r.Now >= deadline:
			_, err = c.exec(ctx, tx, "UPDATE jobs SET state = '"+sCancelled+"', last_code = $2 WHERE id = $1",
				id, model.CodeDeadlineExceeded.String())
		case attempt >= maxAttempts:
			code := model.CodeMaxAttemptsExceeded
			_, err = c.exec(ctx, tx, "UPDATE jobs SET state = '"+sDead+"', last_code = $2 WHERE id = $1", id, code.String())
			if err == nil {
				err = c.writeDLQ(ctx, tx, id, tenant, code, attempt, redrives, r.Now)
			}
		default:
			var fence int64
			if err := c.queryRow(ctx, tx, "UPDATE fence_counter SET value = value + 1 WHERE id = 1 RETURNING value").Scan(&fence); err != nil {
				return Leased{}, false, c.wrap(op, err)
			}
			l := Leased{Job: id, Fence: uint64(fence)}
			var payload int64
			err := c.queryRow(ctx, tx, "UPDATE jobs SET state = '"+sLeased+"', attempt = attempt + 1, holder = $2,"+
				" lease_until = $3, ready_at = $3, fence = $4 WHERE id = $1 RETURNING attempt, stage, idem_key, tenant, payload_hash",
				id, r.Worker, r.LeaseUntil, fence).Scan(&l.Attempt, &l.Stage, &l.Key, &l.Tenant, &payload)
			if err != nil {
				return Leased{}, false, c.wrap(op, err)
			}
			l.Payload = uint64(payload)
			if err := c.commit(tx, op); err != nil {
				return Leased{}, false, err
			}
			return l, true, nil
		}
		if err != nil {
			return Leased{}, false, c.wrap(op, err)
		}
	}
}

// writeDLQ upserts the job's DLQ row: like the model's WriteDLQ, writing
// again for the same job (a redriven job that dies again) overwrites it.
func (c *Conn) writeDLQ(ctx context.Context, tx *sql.Tx, job model.JobID, tenant string, reason model.Code, attempts, redrives int32, now model.Time) error {
	_, err := c.exec(ctx, tx, "INSERT INTO dlq (job, tenant, reason, attempts, redrive_count, at) VALUES ($1, $2, $3, $4, $5, $6)"+
		" ON CONFLICT (job) DO UPDATE SET tenant = excluded.tenant, reason = excluded.reason, attempts = excluded.attempts,"+
		" redrive_count = excluded.redrive_count, at = excluded.at",
		job, tenant, reason.String(), attempts, redrives, now)
	return err
}

// fenced runs a fenced UPDATE (its WHERE must end with the job, fence and
// leased-state test, job and fence being $1 and $2). On no row it reads
// the job to return the model's reason as a FenceError.
func (c *Conn) fenced(ctx context.Context, tx *sql.Tx, op string, job model.JobID, fence uint64, query string, args ...any) error {
	res, err := c.exec(ctx, tx, query, append([]any{job, int64(fence)}, args...)...)
	if err != nil {
		return c.wrap(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return c.wrap(op, err)
	}
	if n == 1 {
		return nil
	}
	return c.fenceError(ctx, tx, op, job, fence)
}

func (c *Conn) fenceError(ctx context.Context, tx *sql.Tx, op string, job model.JobID, fence uint64) error {
	fe := &FenceError{Op: op, Job: job, Presented: fence, Code: model.CodeNotFound}
	var cur int64
	var state string
	err := c.queryRow(ctx, tx, "SELECT fence, state FROM jobs WHERE id = $1", job).Scan(&cur, &state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fe
	case err != nil:
		return c.wrap(op, err)
	}
	fe.Current = uint64(cur)
	fe.State, _ = parseState(state)
	if fe.Current != fence {
		fe.Code = model.CodeStaleFence
	} else {
		fe.Code = model.CodeNotLeased
	}
	return fe
}

const fenceWhere = " WHERE id = $1 AND fence = $2 AND state = '" + "leased" + "'"

// Heartbeat extends the holder's lease to until.
func (c *Conn) Heartbeat(ctx context.Context, job model.JobID, fence uint64, until model.Time) error {
	return c.fencedOp(ctx, "heartbeat", job, fence, "UPDATE jobs SET lease_until = $3, ready_at = $3"+fenceWhere, until)
}

// Advance records the checkpoint: the stage a later lease resumes from.
// Like the model it never moves the checkpoint back.
func (c *Conn) Advance(ctx context.Context, job model.JobID, fence uint64, next model.Stage) error {
	if next > model.StageDone {
		return fmt.Errorf("sqlstore: advance: no stage %d", next)
	}
	return c.fencedOp(ctx, "advance", job, fence,
		"UPDATE jobs SET stage = CASE WHEN stage < $3 THEN $3 ELSE stage END"+fenceWhere, int(next))
}

// Ack marks the job succeeded (checkpoint done). As in the model, the
// holder's ack after its lease expired is accepted while its fence is
// still current.
func (c *Conn) Ack(ctx context.Context, job model.JobID, fence uint64, now model.Time) error {
	return c.fencedOp(ctx, "ack", job, fence,
		"UPDATE jobs SET state = '"+sSucceeded+"', stage = $3"+fenceWhere, int(model.StageDone))
}

// Retry puts the job in retry_wait until visibleAt, recording the code.
func (c *Conn) Retry(ctx context.Context, job model.JobID, fence uint64, visibleAt model.Time, code model.Code) error {
	return c.fencedOp(ctx, "retry", job, fence,
		"UPDATE jobs SET state = '"+sRetryWait+"', visible_at = $3, ready_at = $3, last_code = $4"+fenceWhere, visibleAt, code.String())
}

// Cancel is the model's Fail with a cancel decision (deadline passed
// before the retry): the job becomes cancelled with reason, never in the
// DLQ. (Not in Ops: an addition for the mirror.)
func (c *Conn) Cancel(ctx context.Context, job model.JobID, fence uint64, reason model.Code, now model.Time) error {
	return c.terminal(ctx, "cancel", job, fence, "state = '"+sCancelled+"'", reason)
}

func (c *Conn) fencedOp(ctx context.Context, op string, job model.JobID, fence uint64, query string, args ...any) error {
	tx, err := c.begin(ctx, op)
	if err != nil {
		return err
	}
	defer c.end(tx)
	if err := c.fenced(ctx, tx, op, job, fence, query, args...); err != nil {
		return err
	}
	return c.commit(tx, op)
}

// Dead dead-letters the job: state dead with the reason and its DLQ row
// (codes only), one transaction — the model's WriteDLQ + MarkDead without
// the crash window between them.
func (c *Conn) Dead(ctx context.Context, job model.JobID, fence uint64, reason model.Code, now model.Time) error {
	const op = "dead"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return err
	}
	defer c.end(tx)
	var tenant string
	var attempt, redrives int32
	err = c.queryRow(ctx, tx, "UPDATE jobs SET state = '"+sDead+"', last_code = $3"+fenceWhere+" RETURNING tenant, attempt, redrive_count",
		job, int64(fence), reason.String()).Scan(&tenant, &attempt, &redrives)
	if errors.Is(err, sql.ErrNoRows) {
		return c.fenceError(ctx, tx, op, job, fence)
	}
	if err != nil {
		return c.wrap(op, err)
	}
	if err := c.writeDLQ(ctx, tx, job, tenant, reason, attempt, redrives, now); err != nil {
		return c.wrap(op, err)
	}
	return c.commit(tx, op)
}

// Commit writes a stage's result and its outbox row in one transaction.
//
// Fencing: the model's correct design does not fence commits (its
// commitDedupe never looks at the lease): a zombie's commit is harmless
// because the result is keyed by (key, stage) and deduplicated by payload
// hash, and effects by event id. So by default neither does Commit, which
// keeps the mirror in step with the model. CommitReq.Fenced asks for the
// stricter check (ErrFenced unless the job is leased under r.Fence).
func (c *Conn) Commit(ctx context.Context, r CommitReq) (Committed, error) {
	const op = "commit"
	switch {
	case r.Key == "":
		return Committed{}, errors.New("sqlstore: commit: empty idempotency key")
	case r.Stage >= model.StageDone:
		return Committed{}, fmt.Errorf("sqlstore: commit: no stage %d to commit", r.Stage)
	case r.EventID < 0:
		return Committed{}, fmt.Errorf("sqlstore: commit: negative event id %d", r.EventID)
	}
	tx, err := c.begin(ctx, op)
	if err != nil {
		return Committed{}, err
	}
	defer c.end(tx)
	if r.Fenced {
		// FOR SHARE holds off a concurrent lease (which would change the
		// fence) until this transaction ends.
		lock := ""
		if c.pg() {
			lock = " FOR SHARE"
		}
		var fence int64
		var state string
		err := c.queryRow(ctx, tx, "SELECT fence, state FROM jobs WHERE id = $1"+lock, r.Job).Scan(&fence, &state)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return Committed{}, c.wrap(op, err)
		}
		if err != nil || uint64(fence) != r.Fence || state != sLeased {
			return Committed{}, c.fenceError(ctx, tx, op, r.Job, r.Fence)
		}
	}
	var one int
	err = c.queryRow(ctx, tx, "INSERT INTO results (idem_key, stage, tenant, job, payload_hash, value, event_id)"+
		" VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (idem_key, stage) DO NOTHING RETURNING 1",
		r.Key, int(r.Stage), r.Tenant, r.Job, int64(r.PayloadHash), int64(r.Value), int64(r.EventID)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		var hash, value, event int64
		if err := c.queryRow(ctx, tx, "SELECT payload_hash, value, event_id FROM results WHERE idem_key = $1 AND stage = $2",
			r.Key, int(r.Stage)).Scan(&hash, &value, &event); err != nil {
			return Committed{}, c.wrap(op, err)
		}
		if uint64(hash) != r.PayloadHash {
			return Committed{}, fmt.Errorf("%w: %s exists with another payload hash", ErrIdempotencyConflict, model.StageKey(r.Key, r.Stage))
		}
		// Nothing was written: committing or rolling back is the same.
		return Committed{EventID: model.EventID(event), Value: uint64(value), Deduped: true}, c.commit(tx, op)
	}
	if err != nil {
		return Committed{}, c.wrap(op, err)
	}
	event := r.EventID
	if event != 0 {
		_, err = c.exec(ctx, tx, "INSERT INTO outbox (event_id, idem_key, stage, tenant, job, committed_at) VALUES ($1, $2, $3, $4, $5, $6)",
			int64(event), r.Key, int(r.Stage), r.Tenant, r.Job, r.Now)
	} else {
		err = c.queryRow(ctx, tx, "INSERT INTO outbox (idem_key, stage, tenant, job, committed_at) VALUES ($1, $2, $3, $4, $5) RETURNING event_id",
			r.Key, int(r.Stage), r.Tenant, r.Job, r.Now).Scan(&event)
		if err == nil {
			_, err = c.exec(ctx, tx, "UPDATE results SET event_id = $3 WHERE idem_key = $1 AND stage = $2", r.Key, int(r.Stage), int64(event))
		}
	}
	if err != nil {
		return Committed{}, c.wrap(op, err)
	}
	if r.BeforeCommit != nil {
		r.BeforeCommit() // a panic here unwinds through end: rolled back
	}
	if err := c.commit(tx, op); err != nil {
		return Committed{}, err
	}
	return Committed{EventID: event, Value: r.Value}, nil
}

// ClaimUnpublished returns up to limit unpublished rows, oldest first. In
// PostgreSQL the rows are locked FOR UPDATE SKIP LOCKED, but only for the
// claim's own transaction: once it returns, another relay may claim the
// same rows. That is safe because the relay's next steps are idempotent
// where it matters: Publish appends a message (a duplicate is allowed,
// the broker is at-least-once and the consumer dedupes by event id) and
// MarkPublished of a published row changes nothing. Use ClaimWith to keep
// the locks while publishing.
func (c *Conn) ClaimUnpublished(ctx context.Context, limit int) ([]Row, error) {
	return c.ClaimWith(ctx, limit, nil)
}

// ClaimWith is ClaimUnpublished that calls hold with the rows while their
// locks are held (in PostgreSQL, concurrent claimers skip them until hold
// returns). An error from hold rolls the claim back and is returned.
func (c *Conn) ClaimWith(ctx context.Context, limit int, hold func([]Row) error) ([]Row, error) {
	const op = "claim"
	if limit < 1 {
		return nil, fmt.Errorf("sqlstore: claim: limit %d (want at least 1)", limit)
	}
	tx, err := c.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer c.end(tx)
	rows, err := c.query(ctx, tx, "SELECT event_id, idem_key, stage, tenant, job, committed_at, published FROM outbox"+
		" WHERE NOT published ORDER BY event_id LIMIT $1"+c.skipLocked(), limit)
	if err != nil {
		return nil, c.wrap(op, err)
	}
	var out []Row
	for rows.Next() {
		var r Row
		if err := rows.Scan(&r.EventID, &r.Key, &r.Stage, &r.Tenant, &r.Job, &r.CommittedAt, &r.Published); err != nil {
			rows.Close()
			return nil, c.wrap(op, err)
		}
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, c.wrap(op, err)
	}
	if hold != nil {
		if err := hold(out); err != nil {
			return nil, err
		}
	}
	return out, c.commit(tx, op)
}

// Publish appends a broker message for the event and returns its id.
// Publishing an event twice appends two messages (at least once).
func (c *Conn) Publish(ctx context.Context, event model.EventID, now model.Time) (int64, error) {
	const op = "publish"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return 0, err
	}
	defer c.end(tx)
	var msg int64
	err = c.queryRow(ctx, tx, "INSERT INTO broker (event_id, published_at) SELECT event_id, $2 FROM outbox WHERE event_id = $1 RETURNING msg_id",
		int64(event), now).Scan(&msg)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("sqlstore: publish: no outbox event %v", event)
	}
	if err != nil {
		return 0, c.wrap(op, err)
	}
	return msg, c.commit(tx, op)
}

// MarkPublished marks the row published; marking it again changes
// nothing (the first published_at stays, as in the model).
func (c *Conn) MarkPublished(ctx context.Context, event model.EventID, now model.Time) error {
	const op = "mark"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return err
	}
	defer c.end(tx)
	res, err := c.exec(ctx, tx, "UPDATE outbox SET published = TRUE, published_at = $2 WHERE event_id = $1 AND NOT published", int64(event), now)
	if err != nil {
		return c.wrap(op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var one int
		err := c.queryRow(ctx, tx, "SELECT 1 FROM outbox WHERE event_id = $1", int64(event)).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("sqlstore: mark: no outbox event %v", event)
		}
		if err != nil {
			return c.wrap(op, err)
		}
	}
	return c.commit(tx, op)
}

// Apply records the event in the consumer ledger and its effect (key,
// stage, tenant and job copied from the outbox row), one transaction.
func (c *Conn) Apply(ctx context.Context, event model.EventID, now model.Time) (bool, error) {
	const op = "apply"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return false, err
	}
	defer c.end(tx)
	applied, err := c.apply(ctx, tx, event, now)
	if err != nil {
		return false, c.wrapApply(err)
	}
	return applied, c.commit(tx, op)
}

// Deliver is the model's Deliver for a broker message: it counts the
// delivery, applies the message's event as Apply does, and acks the
// message, one transaction. (Not in Ops: an addition for callers that
// track broker messages.)
func (c *Conn) Deliver(ctx context.Context, msg int64, now model.Time) (event model.EventID, applied bool, err error) {
	const op = "deliver"
	tx, err := c.begin(ctx, op)
	if err != nil {
		return 0, false, err
	}
	defer c.end(tx)
	err = c.queryRow(ctx, tx, "UPDATE broker SET deliveries = deliveries + 1, acked = TRUE WHERE msg_id = $1 RETURNING event_id", msg).Scan(&event)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, fmt.Errorf("sqlstore: deliver: no broker message %d", msg)
	}
	if err != nil {
		return 0, false, c.wrap(op, err)
	}
	if applied, err = c.apply(ctx, tx, event, now); err != nil {
		return 0, false, c.wrapApply(err)
	}
	return event, applied, c.commit(tx, op)
}

var errNoEvent = errors.New("no outbox event")

func (c *Conn) apply(ctx context.Context, tx *sql.Tx, event model.EventID, now model.Time) (bool, error) {
	var one int
	err := c.queryRow(ctx, tx, "INSERT INTO ledger (event_id, at) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING 1", int64(event), now).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // seen: duplicate_event
	}
	if err != nil {
		return false, err
	}
	res, err := c.exec(ctx, tx, "INSERT INTO effects (event_id, idem_key, stage, tenant, job, at)"+
		" SELECT event_id, idem_key, stage, tenant, job, $2 FROM outbox WHERE event_id = $1", int64(event), now)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return false, fmt.Errorf("%w %v", errNoEvent, event)
	}
	return true, nil
}

func (c *Conn) wrapApply(err error) error {
	if errors.Is(err, errNoEvent) {
		return fmt.Errorf("sqlstore: apply: %v", err)
	}
	return c.wrap("apply", err)
}

// SetOnStatement sets OnStatement (nil clears it): for callers that hold
// the connection behind an interface, such as the mirror racing two
// connections statement by statement.
func (c *Conn) SetOnStatement(f func(n int)) { c.OnStatement = f }
