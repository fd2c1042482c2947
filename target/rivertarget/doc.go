// Package rivertarget is River (github.com/riverqueue/river) as a
// [target.Queue]: durasim's actors drive it through River's driver API
// (riverdriver.Executor), on SQLite (riversqlite, modernc.org/sqlite,
// in memory) or PostgreSQL (riverpgxv5).
//
// # What is River's code and what is durasim's
//
// River's code: every statement that touches the database, which is the
// SQL behind riverdriver.Executor (JobInsertFastMany, JobGetAvailable,
// JobSetStateIfRunningMany, JobGetStuck, JobRescueMany, JobSchedule,
// JobRetry, JobGetByIDMany), the state transitions riverdriver builds
// (JobSetStateCompleted, JobSetStateErrorRetryable and the others),
// River's unique-states bitmask (rivershared/uniquestates) and its
// migrations (rivermigrate).
//
// durasim's re-enactment of River's Go client logic, for the pinned
// release, with durasim's virtual time passed into every time parameter:
//   - the producer's fetch (producer.go: JobGetAvailable with the
//     client's id, at most MaxAttemptedBy names kept);
//   - the executor's report of a result (internal/jobexecutor,
//     reportResult and reportError: completed; an error retried with the
//     retry policy, or discarded at max attempts; JobCancel cancelled;
//     JobSnooze scheduled with the attempt given back; a retry or snooze
//     due within the scheduler's interval made available at once), run
//     through JobSetStateIfRunningMany as the completer does
//     (internal/jobcompleter);
//   - JobCompleteTx (job_complete_tx.go): JobSetStateIfRunningMany inside
//     the handler's transaction;
//   - the job rescuer (internal/maintenance/job_rescuer.go, runOnce and
//     makeRetryDecision): JobGetStuck past the stuck horizon, then
//     JobRescueMany, retried or discarded by max attempts;
//   - the job scheduler (internal/maintenance/job_scheduler.go):
//     JobSchedule;
//   - the default retry policy (retry_policy.go, internal/retrypolicy):
//     attempt⁴ seconds ±10% by the number of errors, its jitter drawn
//     from the seed instead of math/rand;
//   - the client's unique key for UniqueOpts{ByArgs: true}: a SHA-256 of
//     the kind and the encoded args (River's dbunique hashes a canonical
//     form of the same).
//
// durasim adds reads River's client does not make: a report reads the
// job's row before its transition, in the same transaction (JobGetByID),
// and a rescue reads each job's river:rescue_count before and after
// JobRescueMany (JobGetByIDMany), so the history says whether the job took
// the state.
// The effects table and the handlers' ledger are durasim's own.
package rivertarget
