package riverchaos

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/target"
)

// snapshot reads every job (River's driver: JobGetByIDMany) and every
// effect back, in id order, with times relative to base.
func snapshot(ctx context.Context, pool *pgxpool.Pool, base time.Time) (target.Snapshot, error) {
	var snap target.Snapshot
	ids, err := jobIDs(ctx, pool)
	if err != nil || len(ids) == 0 {
		return snap, err
	}
	rows, err := riverpgxv5.New(pool).GetExecutor().JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: ids})
	if err != nil {
		return snap, err
	}
	slices.SortFunc(rows, func(a, b *rivertype.JobRow) int { return cmp.Compare(a.ID, b.ID) })
	for _, r := range rows {
		j, err := jobOf(r, base)
		if err != nil {
			return snap, err
		}
		snap.Jobs = append(snap.Jobs, j)
	}
	snap.Effects, err = workload.PGEffects(ctx, pool, base)
	return snap, err
}

func jobIDs(ctx context.Context, pool *pgxpool.Pool) ([]int64, error) {
	r, err := pool.Query(ctx, "SELECT id FROM river_job ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var ids []int64
	for r.Next() {
		var id int64
		if err := r.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, r.Err()
}

// jobOf is River's row as the seam's job.
func jobOf(r *rivertype.JobRow, base time.Time) (target.Job, error) {
	var a DocArgs
	if err := json.Unmarshal(r.EncodedArgs, &a); err != nil {
		return target.Job{}, fmt.Errorf("job %d: args: %w", r.ID, err)
	}
	st, ok := target.ParseState(string(r.State))
	if !ok {
		return target.Job{}, fmt.Errorf("job %d: unknown state %q", r.ID, r.State)
	}
	rel := func(t *time.Time) target.Time {
		if t == nil {
			return 0
		}
		return t.Sub(base).Nanoseconds()
	}
	return target.Job{ID: target.JobID(r.ID), Kind: r.Kind, Args: a.Target(), State: st, Attempt: r.Attempt, MaxAttempts: r.MaxAttempts,
		AttemptedBy: slices.Clone(r.AttemptedBy), AttemptedAt: rel(r.AttemptedAt), ScheduledAt: rel(&r.ScheduledAt), FinalizedAt: rel(r.FinalizedAt),
		Errors: len(r.Errors), Unique: len(r.UniqueKey) > 0}, nil
}
