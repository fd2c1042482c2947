package target

import (
	"context"
	"errors"
)

// Time is virtual time: nanoseconds since the scheduler's epoch
// (scheduler.Epoch, 2026-01-01 UTC). A queue turns it into its own
// timestamps and back.
type Time = int64

// Time units.
const (
	Millisecond Time = 1_000_000
	Second           = 1000 * Millisecond
)

// JobID is a job's id as the queue gave it.
type JobID int64

// Queue is a queue durasim can drive. One run at a time uses it: Reset
// empties it for a seed, each actor gets a Conn, Snapshot reads the
// durable state back at the end.
type Queue interface {
	// Name is the target's -target value ("river").
	Name() string
	// Version is the target's release under test ("v0.51.2").
	Version() string
	// Backend is the database ("sqlite", "postgres").
	Backend() string
	// Policy is what the queue's client logic promises about time, for
	// the oracles to check and the faults to aim at.
	Policy() Policy
	// Reset empties the queue's tables for a new seed; rand is where its
	// client logic draws the randomness it needs (retry jitter), so the
	// seed decides it.
	Reset(ctx context.Context, rand Rand) error
	// Conn is the connection of one actor ("w3", "rescuer"): the name a
	// queue records as who attempted a job.
	Conn(actor string) Conn
	// Snapshot reads every job and every effect back, in id order.
	Snapshot(ctx context.Context) (Snapshot, error)
	// Close releases the database.
	Close() error
}

// Policy is a queue's timing as its client configures it.
type Policy struct {
	// RescueAfter: a job running longer is stuck, and a rescue pass takes
	// it back.
	RescueAfter Time
	// JobTimeout: the client cancels the context of a job's work this
	// long after its fetch; the handler's calls made with it fail after
	// that (0: never).
	JobTimeout Time
	// AvailableWithin: a retry or snooze due within this span may make
	// the job available at once (with its scheduled time still ahead).
	AvailableWithin Time
	// RetryBound is the range of the delay the retry policy gives after a
	// job's errors-th error.
	RetryBound func(errors int) (lo, hi Time)
}

// Rand is the randomness a queue's client logic may draw.
type Rand interface {
	// Int64N returns a uniform integer in [0, n).
	Int64N(n int64) int64
}

// Conn is one actor's connection. Every call is one transaction of the
// queue's (or, for Tx, part of the handler's), and is given the virtual
// time it runs at.
type Conn interface {
	// Insert adds a job (a client's call); a unique insert of args a live
	// job already has returns that job, Skipped.
	Insert(ctx context.Context, now Time, r InsertReq) (Inserted, error)
	// Fetch locks up to max available jobs for this actor and returns
	// them running, each with its attempt counted.
	Fetch(ctx context.Context, now Time, max int) ([]Job, error)
	// Report tells the queue how the work of a fetched job ended, as the
	// queue's own client would: completed, retried or discarded after an
	// error, cancelled, snoozed. A job no longer running is left as it is
	// (Reported.Applied false).
	Report(ctx context.Context, now Time, j Job, r Report) (Reported, error)
	// Stuck lists the running jobs attempted before the queue's stuck
	// horizon: the first half of a rescue pass.
	Stuck(ctx context.Context, now Time) ([]Job, error)
	// Rescue decides, for jobs Stuck listed, whether each is retried or
	// discarded, and writes that: the second half of a rescue pass.
	Rescue(ctx context.Context, now Time, stuck []Job) ([]Rescued, error)
	// Schedule makes the scheduled and retryable jobs whose time has come
	// available (or discards one whose unique args another live job
	// holds), and returns them.
	Schedule(ctx context.Context, now Time) ([]Rescued, error)
	// Retry is an operator asking that a job run again (from any state
	// but running): available now.
	Retry(ctx context.Context, now Time, j JobID) (Job, error)
	// Begin opens a handler's transaction on this connection.
	Begin(ctx context.Context) (Tx, error)
}

// Tx is a handler's transaction: what it writes commits with the job's
// completion, or rolls back with it. A crash before Commit is a Rollback.
type Tx interface {
	// Effect writes the handler's effect; with Dedupe, only if no effect
	// under its key was written before (Applied false otherwise).
	Effect(ctx context.Context, e Effect) (applied bool, err error)
	// Complete marks a fetched job completed in this transaction, as the
	// target's transactional completion does, and returns the row the
	// target returned (its State may not be completed).
	Complete(ctx context.Context, now Time, j Job) (Job, error)
	// Insert adds a job in this transaction (an outbox row).
	Insert(ctx context.Context, now Time, r InsertReq) (Inserted, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// ErrNotFound is what Retry returns for a job the queue does not have.
var ErrNotFound = errors.New("target: job not found")

// ErrUniqueConflict is what Retry returns when another live job holds the
// job's unique args: bringing it back would make two.
var ErrUniqueConflict = errors.New("target: another live job holds its unique args")

// Args is what a job carries: whose document it is.
type Args struct {
	Tenant  string
	Doc     string
	Version int
	// Source is the job whose handler inserted this one (an outbox row;
	// 0: a client's insert).
	Source JobID
}

// InsertReq is one insert.
type InsertReq struct {
	Kind        string
	Args        Args
	MaxAttempts int
	// Unique: one live job per (kind, args), as River's UniqueOpts{ByArgs}.
	Unique bool
}

// Inserted is what an insert returned.
type Inserted struct {
	Job     JobID
	Skipped bool // a unique insert that found its job already there
}

// Job is a job as the queue returned it or keeps it.
type Job struct {
	ID          JobID
	Kind        string
	Args        Args
	State       State
	Attempt     int
	MaxAttempts int
	AttemptedBy []string
	AttemptedAt Time // 0: never attempted
	ScheduledAt Time
	FinalizedAt Time // 0: not finalized
	Errors      int  // attempt errors recorded on the row
	Unique      bool
}

// Outcome is how a handler's work ended, as its worker reports it.
type Outcome uint8

// The outcomes.
const (
	OutcomeNone Outcome = iota
	Done                // the handler returned nil: complete the job
	Errored             // the handler returned an error: retry or discard
	Cancel              // the handler asked to cancel the job (River's JobCancel)
	Snooze              // the handler asked to run again later, not counting the attempt
	outcomeCount
)

var outcomeNames = [outcomeCount]string{"none", "done", "error", "cancel", "snooze"}

func (o Outcome) String() string {
	if o >= outcomeCount {
		return "outcome?"
	}
	return outcomeNames[o]
}

// ParseOutcome reads an outcome's String back.
func ParseOutcome(s string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), true
		}
	}
	return OutcomeNone, false
}

// Report is how a worker reports a job's work.
type Report struct {
	Outcome Outcome
	Snooze  Time // Snooze: how long
}

// Reported is what a report did.
type Reported struct {
	Applied     bool  // the job was running and took the new state
	State       State // its state after the call
	ScheduledAt Time  // when it runs again (retryable, scheduled, available)
	Attempt     int
}

// Rescued is one job a maintenance pass (a rescue, the scheduler) set
// the state of.
type Rescued struct {
	Job         JobID
	State       State // a rescue's: retryable or discarded; the scheduler's: available (or discarded)
	ScheduledAt Time
	// Applied: the row read back after the pass has that state (a rescue
	// may find the job no longer running, and leave it).
	Applied bool
}

// Effect is one effect a handler wrote, as the effects table keeps it.
type Effect struct {
	Seq     int64 // the table's id: commit order
	Job     JobID
	Attempt int
	Worker  string
	Key     string // the handler's idempotency key
	Tenant  string
	Doc     string
	At      Time
	Dedupe  bool // written only if its key was new (not stored)
}

// Snapshot is the durable state read back: every job and every effect,
// in id order.
type Snapshot struct {
	Jobs    []Job
	Effects []Effect
}
