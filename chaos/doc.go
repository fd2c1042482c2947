// Package chaos is durasim's real-crash mode: the pipeline's actors as
// separate processes against PostgreSQL, killed with SIGKILL at named
// points, restarted, and checked from the database's final state and the
// processes' own histories.
//
// # Roles
//
// A process (`durasim worker -role ...`) runs one role over sqlstore.Ops on
// its own connection, with real time from a clock.Clock (clock.New() in a
// process, *clock.Mock in tests):
//
//   - [Worker]: lease a job (LeaseNext, FOR UPDATE SKIP LOCKED), and for
//     each remaining stage heartbeat if under half the lease is left, do a
//     little work, Commit the stage's result with its outbox event (fenced:
//     a zombie's commit is refused), Advance; after the last stage Ack.
//     Keys ending ".poison" fail permanently at extract (Dead: DLQ, never
//     retried); ".flakyN" keys fail transiently at validate on their first
//     N attempts (Retry with backoff).
//   - [Relay]: claim unpublished rows (SKIP LOCKED, the locks held while
//     the rows are published through a second connection), Publish each,
//     then MarkPublished. Several relays run at once.
//   - [Consumer]: read the broker's messages in order and Apply each event
//     (ledger + effect, one transaction, dedupe by event id); a fraction is
//     delivered twice, and a restart resumes a few messages back.
//
// # Kill points
//
// Each process is told one point and an n by its arguments (-kill-at,
// -kill-nth); on the nth crossing it writes a kill line to its history and
// sends itself SIGKILL, so the kill lands exactly there: after_lease,
// after_extract (work done, nothing committed), after_insert_before_commit
// (inside the commit transaction, via CommitReq.BeforeCommit),
// after_commit_before_ack, after_ack (after Advance or Ack),
// after_dlq_write, relay_after_claim (row locks held),
// relay_after_publish_before_mark and consumer_after_apply. Whatever
// transaction was open dies with the connection; PostgreSQL releases its
// locks, which the run finishing proves.
//
// # The run
//
// [Run] resets the database, enqueues jobs and starts the workers, relays
// and a consumer as child processes of the same binary, each with a kill
// point chosen (seeded) among those no kill has reached yet, else at
// random. A child that dies at its point is counted and restarted with a
// new point; meanwhile jobs keep being fed, and a random worker is now and
// then frozen (SIGSTOP) for 1.5 leases to make a zombie. Once enough kills
// landed, every process is stopped and restarted without kill points
// until every job is terminal, every row published and every event
// applied. Then the checks ([Report]): no duplicate effects, no lost jobs,
// no unpublished commits, no events without a commit, no stale-fence write
// accepted, every recorded write in the database, and every kill point
// killed at least once.
//
// # Histories
//
// Every process appends one JSON line per completed operation (one
// write(2), unbuffered), with wall-clock times taken before and after it.
// A SIGKILL can still land between an operation and its line, so the
// checks only ever read a line as "this happened", never a missing line
// as "this did not".
package chaos
