package target

import (
	"context"
	"errors"
	"math"
	"slices"
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

// Policy is what a queue promises: its timing as its client configures
// it, and the rules by which its calls count a job's attempts and errors
// and move its state. The oracles of package invariants read every rule
// from here and assume none, so a queue whose rules differ from another's
// declares them and is held to its own. Plain data: a queue's Policy
// prints, compares and validates ([Policy.Validate]).
type Policy struct {
	// RescueAfter: a job running longer is stuck, and a rescue pass takes
	// it back.
	RescueAfter Time
	// JobTimeout: the client cancels the context of a job's work this
	// long after its fetch; the handler's calls made with it fail after
	// that (0: never).
	JobTimeout Time
	// AvailableWithin: a retry or snooze due within this span may make
	// the job available at once (with its scheduled time still ahead)
	// instead of retryable or scheduled.
	AvailableWithin Time
	// DueWithin is how late a due job may be made available: a job a
	// call made due later (a retry's, a rescue's or a snooze's scheduled
	// time) is available before it has been due this long, because the
	// queue's scheduler passes run at least that often (River's job
	// scheduler interval). 0: no promise.
	DueWithin Time
	// Backoff is the retry policy: the delay after a job's n-th error.
	Backoff Backoff
	// Lease is how long a fetch holds a job on its own, as a visibility
	// timeout does (0: no lease; a running job stays running until a call
	// moves it, as a rescue does). Once Lease has passed since its fetch,
	// a job still running is the queue's to take back, with no rescuer:
	// the scheduler's pass ([Conn.Schedule]) returns it available again,
	// its attempt counted and no error recorded, or, when that attempt
	// was its last, discarded (a dead letter). Until the pass takes it
	// back, the fetch's holder still holds it.
	Lease Time
	// LeaseLapses: a lease that runs out frees its job by itself: once
	// Lease has passed since its fetch, a fetch may take the job again
	// before any pass took it back (a queue whose receive compares the
	// visibility timeout itself, as goqite's does). The pass still
	// reports the jobs it finds lapsed.
	LeaseLapses bool
	// DeadLetterHeld: a job discarded at its last attempt (by an error
	// or a counted snooze there, or by the pass when that attempt's lease
	// ran out: a dead letter) is still its receivers': a report or a
	// transactional completion by any worker that fetched it may complete
	// or cancel it, with no operator (goqite: a message received
	// MaxReceive times is never received again, but Delete deletes any
	// message by id, whoever received it).
	DeadLetterHeld bool
	// Clocks are the clocks the queue keeps apart: the clock faults that
	// reach it ([ClockPlan]).
	Clocks Clocks

	// Snooze is what a snooze does to the attempt it ends. A snooze that
	// keeps its attempt counted, at the job's last attempt, leaves none:
	// the job is discarded, as after an error there.
	Snooze Count
	// Rescue is what a rescue pass does to a stuck job.
	Rescue RescueRule
	// CancelCountsError: a cancel records an error on the row (the
	// backoff's n counts it).
	CancelCountsError bool
	// Retry is what an operator's retry does to a job's attempts.
	Retry RetryRule
	// UniqueStates are the states in which a unique job holds its args: a
	// unique insert of the same kind and args is skipped while one is in
	// one of them, and may create a job once none is.
	UniqueStates []State
	// CompleteNotRunning is what a transactional completion ([Tx.Complete])
	// does with a job that is no longer running.
	CompleteNotRunning Completion
	// RetryResends are the states from which an operator's retry sends
	// the job again as a new message rather than bringing the old one
	// back (goqite: a cancel deletes the message, so its redrive sends a
	// new one). A worker that fetched the job before such a retry holds
	// the old message, so its calls act on nothing: its report is not
	// applied and its transactional completion returns the row as it is.
	RetryResends []State
	// CancelAsks: an outside cancel ([Operator.Cancel]) of a running job
	// leaves it running with its cancel asked, for its holder to act on:
	// from then on a report that would retry or snooze it, and a rescue,
	// cancel it instead (River's JobCancel and cancel_attempted_at).
	// Without it, an outside cancel cancels a running job at once.
	CancelAsks bool
	// BatchRepeatsRefused: a batch insert ([Operator.InsertMany]) that
	// repeats a unique job's args is refused whole, nothing inserted
	// (River's drivers); without it, the repeat is skipped.
	BatchRepeatsRefused bool
	// RunningOnly: a report or a rescue writes only onto a job still
	// running; one another call took out of running since the caller read
	// it (a snooze, a completion, a rescue and the scheduler's pass, an
	// operator's retry) is left as it is. A write that lands there all
	// the same is a stale actor's. Without it, a write names its job by
	// id and lands in any state (a queue whose delete by id deletes any
	// message, whoever received it).
	RunningOnly bool
	// Receipts: a report or a transactional completion counts only from
	// the attempt that holds the job, as a receipt handle does: one from
	// an attempt the queue took back, or whose job was fetched again
	// since, is refused (a report not applied; a completion as of a job
	// no longer running) even while the job is running. Without it, a
	// call naming a running job counts whoever fetched it.
	Receipts bool
	// WorkerTimeouts: a worker may set its own job timeout in place of
	// JobTimeout (River's Worker.Timeout; a fetch records it, Op.Timeout),
	// and the rescuer honours it: it leaves a stuck job until that
	// timeout (else JobTimeout) has passed since the attempt began, and a
	// job whose worker sets none (negative) it never takes back: a crash
	// leaves that job running for good (no drain can finish it).
	WorkerTimeouts bool
}

// Count is what an event does to the attempt it ends. A fetch counts an
// attempt; nothing else adds one.
type Count uint8

// The counts.
const (
	AttemptCounted   Count = iota // the attempt stays counted
	AttemptGivenBack              // the count goes back by one: the next fetch is that attempt again
	countCount
)

// RescueRule is what a rescue decides for a stuck job: retryable, due
// after the backoff's delay for the errors the row then has (0 errors: at
// once), or, when the stuck attempt stays counted and was the job's
// last, discarded.
type RescueRule struct {
	Attempt     Count // what the rescue does to the stuck attempt
	CountsError bool  // the rescue records an error on the row
}

// RetryRule is what an operator's retry ([Conn.Retry]) does to a job's
// attempts.
type RetryRule uint8

// The retry rules.
const (
	RetryKeepsAttempts  RetryRule = iota // the count and max_attempts as they were
	RetryAddsAttempt                     // the count kept; a job at (or past) its last attempt gets one more: max_attempts becomes attempt+1
	RetryResetsAttempts                  // the count starts again from 0; max_attempts as it was
	retryRuleCount
)

// Completion is what a transactional completion does with a job that is
// no longer running (another call took it back, or finished it).
type Completion uint8

// The completions.
const (
	CompletionReturnsRow Completion = iota // the row as it is, no error: the caller must look at its state
	CompletionFails                        // ErrNotRunning; nothing changes
	CompletionCompletes                    // completes it all the same, unless it is finished (then the row as it is)
	completionCount
)

// Backoff is a retry policy declared as a formula: after a job's n-th
// error the delay is Base·n^Exponent, at most Cap (0: no cap), within
// JitterPPM parts per million of it either way, rounded inward to whole
// milliseconds (a range that holds no whole millisecond: its lower end
// rounded down). n = 0 (no error yet) is no delay.
type Backoff struct {
	Base      Time
	Exponent  int
	Cap       Time
	JitterPPM int64
}

// Bound is the range of the delay after the n-th error.
func (b Backoff) Bound(n int) (lo, hi Time) {
	if n <= 0 || b.Base <= 0 {
		return 0, 0
	}
	limit := b.Cap
	if limit <= 0 {
		limit = math.MaxInt64 / 2 / Millisecond * Millisecond
	}
	d := min(b.Base, limit)
	for range b.Exponent {
		if d > limit/Time(n) {
			d = limit
			break
		}
		d *= Time(n)
	}
	d = min(d, limit)
	j := d/1_000_000*b.JitterPPM + d%1_000_000*b.JitterPPM/1_000_000
	lo = (d - j + Millisecond - 1) / Millisecond * Millisecond
	hi = (d + j) / Millisecond * Millisecond
	return min(lo, hi), hi
}

// Validate reports the first rule out of range.
func (p Policy) Validate() error {
	switch {
	case p.RescueAfter < 0 || p.JobTimeout < 0 || p.AvailableWithin < 0 || p.DueWithin < 0 || p.Lease < 0:
		return errors.New("policy: rescue-after, job timeout, available-within, due-within and lease must not be negative")
	case (p.LeaseLapses || p.DeadLetterHeld) && p.Lease == 0:
		return errors.New("policy: a lease that lapses, or a dead letter its holder keeps, needs a lease")
	case p.Backoff.Base < 0 || p.Backoff.Cap < 0 || p.Backoff.Exponent < 0 || p.Backoff.Exponent > 16:
		return errors.New("policy: backoff base and cap must not be negative, its exponent 0 to 16")
	case p.Backoff.JitterPPM < 0 || p.Backoff.JitterPPM > 1_000_000:
		return errors.New("policy: backoff jitter must be 0 to 1000000 ppm")
	case p.Snooze >= countCount || p.Rescue.Attempt >= countCount:
		return errors.New("policy: unknown attempt count for a snooze or a rescue")
	case p.Retry >= retryRuleCount:
		return errors.New("policy: unknown retry rule")
	case p.CompleteNotRunning >= completionCount:
		return errors.New("policy: unknown transactional completion")
	}
	for _, s := range p.UniqueStates {
		if s == StateNone || s >= stateCount {
			return errors.New("policy: unknown unique state")
		}
	}
	for _, s := range p.RetryResends {
		if s == StateNone || s >= stateCount {
			return errors.New("policy: unknown state a retry resends from")
		}
	}
	return nil
}

// Unique reports whether a unique job in state s holds its args.
func (p Policy) Unique(s State) bool { return slices.Contains(p.UniqueStates, s) }

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
	// target returned; for a job no longer running it does what the
	// queue's Policy.CompleteNotRunning says (the row may not be
	// completed, or the error ErrNotRunning).
	Complete(ctx context.Context, now Time, j Job) (Job, error)
	// Insert adds a job in this transaction (an outbox row).
	Insert(ctx context.Context, now Time, r InsertReq) (Inserted, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// ErrNotFound is what Retry returns for a job the queue does not have.
var ErrNotFound = errors.New("target: job not found")

// ErrNotRunning is what a transactional completion returns for a job no
// longer running, from a queue whose policy says so (CompletionFails).
var ErrNotRunning = errors.New("target: job not running")

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
	// Unique: one job per (kind, args) in the policy's unique states, as
	// River's UniqueOpts{ByArgs}.
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
	// Timeout is the job's timeout as its worker's code sets it (River's
	// Worker.Timeout: 0 the client's JobTimeout, negative none), which
	// the caller of [Conn.Rescue] fills in: it is code, not a column.
	Timeout Time
}

// Outcome is how a handler's work ended, as its worker reports it.
type Outcome uint8

// The outcomes.
const (
	OutcomeNone Outcome = iota
	Done                // the handler returned nil: complete the job
	Errored             // the handler returned an error: retry or discard
	Cancel              // the handler asked to cancel the job (River's JobCancel)
	Snooze              // the handler asked to run again later (Policy.Snooze: whether the attempt counts)
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

// ErrBlocked is what a call of a queue in races mode ([Racer]) returns
// while it waits on a lock another actor's open transaction holds: the
// call stays in flight, and the same call made again by the same actor
// (once [Racer.Settle] returned) hands back its result, or ErrBlocked
// again while it still waits.
var ErrBlocked = errors.New("target: the call waits on a lock another actor holds")

// RaceError is a call the database refused because of another actor's
// transaction running at the same time: a deadlock it broke, a
// serialization failure, a unique key another open transaction wrote
// first. It is an outcome of the race, for the history, not a broken
// adapter.
type RaceError struct {
	Code string // "deadlock", "serialization", "unique_violation"
	Err  error
}

func (e *RaceError) Error() string { return "target: lost a race (" + e.Code + "): " + e.Err.Error() }
func (e *RaceError) Unwrap() error { return e.Err }

// RaceCode is the code of err's RaceError ("" when it is none).
func RaceCode(err error) string {
	var re *RaceError
	if errors.As(err, &re) {
		return re.Code
	}
	return ""
}

// Racer is a queue with a races mode: each actor's Conn on a connection
// of its own, each call run where it may wait on another actor's locks
// (returning ErrBlocked while it waits).
type Racer interface {
	// Races turns the mode on or off for the runs that follow; an error
	// when the queue cannot race (its backend has one connection).
	Races(on bool) error
	// Settle waits until every call in flight has returned or waits on a
	// lock an idle transaction holds (one that cannot move until its
	// actor's next call), so that what each call returns is decided by
	// the order the calls were made in.
	Settle(ctx context.Context) error
}
