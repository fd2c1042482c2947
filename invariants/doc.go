// Package invariants checks a run of the durable pipeline: it watches the
// history of [model.Event] values as they happen and, at the end, the final
// state, and reports every broken invariant as a [Violation] that names the
// events proving it.
//
// # Use
//
// The simulator creates a [Suite] with [NewSuite], passes it every event
// ([Suite.Record], which makes a Suite a [model.Recorder]), says whether the
// run drained ([Suite.Drained]) and collects the verdict with
// [Suite.Finish] over [FinalOf] the system. Fixtures call [Check] with a
// hand-written history and [Final].
//
// # Safety and liveness
//
// Safety properties are checked as events arrive, so a run can stop at the
// first violation ([Suite.Failed], [Suite.Violations]). Liveness properties
// (everything finished, published, applied) are checked by [Suite.Finish],
// and only when the run reached quiescence: faults stopped and the system
// drained. A run that did not drain reports each job still live instead.
// One liveness check runs on every run that reached its quiescence phase,
// drained or not: a dead job an operator action could bring back is still
// dead at the end (runbook.go). Whether the simulated operator says it
// tried a job is no input to any verdict.
//
// # The invariants
//
//   - [ExactlyOnce]: at most one applied effect per (key, stage) and per
//     (job, stage); after draining, exactly one per stage of each succeeded
//     job.
//   - [TenantIsolation]: a key belongs to the tenant that first enqueued
//     it; no event carries it for another tenant, no result of one tenant's
//     job travels under another tenant's key, no status answer or job id
//     goes to another tenant.
//   - [BoundedRetries]: no lease beyond maxAttempts, after dead or
//     cancelled (a redrive brings a dead job back), or at or after the
//     deadline; no retry without an attempt left; every retry delay within
//     its strategy's bound, computed from the configuration. The deadline
//     bounds running work too (deadline.go): a stage's work starts before
//     it and ends by it, and nothing of the job is committed, checkpointed
//     or acked at or after it.
//
// # Every limit judged both ways
//
// A limit can fail by letting through what it must stop, or by stopping
// what it must let through. Each is judged in both directions, its state
// recomputed from the history and the configuration (never the model's
// counters): the redrive and reprocess token buckets (a call accepted with
// no token left; a call refused as rate_limited with one left: bucket.go),
// the attempt ceiling and the token budget (a lease or
// retry beyond them; a dead letter or an exhaustion at a lease with
// attempts and budget left), the deadline (a lease, retry or piece of work
// past it; a cancel, a cut or a deadline_exceeded failure before it or
// while a retry still fits), the breaker (a lease while it must be open;
// a lease it refused with a canary slot free), fencing (a stale fence
// accepted; the current one refused), the status endpoint (an answer to
// another tenant; not_found to the job's own), idempotency (a second job,
// event or dedupe under another payload; a conflict for the same payload)
// and the operator's calls (a cancelled or live job brought back; a dead
// one refused as not dead, cancelled, not found or an invalid key).
//   - [Fencing]: no accepted call with a stale fence; fences grow; never two
//     valid leases on one job.
//   - [NothingLost]: every accepted job enqueued and finished; every outbox
//     row published; nothing published without a commit (or a dual write);
//     every dual write published; every published event applied.
//   - [DLQHygiene]: DLQ reasons are codes; no raw error, document text
//     ([Config.Secrets]), CPF number or e-mail address in the DLQ, the audit
//     log, or event texts.
//   - [OperatorActions]: only dead jobs are redriven or reprocessed
//     (cancelled is terminal); a redrive keeps the key; a reprocess names
//     its operator and creates the next version; both are rate-limited and
//     audited.
//   - [WastedWork]: no two workers pay for one job's work at once; a lease
//     resumes at the checkpoint; a redrive of a job whose failure cause is
//     unchanged is counted ([Suite.WastedRedrives]) and, when the job dies
//     again, reported.
//   - [Liveness]: a run that did not drain names every reason; on every run,
//     the dead jobs an operator action could bring back.
//
// # Store checks: one set of oracles for every mode
//
// [CheckStore] checks a store durasim does not trust from what any mode
// can read back: its durable state ([Store]: jobs, outbox, results,
// broker, ledger, effects, DLQ, audit) and the operations its actors
// recorded ([Op], each with the interval T0..T1 in which the store
// acted). A [Feed] says which facts the mode can give: the simulator's
// lockstep mirror gives a Complete feed (every accepted operation, in the
// store's order, T0 == T1), the real-crash mode a partial one (a process
// killed between an operation and its line leaves no line; lines of
// different processes are ordered only by their wall-clock intervals;
// Feed.Recorded names the kinds that are never missing there). Each
// check is written once and uses only what the feed guarantees: a
// missing operation proves nothing unless the feed says that kind is
// complete, and "a before b" is the store's order in a complete feed and
// a.T1 < b.T0 otherwise. The checks are the [StoreCheck] values, listed
// by [StoreChecks]; their violations carry its name (store-...). They
// judge what a store answered, not only what it kept: a commit's event
// and value (Feed.CommitValues) against the stored result, a dedupe's
// included; a refused fenced write ([OpRefused]) as due or not (a newer
// lease or the lease's end before it); on an ordered queue
// (Feed.Ordered), the leases' FIFO order.
//
// # Target checks: one oracle for every queue and every mode
//
// [CheckTarget] checks a queue durasim does not own ([target.Queue]) the
// same way: the ops its actors recorded ([TargetOp], each with the
// interval the queue performed it in) and the state read back
// ([target.Snapshot]). A [TargetFeed] says what the history guarantees
// (Complete, as targetsim's sweep gives it, or partial, as real
// processes write it: Recorded kinds never missing, the Outcomes its
// handlers may report) and what the queue promises: its declared
// [target.Policy], from which every rule the checks apply is read (how
// attempts and errors count on a snooze, a rescue, an operator's retry;
// which states hold a unique key; what a transactional completion of a
// job no longer running does; the backoff). Each check is written once;
// where the history cannot tell (a missing line, two ops whose intervals
// overlap) it says nothing, and a check the feed cannot support at all
// (target-retry-timing without the maintenance's writes) is not run
// ([TargetFeed.Checks]).
//
// What a workload expects of its own jobs (a poison document must die
// with poison_schema, a redriven job must succeed) is not a property of
// a store: the mode that knows its workload checks that itself.
//
// # Cost
//
// Record runs on every simulated event. Per-job state lives in a paged
// table indexed by job id; the common events (lease, heartbeat, advance,
// ack) do not allocate. An outbox event that was committed, published and
// applied is retired from the per-event table (only its (key, stage) is
// kept, as a bit of its job), so that table follows the events in flight,
// not the length of the run. [FinalOf] reads the system in place rather
// than copying it.
package invariants
