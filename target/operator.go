package target

import (
	"context"
	"errors"
)

// Operator is what a queue offers beyond a worker's calls ([Conn]): an
// operator's calls on one job, another writer changing a job's row under
// the queue, and a client's batch insert. A queue that offers them is
// reached by the workload's outside cancels, deletes, metadata updates,
// out-of-band writes and batch inserts; the oracles read each call's
// effect from what it returned and from the queue's Policy.
type Operator interface {
	// Cancel asks that a job be cancelled from outside (River's
	// JobCancel): a job not yet finished is cancelled, or, running, as
	// the policy says (Policy.CancelAsks); a finished one is returned
	// as it is.
	Cancel(ctx context.Context, now Time, j JobID) (Job, error)
	// Delete deletes a job that is not running (River's JobDelete); a
	// running one is refused (ErrRunning) and kept.
	Delete(ctx context.Context, now Time, j JobID) (Job, error)
	// SetMetadata merges key: value into a job's metadata (River's
	// JobUpdate); nothing else of the row changes.
	SetMetadata(ctx context.Context, now Time, j JobID, key, value string) (Job, error)
	// OutOfBand is another writer's update of a job's row under the
	// queue (a user's SQL): it appends n errors to the row's error
	// history and changes no state.
	OutOfBand(ctx context.Context, now Time, j JobID, n int) (Job, error)
	// InsertMany inserts the jobs in one batch (River's InsertMany), in
	// order; a unique job whose args a live job holds is returned
	// Skipped, and one whose args an earlier one of the batch has is
	// skipped too, or the whole batch refused (ErrBatchRepeats), as the
	// policy says (Policy.BatchRepeatsRefused).
	InsertMany(ctx context.Context, now Time, rs []InsertReq) ([]Inserted, error)
}

// ErrRunning is what Delete returns for a running job.
var ErrRunning = errors.New("target: job running")

// ErrBatchRepeats is what InsertMany returns for a batch that repeats a
// unique job's args, from a queue whose policy refuses such a batch whole
// (Policy.BatchRepeatsRefused): nothing of it is inserted.
var ErrBatchRepeats = errors.New("target: a unique key appears more than once in the batch")
