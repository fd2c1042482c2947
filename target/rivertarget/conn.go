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

// conn is one actor's connection. River's executor runs on the queue's
// pool, or inside the transaction a call opened.
type conn struct {
	q     *Queue
	actor string
}

func (c *conn) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	return insert(ctx, c.q.db.exec(), now, r)
}

// insert is the client's Insert and InsertTx: one row through
// JobInsertFastMany, unique by args when asked.
func insert(ctx context.Context, ex riverdriver.Executor, now target.Time, r target.InsertReq) (target.Inserted, error) {
	p, err := insertParams(now, r)
	if err != nil {
		return target.Inserted{}, err
	}
	res, err := ex.JobInsertFastMany(ctx, &riverdriver.JobInsertFastManyParams{Jobs: []*riverdriver.JobInsertFastParams{p}})
	if err != nil {
		return target.Inserted{}, err
	}
	if len(res) != 1 {
		return target.Inserted{}, fmt.Errorf("rivertarget: insert returned %d rows", len(res))
	}
	return target.Inserted{Job: target.JobID(res[0].Job.ID), Skipped: res[0].UniqueSkippedAsDuplicate}, nil
}

// insertParams is one insert's row, unique by args when asked.
func insertParams(now target.Time, r target.InsertReq) (*riverdriver.JobInsertFastParams, error) {
	args, err := encodeArgs(r.Args)
	if err != nil {
		return nil, err
	}
	p := &riverdriver.JobInsertFastParams{
		CreatedAt: wallp(now), EncodedArgs: args, Kind: r.Kind, MaxAttempts: r.MaxAttempts, Metadata: []byte("{}"),
		Priority: 1, Queue: queueName, ScheduledAt: wallp(now), State: rivertype.JobStateAvailable, Tags: []string{},
	}
	if r.Unique {
		p.UniqueKey, p.UniqueStates = uniqueKey(r.Kind, args), defaultUniqueStates
	}
	return p, nil
}

// Fetch is the producer's fetch: JobGetAvailable for this client.
func (c *conn) Fetch(ctx context.Context, now target.Time, max int) ([]target.Job, error) {
	res, err := c.q.db.exec().JobGetAvailable(ctx, &riverdriver.JobGetAvailableParams{
		ClientID: c.actor, MaxAttemptedBy: c.q.cfg.MaxAttemptedBy, MaxToLock: max, Now: wallp(now), Queue: queueName,
	})
	if err != nil {
		return nil, err
	}
	return jobsOf(availableJobs(res))
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

// Report is the executor's reportResult for one job, run through
// JobSetStateIfRunningMany as the completer does; the row read before it,
// in the same transaction, says whether the job was still running.
func (c *conn) Report(ctx context.Context, now target.Time, j target.Job, r target.Report) (target.Reported, error) {
	p, err := c.q.stateFor(now, j, r)
	if err != nil {
		return target.Reported{}, err
	}
	tx, err := c.q.db.begin(ctx)
	if err != nil {
		return target.Reported{}, err
	}
	defer func() { _ = tx.rollback(ctx) }()
	before, err := tx.exec().JobGetByID(ctx, &riverdriver.JobGetByIDParams{ID: int64(j.ID)})
	if errors.Is(err, rivertype.ErrNotFound) {
		return target.Reported{}, nil // deleted since its fetch: the completer's update finds no row
	}
	if err != nil {
		return target.Reported{}, err
	}
	after, err := setState(ctx, tx.exec(), now, p)
	if err != nil {
		return target.Reported{}, err
	}
	if err := tx.commit(ctx); err != nil {
		return target.Reported{}, err
	}
	st := states[after.State]
	return target.Reported{Applied: before.State == rivertype.JobStateRunning, State: st, ScheduledAt: virt(after.ScheduledAt),
		Attempt: after.Attempt}, nil
}

// stateFor is reportResult's choice of transition (internal/jobexecutor).
func (q *Queue) stateFor(now target.Time, j target.Job, r target.Report) (*riverdriver.JobSetStateIfRunningParams, error) {
	id := int64(j.ID)
	errData := func() []byte {
		b, _ := json.Marshal(rivertype.AttemptError{At: wall(now), Attempt: j.Attempt, Error: "durasim: handler error"})
		return b
	}
	switch r.Outcome {
	case target.Done:
		return riverdriver.JobSetStateCompleted(id, wall(now), nil), nil
	case target.Cancel:
		return riverdriver.JobSetStateCancelled(id, wall(now), errData(), nil), nil
	case target.Snooze:
		next := now + r.Snooze
		if r.Snooze <= q.cfg.SchedulerInterval {
			return riverdriver.JobSetStateSnoozedAvailable(id, wall(next), j.Attempt-1, nil), nil
		}
		return riverdriver.JobSetStateSnoozed(id, wall(next), j.Attempt-1, nil), nil
	case target.Errored:
		if j.Attempt >= j.MaxAttempts {
			return riverdriver.JobSetStateDiscarded(id, wall(now), errData(), nil), nil
		}
		next := now + q.retryDelay(j.Errors+1)
		if next-now <= q.cfg.SchedulerInterval {
			return riverdriver.JobSetStateErrorAvailable(id, wall(next), errData(), nil), nil
		}
		return riverdriver.JobSetStateErrorRetryable(id, wall(next), errData(), nil), nil
	}
	return nil, fmt.Errorf("rivertarget: no transition for outcome %s", r.Outcome)
}

// setState runs one transition through JobSetStateIfRunningMany, as the
// completer and JobCompleteTx do, and returns the row River returned.
func setState(ctx context.Context, ex riverdriver.Executor, now target.Time, p *riverdriver.JobSetStateIfRunningParams) (*rivertype.JobRow, error) {
	rows, err := ex.JobSetStateIfRunningMany(ctx, &riverdriver.JobSetStateIfRunningManyParams{
		ID: []int64{p.ID}, Attempt: []*int{p.Attempt}, ErrData: [][]byte{p.ErrData}, FinalizedAt: []*time.Time{p.FinalizedAt},
		MetadataDoMerge: []bool{false}, MetadataUpdates: [][]byte{nil}, Now: wallp(now), ScheduledAt: []*time.Time{p.ScheduledAt},
		State: []rivertype.JobState{p.State},
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, target.ErrNotFound
	}
	return rows[0], nil
}

// Stuck is the rescuer's first query: running jobs attempted before the
// stuck horizon.
func (c *conn) Stuck(ctx context.Context, now target.Time) ([]target.Job, error) {
	rows, err := c.q.db.exec().JobGetStuck(ctx, &riverdriver.JobGetStuckParams{Max: 1000, StuckHorizon: wall(now - c.q.cfg.RescueAfter)})
	if err != nil {
		return nil, err
	}
	return jobsOf(rows)
}

// Rescue is the rest of the rescuer's pass: makeRetryDecision for each
// stuck job, then JobRescueMany; the rows read back after it say which
// jobs took the new state.
func (c *conn) Rescue(ctx context.Context, now target.Time, stuck []target.Job) ([]target.Rescued, error) {
	p := riverdriver.JobRescueManyParams{StuckHorizon: wall(now - c.q.cfg.RescueAfter)}
	var want []target.Rescued
	asked, err := c.stuckCancels(ctx, stuck)
	if err != nil {
		return nil, err
	}
	for _, j := range stuck {
		if !asked[int64(j.ID)] && now-j.AttemptedAt < c.q.cfg.JobTimeout {
			continue // not timed out yet: ignored
		}
		errData, err := json.Marshal(rivertype.AttemptError{At: wall(now), Attempt: max(j.Attempt, 0), Error: "Stuck job rescued by JobRescuer"})
		if err != nil {
			return nil, err
		}
		r := target.Rescued{Job: j.ID, State: target.Discarded, ScheduledAt: j.ScheduledAt}
		var finalized *time.Time
		if asked[int64(j.ID)] {
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
	before, err := c.rescueCounts(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if _, err := c.q.db.exec().JobRescueMany(ctx, &p); err != nil {
		return nil, err
	}
	after, err := c.rescueCounts(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	for i := range want {
		// JobRescueMany counts each rescue in the row's metadata
		// (river:rescue_count): a row it left (no longer running, or
		// claimed again since) keeps its count, whatever state it is in.
		id := int64(want[i].Job)
		want[i].Applied = after[id] == before[id]+1
	}
	return want, nil
}

// rescueCounts reads each job's river:rescue_count.
func (c *conn) rescueCounts(ctx context.Context, ids []int64) (map[int64]int, error) {
	rows, err := c.q.db.exec().JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: ids})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		var m struct {
			N int `json:"river:rescue_count"`
		}
		if len(r.Metadata) > 0 {
			if err := json.Unmarshal(r.Metadata, &m); err != nil {
				return nil, fmt.Errorf("rivertarget: job %d: metadata: %w", r.ID, err)
			}
		}
		out[r.ID] = m.N
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
	res, err := c.q.db.exec().JobSchedule(ctx, &riverdriver.JobScheduleParams{Max: 10_000, Now: wallp(now)})
	if err != nil {
		return nil, err
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

// Retry is the client's JobRetry, an operator's call.
func (c *conn) Retry(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	r, err := c.q.db.exec().JobRetry(ctx, &riverdriver.JobRetryParams{ID: int64(id), Now: wallp(now)})
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
	tx, err := c.q.db.begin(ctx)
	if err != nil {
		return nil, err
	}
	return &handlerTx{tx: tx, actor: c.actor}, nil
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
	lo, hi := DefaultBackoff.Bound(errors)
	lo, hi = lo/target.Millisecond, hi/target.Millisecond
	return (lo + q.rand.Int64N(hi-lo+1)) * target.Millisecond
}
