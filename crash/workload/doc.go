// Package workload is the one real-crash workload of a queue library on
// package crash's supervisor: the documents inserted through the
// library's client, the one [Handler] (every design of package
// targetsim's, its kill points between its calls, one history line after
// each), the freezes and their takeovers, the histories' lines
// ([Entry]) and their conversion into the target checks' ops
// ([ToOps]), the [Report] and its verdicts from
// [invariants.CheckTarget]. A library costs an [Adapter] (its client's
// inserts, how many of its jobs wait or live, whether a frozen child's
// job was handed out again, its state read back), a child command (its
// own worker process, whose handler is a [Handler] with its
// transactional completion, if it has one) and a [Spec]: what its
// histories give the checks and what it promises, as data
// ([invariants.TargetFeed] with its [target.Policy]). River
// (riverchaos), asynq (asynqchaos) and goqite (goqitechaos) run on it.
//
// # A run
//
// [Run] starts the supervisor with one role, the library's child, whose
// kill points are the design's ([Points]); inserts Config.Jobs documents
// (every fifth twice, for a library that refuses a duplicate: Spec.Unique);
// keeps a backlog of two jobs per worker while the kill phase lasts; every
// Settings.PauseEvery freezes (SIGSTOP) a child whose history shows it
// holding a job, until the library has handed that job to another child
// (a takeover: the frozen one thawed at once, a zombie), or MaxFreeze; and
// once the kills and the takeovers are in, lets the drain's children
// finish every job. Then it reads the histories, the library's state and
// the effects back and runs the checks.
//
// # What the histories say
//
// One line per operation, one write(2) each, with wall-clock times before
// and after it: the inserts and freezes (the client's history), the
// fetch, the end of the work, the effect, the transactional completion's
// returned state and attempt, the commit or rollback (a COMMIT that
// returned an error is its own line: committed or not, unknown),
// timeouts, errors and kills (each child's). The lines become
// [target.Op]s in interval order and the checks run under a partial feed:
// a kill may cut any line off, and the library's own maintenance (River's
// rescuer, asynq's recoverer, goqite's lapsing timeouts) writes none.
package workload
