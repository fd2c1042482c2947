// Package rivertarget is River (github.com/riverqueue/river) as a
// [target.Queue]: durasim's actors drive it through River's driver API
// (riverdriver.Executor), on SQLite (riversqlite, modernc.org/sqlite,
// in memory) or PostgreSQL (riverpgxv5).
//
// # What is River's code and what is durasim's
//
// River's code runs wherever River makes it callable, one seam call per
// scheduler step, with River's clock (Config.Test.Time) set to durasim's
// virtual time of the call ([Parts] lists it all):
//   - River's SQL, through riverdriver.Executor, and its migrations
//     (rivermigrate);
//   - inserts: river.NewClient on the driver, never started (Insert;
//     InsertTx in a handler's transaction; UniqueOpts{ByArgs: true});
//   - working a job: rivertest.Worker.WorkJob, River's job executor
//     (internal/jobexecutor: reportResult, reportError) and inline
//     completer (internal/jobcompleter) in one transaction, on the row
//     River's fetch query returned to the worker (the driver handed to
//     rivertest replaces its JobUpdateFull, which would mark the job
//     running again, with that row);
//   - river.JobCompleteTx in the handler's transaction;
//   - the client's JobRetry.
//
// Re-enacted, each for a reason:
//   - the default retry policy: DefaultClientRetryPolicy's jitter comes
//     from math/rand/v2's global generator, which cannot be seeded; River's
//     executor asks Config.RetryPolicy, River's formula with the seed's
//     jitter ([DefaultBackoff]);
//   - the producer's fetch (producer.go): unexported, run by a started
//     client's goroutines; durasim calls JobGetAvailable as it does;
//   - the job rescuer and the job scheduler (internal/maintenance): not
//     importable, run only by a started client's leader on real tickers;
//     durasim calls JobGetStuck, then JobRescueMany, and JobSchedule;
//   - the job timeout: River's executor would arm a real-time timer and a
//     goroutine; it runs with none, and durasim's worker ends the work at
//     JobTimeout after its fetch. Nothing River runs here starts a
//     goroutine or reads the wall clock.
//
// rivertest builds River's executor with River's default scheduler
// interval ([RiverSchedulerInterval]), so that is the adapter's.
//
// durasim adds reads River's client does not make: a report reads the
// job's state before River's executor runs, in the same transaction (its
// own SELECT of the state alone), and a rescue reads each job's
// river:rescue_count before and after JobRescueMany (JobGetByIDMany), so
// the history says whether the job took the state. On the in-memory SQLite
// database it also reads, once a row has changed, the earliest time of
// the rows River's poll, scheduler pass and read of stuck jobs may take:
// one of those queries certain by them to find nothing is not run, and
// River's code gets the empty answer its SQL would have given (only SQL
// certain to be a no-op is skipped; see quiet in sqlite.go).
// The effects table and the handlers' ledger are durasim's own.
package rivertarget
