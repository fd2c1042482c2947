package rivertarget

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/target"
)

// Set by tests, each runs every query of its kind the database judges
// certain to find nothing (see idler) anyway, and fails the call if it
// found a job: VerifyIdlePolls River's polls, VerifyIdleSchedules its
// scheduler's passes, VerifyIdleStuck its rescuer's reads of stuck jobs.
var VerifyIdlePolls, VerifyIdleSchedules, VerifyIdleStuck bool

// idler is a database that can tell that River's query k (a poll, a
// scheduler pass, a read of stuck jobs) at bound (its now, or its stuck
// horizon) is certain to find nothing, so that its SQL is skipped. Only
// SQL certain to be a no-op is skipped: each of these changes nothing when
// it finds nothing, so River's answer and the database after it are as if
// it ran, and River's code decides all it decides from that answer.
type idler interface {
	certainEmpty(ctx context.Context, k quietKind, bound time.Time) (bool, error)
}

// certainEmpty is the database's judgement of River's query k at bound
// (false: the database judges none).
func (c *conn) certainEmpty(ctx context.Context, k quietKind, bound time.Time) (bool, error) {
	if idle, ok := c.db.(idler); ok {
		return idle.certainEmpty(ctx, k, bound)
	}
	return false, nil
}

// conn is one actor's connection. River's executor runs on the queue's
// pool, or inside the transaction a call opened.
type conn struct {
	q     *Queue
	actor string
	db    db   // the queue's database, or in races mode the actor's own connection to it
	code  code // River's code on db
	// held is the rows this client fetched, by id, as River's producer
	// hands them to its executor.
	held map[int64]*rivertype.JobRow
}

func (c *conn) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	return c.code.insert(ctx, nil, now, r)
}

// Fetch is the producer's fetch: JobGetAvailable for this client.
func (c *conn) Fetch(ctx context.Context, now target.Time, max int) ([]target.Job, error) {
	sure, err := c.certainEmpty(ctx, quietPoll, wall(now))
	if err != nil {
		return nil, err
	}
	if sure && !VerifyIdlePolls {
		return []target.Job{}, nil // what River's poll would have returned, having changed nothing
	}
	res, err := c.db.exec().JobGetAvailable(ctx, &riverdriver.JobGetAvailableParams{
		ClientID: c.actor, MaxAttemptedBy: c.q.cfg.MaxAttemptedBy, MaxToLock: max, Now: wallp(now), Queue: queueName,
	})
	if err != nil {
		return nil, err
	}
	rows := availableJobs(res)
	if sure && len(rows) > 0 {
		return nil, fmt.Errorf("rivertarget: a poll judged certain to be empty found %d jobs", len(rows))
	}
	for _, r := range rows {
		c.held[r.ID] = r
	}
	return jobsOf(rows)
}

func jobsOf(rows []*rivertype.JobRow) ([]target.Job, error) {
	out := make([]target.Job, 0, len(rows))
	for _, r := range rows {
		j, err := jobOf(r)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// Report is River's executor and completer working the job this client
// fetched (rivertest.Worker: the executor's reportResult or reportError,
// the inline completer's JobSetStateIfRunningMany), its work ending as r
// says, in one transaction; the job's state durasim reads before it, in
// the same transaction, says whether the job was still running.
func (c *conn) Report(ctx context.Context, now target.Time, j target.Job, r target.Report) (target.Reported, error) {
	held, err := c.holding(j)
	if err != nil {
		return target.Reported{}, err
	}
	delete(c.held, held.ID)
	tx, err := c.db.begin(ctx)
	if err != nil {
		return target.Reported{}, err
	}
	defer func() { _ = tx.rollback(ctx) }()
	if c.q.races {
		// Another actor's open transaction may hold the row: wait for it
		// here, so that the read below is of the row River's completer
		// then writes (under READ COMMITTED its update would wait and
		// then see the committed row, while a read before it would not).
		if _, err := tx.run(ctx, "SELECT id FROM river_job WHERE id = $1 FOR UPDATE", held.ID); err != nil {
			return target.Reported{}, err
		}
	}
	// durasim's read, of the state alone: River decodes none of the row.
	before, err := tx.state(ctx, held.ID)
	if errors.Is(err, rivertype.ErrNotFound) {
		return target.Reported{}, nil // deleted since its fetch: the completer's update finds no row
	}
	if err != nil {
		return target.Reported{}, err
	}
	after, err := c.code.work(ctx, tx, now, held, r)
	if err != nil {
		return target.Reported{}, err
	}
	if after == nil {
		// River's completer emitted no completion: the row as it is now.
		if after, err = tx.exec().JobGetByID(ctx, &riverdriver.JobGetByIDParams{ID: held.ID}); err != nil {
			return target.Reported{}, err
		}
	}
	if err := tx.commit(ctx); err != nil {
		return target.Reported{}, err
	}
	st := states[after.State]
	return target.Reported{Applied: before == rivertype.JobStateRunning, State: st, ScheduledAt: virt(after.ScheduledAt),
		Attempt: after.Attempt}, nil
}

// holding is the row this client fetched as j.
func (c *conn) holding(j target.Job) (*rivertype.JobRow, error) {
	h := c.held[int64(j.ID)]
	if h == nil || h.Attempt != j.Attempt {
		return nil, fmt.Errorf("rivertarget: %s reports job %d at attempt %d, which it did not fetch", c.actor, j.ID, j.Attempt)
	}
	return h, nil
}

// Stuck is the rescuer's first query: running jobs attempted before the
// stuck horizon.
func (c *conn) Stuck(ctx context.Context, now target.Time) ([]target.Job, error) {
	horizon := wall(now - c.q.cfg.RescueAfter)
	sure, err := c.certainEmpty(ctx, quietStuck, horizon)
	if err != nil {
		return nil, err
	}
	if sure && !VerifyIdleStuck {
		return []target.Job{}, nil // what River's read would have returned
	}
	rows, err := c.db.exec().JobGetStuck(ctx, &riverdriver.JobGetStuckParams{Max: 1000, StuckHorizon: horizon})
	if err != nil {
		return nil, err
	}
	if sure && len(rows) > 0 {
		return nil, fmt.Errorf("rivertarget: a read of stuck jobs judged certain to find none found %d jobs", len(rows))
	}
	return jobsOf(rows)
}

// Rescue is the rest of the rescuer's pass: makeRetryDecision for each
// stuck job, then JobRescueMany; the rows read back after it say which
// jobs took the new state.
func (c *conn) Rescue(ctx context.Context, now target.Time, stuck []target.Job) ([]target.Rescued, error) {
	p := riverdriver.JobRescueManyParams{StuckHorizon: wall(now - c.q.cfg.RescueAfter)}
	var want []target.Rescued
	ids := make([]int64, len(stuck))
	for i, j := range stuck {
		ids[i] = int64(j.ID)
	}
	before, err := c.metaOf(ctx, ids) // the cancels asked, and each job's count of rescues before JobRescueMany
	if err != nil {
		return nil, err
	}
	for _, j := range stuck {
		// River's makeRetryDecision: the worker's timeout, else the
		// client's; none (negative) is never rescued, and a job not
		// timed out yet is left alone. A cancel asked comes first.
		if timeout := cmp.Or(j.Timeout, c.q.cfg.JobTimeout); !before[int64(j.ID)].cancelAsked && (timeout < 0 || timeout > 0 && now-j.AttemptedAt < timeout) {
			continue
		}
		errData, err := json.Marshal(rivertype.AttemptError{At: wall(now), Attempt: max(j.Attempt, 0), Error: "Stuck job rescued by JobRescuer"})
		if err != nil {
			return nil, err
		}
		r := target.Rescued{Job: j.ID, State: target.Discarded, ScheduledAt: j.ScheduledAt}
		var finalized *time.Time
		if before[int64(j.ID)].cancelAsked {
			r.State, finalized = target.Cancelled, wallp(now) // cancelled from outside: not retried
		} else if j.Attempt < max(j.MaxAttempts, 0) {
			r.State, r.ScheduledAt = target.Retryable, now+c.q.retryDelay(j.Errors+1)
		} else {
			finalized = wallp(now)
		}
		p.ID = append(p.ID, int64(j.ID))
		p.Error = append(p.Error, errData)
		p.FinalizedAt = append(p.FinalizedAt, finalized)
		p.ScheduledAt = append(p.ScheduledAt, wall(r.ScheduledAt))
		p.State = append(p.State, string(riverState(r.State)))
		want = append(want, r)
	}
	if len(want) == 0 {
		return nil, nil
	}
	if _, err := c.db.exec().JobRescueMany(ctx, &p); err != nil {
		return nil, err
	}
	after, err := c.metaOf(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	for i := range want {
		// JobRescueMany counts each rescue in the row's metadata
		// (river:rescue_count): a row it left (no longer running, or
		// claimed again since) keeps its count, whatever state it is in.
		id := int64(want[i].Job)
		want[i].Applied = after[id].rescues == before[id].rescues+1
	}
	return want, nil
}

// rowMeta is what durasim reads of a job's metadata around a rescue:
// whether JobCancel asked its cancel (cancel_attempted_at: River's
// rescuer cancels such a stuck job rather than retrying it), and River's
// count of its rescues (river:rescue_count).
type rowMeta struct {
	cancelAsked bool
	rescues     int
}

// metaOf reads the metadata of the jobs ids (none: no read).
func (c *conn) metaOf(ctx context.Context, ids []int64) (map[int64]rowMeta, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := c.db.exec().JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: ids})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]rowMeta, len(rows))
	for _, r := range rows {
		var m struct {
			At string `json:"cancel_attempted_at"`
			N  int    `json:"river:rescue_count"`
		}
		if len(r.Metadata) > 0 {
			if err := json.Unmarshal(r.Metadata, &m); err != nil {
				return nil, fmt.Errorf("rivertarget: job %d: metadata: %w", r.ID, err)
			}
		}
		out[r.ID] = rowMeta{cancelAsked: m.At != "", rescues: m.N}
	}
	return out, nil
}

func riverState(s target.State) rivertype.JobState {
	switch s {
	case target.Retryable:
		return rivertype.JobStateRetryable
	case target.Discarded:
		return rivertype.JobStateDiscarded
	case target.Cancelled:
		return rivertype.JobStateCancelled
	}
	panic("rivertarget: a rescue sets no state " + s.String())
}

// Schedule is the job scheduler's pass.
func (c *conn) Schedule(ctx context.Context, now target.Time) ([]target.Rescued, error) {
	sure, err := c.certainEmpty(ctx, quietSchedule, wall(now))
	if err != nil {
		return nil, err
	}
	if sure && !VerifyIdleSchedules {
		return []target.Rescued{}, nil // what River's pass would have returned, having changed nothing
	}
	res, err := c.db.exec().JobSchedule(ctx, &riverdriver.JobScheduleParams{Max: 10_000, Now: wallp(now)})
	if err != nil {
		return nil, err
	}
	if sure && len(res) > 0 {
		return nil, fmt.Errorf("rivertarget: a scheduler pass judged certain to move nothing moved %d jobs", len(res))
	}
	// The rows come back in no set order (PostgreSQL's UPDATE ... RETURNING
	// and SQLite's differ): by id, so both databases print one trace.
	slices.SortFunc(res, func(a, b *riverdriver.JobScheduleResult) int { return cmp.Compare(a.Job.ID, b.Job.ID) })
	out := make([]target.Rescued, 0, len(res))
	for _, r := range res {
		st := target.Available
		if r.ConflictDiscarded {
			st = target.Discarded
		}
		out = append(out, target.Rescued{Job: target.JobID(r.Job.ID), State: st, ScheduledAt: virt(r.Job.ScheduledAt), Applied: true})
	}
	return out, nil
}

// Retry is River's client's JobRetry, an operator's call.
func (c *conn) Retry(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	r, err := c.code.retry(ctx, now, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return target.Job{}, target.ErrNotFound
	}
	if uniqueViolation(err) {
		return target.Job{}, target.ErrUniqueConflict
	}
	if err != nil {
		return target.Job{}, err
	}
	return jobOf(r)
}

func (c *conn) Begin(ctx context.Context) (target.Tx, error) {
	tx, err := c.db.begin(ctx)
	if err != nil {
		return nil, err
	}
	return &handlerTx{tx: tx, c: c}, nil
}

// uniqueViolation reports whether err is the database refusing a second
// row under river_job's unique index (SQLite's UNIQUE constraint,
// PostgreSQL's unique_violation, 23505).
func uniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// retryDelay is River's default retry policy (attempt⁴ s by the number of
// errors, ±10%), its jitter drawn from the seed, in whole milliseconds.
func (q *Queue) retryDelay(errors int) target.Time {
	q.randMu.Lock()
	defer q.randMu.Unlock()
	lo, hi := DefaultBackoff.Bound(errors)
	lo, hi = lo/target.Millisecond, hi/target.Millisecond
	return (lo + q.rand.Int64N(hi-lo+1)) * target.Millisecond
}
