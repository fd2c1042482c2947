// Package chaos is durasim's real-crash mode for the pipeline: its
// actors as separate processes against PostgreSQL, killed with SIGKILL at
// named points (some between two statements of one transaction), frozen
// with SIGSTOP past their lease, restarted, and checked from the
// database's final state and the processes' own histories.
//
// It is a workload on package crash's supervisor, which owns the
// processes, the signals, the kill-point hand-out and the histories'
// files; this package brings what is the pipeline's: its roles and their
// kill points (a boundary.Set each), what each child runs, the job mix
// and the feed, which worker to freeze, when the drain is done, and the
// checks.
//
// # Roles
//
// A process (`durasim worker -role ...`) runs one role over sqlstore.Ops on
// its own connection, with real time from a clock.Clock (clock.New() in a
// process, *clock.Mock in tests):
//
//   - [Worker]: lease a job (LeaseNext, FOR UPDATE SKIP LOCKED; with
//     -ordered, FIFO: only the oldest unfinished job, its row locked), and for
//     each remaining stage heartbeat if under half the lease is left, do
//     its work, Commit the stage's result with its outbox event (fenced:
//     a zombie's commit is refused), Advance; after the last stage Ack.
//     What a job does is spelled in its document name ([Traits]): poison
//     (Dead at extract, version 1 only), flaky (Retry at validate, with a
//     backoff doubling from 20 ms, until the job is redriven), slow (work
//     per stage 3/5 of the lease: heartbeats without a freeze), few
//     attempts (3), a short deadline (a retry that would end past it is a
//     Cancel) or an almost passed one (LeaseNext cancels it).
//   - [Relay]: claim unpublished rows (SKIP LOCKED, the locks held while
//     the rows are published through a second connection), Publish each,
//     then MarkPublished. Several relays run at once.
//   - [Consumer]: read the broker's messages in order and Deliver each
//     (delivery count, ledger, effect: one transaction, dedupe by event
//     id); a fraction is delivered twice, and a restart resumes a few
//     messages back. Several consumers read the same broker, so the
//     ledger's UNIQUE meets concurrent duplicate deliveries.
//   - [Operator]: redrive jobs dead for max attempts and reprocess dead
//     poison jobs as their next version (model.BuildIdempotencyKey, Origin
//     the dead job), each with an audit row; write the audit rows a kill
//     cut off; resubmit a random job (must be deduplicated) and send
//     another payload under another job's key (must be refused).
//
// A worker commits each stage's value mixed with its lease's fence (an
// attempt's own answer), and its commit line records the value the store
// returned: a deduplicated commit must return the stored one. A fenced
// line is a refusal the store checks judge as due or not.
//
// Every store call runs to its end even when the process is told to stop
// (SIGTERM), so it always gets its history line.
//
// # Kill points
//
// Each process is told one point, an n and, for inside points, a
// statement boundary by its arguments (-kill-at, -kill-nth, -kill-stmt);
// on the nth crossing it writes a kill line to its history and sends
// itself SIGKILL ([Killer], package crash's), so the kill lands exactly
// there: after_lease,
// after_extract, after_insert_before_commit (via CommitReq.BeforeCommit),
// after_commit_before_ack, after_ack, after_dlq_write, relay_after_claim,
// relay_after_publish_before_mark, consumer_after_apply,
// operator_after_redrive and operator_after_reprocess_enqueue (before the
// audit row), and the inside points, between two statements of one
// operation through sqlstore.Conn.OnStatement: inside_lease_after_stmt,
// inside_commit_after_stmt, inside_dead_after_stmt,
// inside_deliver_after_stmt, inside_redrive_after_stmt and
// inside_enqueue_after_stmt ([Boundaries] says how many boundaries each
// has; the supervisor picks one at random, and ends the run, naming the
// point, when a store runs fewer statements than that and the point
// cannot be reached). Whatever transaction was
// open dies with the connection: PostgreSQL rolls all of it back, and a
// store that split an operation into two transactions keeps half, which
// the checks see.
//
// # The run
//
// [Run] resets the database, enqueues jobs of the mix ([MixTraits]) and
// starts the workers, relays, consumers and operator as child processes
// of the same binary on the supervisor, each with a kill point handed
// out (seeded) among those no kill has reached yet, else at random. A
// child that dies at its point is counted and restarted with a new
// point; meanwhile jobs keep being fed, and a worker holding a lease is
// frozen (SIGSTOP) every Config.PauseEvery for about three leases, to
// make a zombie. Once -kills kills landed and every point had one, every
// process is stopped (SIGKILLed after 30 s: a hard stop, which the
// report counts) and restarted without kill points until every job is
// terminal, every row published, every event applied and nothing is left
// for the operator.
//
// # The checks
//
// [Report] counts, from the histories and the final database (never from
// the processes' own totals), how often each path through the store was
// taken: zombie writes refused, heartbeats, retries, cancels at lease and
// at retry, dead for max attempts and poison, redrives, reprocesses,
// idempotency conflicts refused, resubmissions deduplicated, commits
// deduplicated, concurrent duplicate deliveries refused, kills inside each
// operation. Its invariants: no duplicate effects, no lost jobs, no
// unpublished commits, no events without a commit (nor results without
// their event), no stale-fence write accepted, every recorded write in the
// database (broker delivery counts included), dead for max attempts only
// after max_attempts leases in that life, no lease before its retry's
// visible time, no lease past the deadline and cancels only past it,
// redriven jobs starting at attempt 1 and succeeding (or dying again for
// max attempts, or, poison, at extract), reprocess as the
// next version audited once, resubmissions deduplicated and conflicts
// refused, drained (else: what is left and where each consumer stands),
// every kill point killed, and every path taken.
//
// The store's invariants are not written here: the final state
// (through internal/sqlfeed) and the histories (as invariants.Op values,
// with the orchestrator's enqueues) are fed to package invariants'
// store checks (invariants.CheckStore), the same checks the lockstep
// mirror feeds in `durasim run -backend sqlite|postgres`. Chaos's feed is
// partial: lines are ordered only by their intervals, and only lease
// lines, delivery lines and the orchestrator's enqueues are never
// missing. What stays here is what only chaos knows: the expectations of
// its own workload, spelled in each job's key (expect.go: a poison job
// dies with poison_schema, a job dead otherwise died for max attempts,
// only ".short" and ".late" jobs are cancelled, a redriven job succeeds,
// or dies again for max attempts, or, poison, at its extract (kills
// before a poison job's extract can spend its attempts: it dies for max
// attempts and is redriven), a redrive never follows a poison death in
// the same life, a reprocess follows a poison death, the operator leaves
// nothing undone), which add to the report's rows; and
// the bookkeeping of the run itself (every kill point killed, every path
// taken, the per-path counts).
//
// # Histories
//
// Every process appends one JSON line per completed operation (one
// write(2), unbuffered), with wall-clock times taken before and after it
// (retries also carry the visible time they set). A SIGKILL can still
// land between an operation and its line, so the checks read a line as
// "this happened" and a missing line as nothing, with one exception: no
// lease line is ever missing (no kill point lies between LeaseNext and its
// line), which lets the max-attempts check count leases. A hard stop
// (a process that did not stop within 30 s, SIGKILLed by the supervisor)
// could break that promise: the report counts hard stops, and a run with
// any should be read with that in mind.
package chaos
