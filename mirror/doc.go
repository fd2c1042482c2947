// Package mirror drives the SQL store (package sqlstore) in lockstep with
// the in-memory model: it is the [sim.Backend] behind `durasim run
// -backend sqlite|postgres`.
//
// # Lockstep differential execution
//
// The simulator stays single-threaded and the model stays the
// specification. Every durable event the model records — enqueue, lease,
// heartbeat, checkpoint, commit, ack, retry, cancel, dead-letter, publish,
// mark, apply, redrive, reprocess — is executed again through
// [sqlstore.Ops] on the acting actor's own connection, with the model's ids
// and model time, and the SQL outcome is compared with the event: the job
// and fence a lease picked, created or deduplicated or conflicting for an
// enqueue and a commit, [sqlstore.ErrFenced] exactly when the model
// refused a stale fence, applied or duplicate for a delivery. The first
// disagreement fails the run as a "backend-divergence" violation naming
// both sides. A crash event closes the actor's connection (an open
// transaction rolls back); its restart opens a new one. At the end of the
// seed the store's tables are read back ([sqlstore.Store.State]) and
// compared with the model's final state with go-cmp.
//
// # Operations the contract lacks
//
// Some model operations have no [sqlstore.Ops] method: cancelling a job,
// writing the DLQ envelope apart from marking the job dead (the model's two
// steps, with a crash boundary between), redriving, and the audit log.
// They are the [Extra] interface; the store's connection provides them.
//
// One seed uses one database, emptied by [sqlstore.Store.Reset] before the
// next: a sweep of SQLite seeds runs in memory.
package mirror
