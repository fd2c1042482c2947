package rivertarget

// Part is one piece of River's client logic the River target needs, and
// whether the deterministic sweep runs River's own code for it.
type Part struct {
	Name string // River's name for it
	Runs bool   // River's own code runs in the sweep
	How  string // how it runs, or why durasim re-enacts it
}

// Parts is every piece, River's code first. The River README's "What is
// River's code and what is durasim's" and make river-cover print them.
var Parts = []Part{
	{"SQL (riverdriver.Executor on riversqlite or riverpgxv5) and migrations (rivermigrate)", true,
		"every statement that touches the database"},
	{"client inserts (Client.Insert, InsertTx, UniqueOpts{ByArgs: true})", true,
		"river.NewClient on the driver, never started; its insert params, unique key (dbunique) and unique states"},
	{"job executor (internal/jobexecutor: reportResult, reportError)", true,
		"rivertest.Worker.WorkJob runs it on the row the worker fetched: completed, retried or discarded, JobCancel, JobSnooze"},
	{"completer (internal/jobcompleter: InlineCompleter)", true,
		"rivertest.Worker's inline completer: JobSetStateIfRunningMany in the report's transaction"},
	{"JobCompleteTx", true, "river.JobCompleteTx in the handler's transaction, River's client in the context"},
	{"operator's retry (Client.JobRetry)", true, "the client's JobRetry"},
	{"River's clock", true, "Config.Test.Time: durasim's virtual time of the call in progress"},
	{"default retry policy (DefaultClientRetryPolicy)", false,
		"its jitter comes from math/rand/v2's global generator, which cannot be seeded: River's executor asks Config.RetryPolicy, " +
			"River's formula (errors⁴ s ±10%) with the jitter drawn from the seed; a test holds River's own to the same bounds"},
	{"producer's fetch (producer.go)", false,
		"unexported, run only by a started client's goroutines: durasim calls River's JobGetAvailable query as the producer does"},
	{"job rescuer (internal/maintenance/job_rescuer.go)", false,
		"internal, run only by a started client's leader on a real ticker: durasim calls JobGetStuck then JobRescueMany, " +
			"deciding retry or discard as makeRetryDecision does"},
	{"job scheduler (internal/maintenance/job_scheduler.go)", false,
		"internal, run only by a started client's leader: durasim calls River's JobSchedule every scheduler interval"},
	{"job timeout (the executor's context deadline)", false,
		"River arms a real-time timer and a goroutine: the executor runs without one and durasim's worker ends the work at " +
			"JobTimeout after its fetch"},
}
