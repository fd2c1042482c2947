// Package target is the seam between durasim and a queue it does not own:
// the calls durasim's actors make to it, each one step on the scheduler
// with durasim's virtual time passed in, and the durable state read back
// when a run is over.
//
// # The seam
//
// A [Queue] hands out a [Conn] per actor. A client inserts ([Conn.Insert]);
// a worker fetches ([Conn.Fetch]), works the job in its handler and reports
// how the work ended ([Conn.Report]); the maintenance passes rescue stuck
// jobs ([Conn.Rescue]) and make scheduled and retryable jobs available
// ([Conn.Schedule]); an operator asks for a finished job to run again
// ([Conn.Retry]). A handler that writes its effect in the queue's own
// database opens a [Tx] ([Conn.Begin]): its effect, the job's completion
// and any job it inserts commit together or not at all.
//
// Every call is atomic: it either happened or it did not, and a crash
// falls between two calls (or, inside a handler's transaction, before its
// commit, which rolls it back). Every time parameter comes from the
// caller: a queue reads no clock of its own, so a seed replays byte for
// byte.
//
// # What durasim trusts
//
// Nothing a queue says about itself: the history-only oracles of package
// invariants ([github.com/durasim/durasim/invariants.CheckTarget]) read
// the [Op]s durasim's actors recorded (what they asked and what each call
// returned) and the [Snapshot] read back, and recompute every number a
// call returned (an attempt, a retry time, a state).
//
// # What a queue promises
//
// Queues differ in their rules, and the oracles assume none: a queue
// declares its own as plain data in its [Policy] — its timing (the stuck
// horizon, the job timeout, when a due retry may be available at once),
// its retry policy as a formula ([Backoff]), what a snooze, a rescue and
// an operator's retry do to a job's attempts ([Count], [RescueRule],
// [RetryRule]), which events record an error, the states in which a
// unique job holds its args, what a transactional completion does with a
// job no longer running ([Completion]), whether a fetch's lease runs out
// on its own (a visibility timeout, [Policy.Lease]) and whether only the
// attempt holding a job may report it ([Policy.Receipts]). The oracles
// recompute every call's result by those rules, so a queue that counts a
// snooze, lets a completed job's args go, fails a stale completion or
// takes a job back when its lease runs out is held to that, and not to
// River's. [Policy.Validate] refuses a value out of
// range.
//
// # Systems
//
// A kind of queue is a [System], registered by name from its package's
// init ([Register]): the CLI resolves -target NAME against the registry
// ([Lookup], [Systems]), and a reproduce command names the system of the
// queue that ran, with the flags its [System.Args] gives for the queue's
// settings. A system compiled into durasim's CLI is a [CLISystem]; a
// user's own is not, and its failures are reproduced by go test alone.
//
// # Implementations
//
// Package [github.com/durasim/durasim/target/rivertarget] drives River
// (github.com/riverqueue/river) through its driver API, on SQLite and on
// PostgreSQL, and declares River's rules (rivertarget.Rules). Package
// [github.com/durasim/durasim/target/goqitetarget] drives goqite
// (maragu.dev/goqite), an SQS-style queue on SQLite, its clock in
// synctest bubbles, its rules (a lease that lapses, no receipts, no
// unique send) declared in its Policy. Package
// [github.com/durasim/durasim/examples/ownqueue] is a queue written as a
// user would, in memory, with rules unlike River's (a visibility
// timeout, receipts, a dead letter after its last receive), and its
// go test sweep.
package target
