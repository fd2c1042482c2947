package riverchaos

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/target"
)

// docWorker is the River worker of the document kind: its Work is the
// workload's handler of the run's design.
type docWorker struct {
	river.WorkerDefaults[DocArgs]
	h *workload.Handler
}

// Work hands the job to the workload's handler; River's fetch set
// attempted_at, the fetch line's start.
func (w *docWorker) Work(ctx context.Context, job *river.Job[DocArgs]) error {
	j := workload.Job{ID: job.ID, Attempt: job.Attempt, Args: job.Args, Own: job}
	if job.AttemptedAt != nil {
		j.Fetched = job.AttemptedAt.UnixNano()
	}
	return w.h.Handle(ctx, j)
}

// completeTx is River's transactional completion: JobCompleteTx in the
// handler's transaction, which returns the job's row.
func completeTx(ctx context.Context, tx workload.Tx, j workload.Job) (target.State, int, error) {
	got, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx.Raw().(pgx.Tx), j.Own.(*river.Job[DocArgs]))
	if err != nil {
		return 0, 0, err
	}
	st, _ := target.ParseState(string(got.State))
	return st, got.Attempt, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
