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
// # Every value returned, and races
//
// A deduplicated commit brings a value of its own and must be told the
// stored one; every commit and enqueue whose key is held is followed by
// another payload under it, which must be refused (the model never sends
// one at commit). On PostgreSQL the first few enqueues, commits and first
// deliveries of each seed, and an ordered queue's leases while another
// job is ready, are raced (race.go): the same operation on a second
// connection at once, the two held in step statement by statement; one
// must win, the other be told the winner's outcome. SQLite runs one
// writer at a time: nothing to race there.
//
// # The store checks
//
// The comparison with the model says the store did what the model did;
// it does not say that what they both did is right. So the mirror also
// feeds package invariants' store checks ([invariants.CheckStore]), the
// same history-only oracles the real-crash mode (package chaos) feeds:
// each event the store accepted becomes an [invariants.Op] as it is
// replayed (Observe), and at the end of the seed the state End read back
// is checked with them ([Backend.Check], the [sim.Checker] the simulator
// calls once End agreed). The feed is complete: every operation, in the
// store's order, at its virtual time (T0 == T1). A violation fails the
// seed under the check's name (store-no-duplicate-effects, ...), beside
// the model's own invariants.
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
