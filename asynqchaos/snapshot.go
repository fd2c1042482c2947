package asynqchaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/target"
)

// snapshot reads every task the run enqueued back through asynq's
// Inspector (GetTaskInfo of j1 … j<docs>; a task asynq lost is absent,
// and the checks say so) and every effect, with times relative to base.
func snapshot(ctx context.Context, insp *asynq.Inspector, pool *pgxpool.Pool, docs int, base time.Time) (target.Snapshot, error) {
	var snap target.Snapshot
	for i := 1; i <= docs; i++ {
		ti, err := insp.GetTaskInfo(Queue, TaskID(i))
		if errors.Is(err, asynq.ErrTaskNotFound) {
			continue
		}
		if err != nil {
			return snap, fmt.Errorf("task %s: %w", TaskID(i), err)
		}
		j, err := jobOf(ti, base)
		if err != nil {
			return snap, err
		}
		snap.Jobs = append(snap.Jobs, j)
	}
	var err error
	snap.Effects, err = workload.PGEffects(ctx, pool, base)
	return snap, err
}

// states maps asynq's task states to the seam's.
var states = map[asynq.TaskState]target.State{
	asynq.TaskStatePending: target.Available, asynq.TaskStateScheduled: target.Scheduled, asynq.TaskStateActive: target.Running,
	asynq.TaskStateRetry: target.Retryable, asynq.TaskStateArchived: target.Discarded, asynq.TaskStateCompleted: target.Completed,
}

// jobOf is asynq's task as the seam's job. asynq counts retries
// (Retried), not attempts: a task being worked, or finished by its last
// run (completed, archived), is at attempt Retried+1; one waiting
// (pending, scheduled, retry) at Retried, the attempts it has had. Its
// errors are the retries plus, once archived, the error that archived
// it.
func jobOf(ti *asynq.TaskInfo, base time.Time) (target.Job, error) {
	id, err := jobOfID(ti.ID)
	if err != nil {
		return target.Job{}, err
	}
	var a workload.DocArgs
	if err := json.Unmarshal(ti.Payload, &a); err != nil {
		return target.Job{}, fmt.Errorf("task %s: payload: %w", ti.ID, err)
	}
	st, ok := states[ti.State]
	if !ok {
		return target.Job{}, fmt.Errorf("task %s: state %v has no counterpart", ti.ID, ti.State)
	}
	attempt, errs := ti.Retried, ti.Retried
	switch st {
	case target.Running, target.Completed:
		attempt++
	case target.Discarded:
		attempt++
		errs++
	}
	rel := func(t time.Time) target.Time {
		if t.IsZero() {
			return 0
		}
		return t.Sub(base).Nanoseconds()
	}
	j := target.Job{ID: target.JobID(id), Kind: ti.Type, Args: a.Target(), State: st, Attempt: attempt, MaxAttempts: ti.MaxRetry + 1,
		ScheduledAt: rel(ti.NextProcessAt), Errors: errs, Unique: true}
	if st == target.Completed {
		j.FinalizedAt = rel(ti.CompletedAt)
	}
	return j, nil
}
