// Package riverchaos is durasim's real-crash mode for River: River's own
// client (river.Client over riverpgxv5, real time, its producer,
// executor, completer, leader election, rescuer and scheduler as they
// ship) in child processes on PostgreSQL, SIGKILLed at named points of
// the handler, frozen (SIGSTOP) past RescueStuckJobsAfter, restarted, and
// checked from the children's histories and the database with the target
// checks fed a partial history ([invariants.CheckTarget]).
//
// `durasim chaos -target river` runs it ([Run]); `durasim river-worker`
// is one child ([RunChild]). It is River's adapter to package
// crash/workload, the one queue workload on package crash's supervisor
// (which owns the processes, the signals, the kill-point hand-out and the
// histories' files); the workload owns the handler of every design, the
// kill points, the inserts' schedule, the freezes, the histories' lines
// and the report. This package brings what is River's: the child (a River
// client whose worker hands each job to the workload's handler, with
// JobCompleteTx as its transactional completion), the inserts through
// River's client, when River has taken a frozen child's job over, whether
// a freeze caught a handler inside JobCompleteTx's transaction, the jobs
// read back through River's driver, the leaders, and River's rules.
//
// # What is River's code and what is durasim's
//
// River's: everything between a document's insert and its handler's
// return, and after it: the client's Insert (unique by args), the
// producer's fetch, the executor (the job's context and its JobTimeout),
// JobCompleteTx, the completer, the elector, the rescuer and the
// scheduler, and rivermigrate. durasim's: the supervisor and this workload
// (the orchestrator), which inserts the documents through an insert-only
// client (never started, so never a leader: every term of leadership is a
// child's, and the report checks it), starts and kills the children, and
// freezes them; the handlers ([targetsim.Design]: tx-checked,
// idempotent-key, tx-as-documented, effect-outside-tx) and their effects
// table (durasim_effect, the shape of target/rivertarget's); and one
// setting: River's default retry policy capped at Config.RetryCap, so that
// a job rescued four times comes back within a run (River's would wait
// 256 s).
//
// # Kill points
//
// A child told `-kill-at P -kill-nth N` writes a kill line and SIGKILLs
// itself (package crash's Killer, as package chaos's children do) on
// the Nth crossing of P by any of its handlers ([PointsOf]): after_fetch
// (Work received the job), after_effect (the effect written: inside the
// handler's transaction for the transactional and keyed designs, durable
// for effect-outside-tx), before_commit (JobCompleteTx returned, COMMIT
// not sent) and after_commit. PostgreSQL rolls back whatever transaction the dead
// process had open; River rescues its jobs once they are
// RescueStuckJobsAfter old.
//
// # The run
//
// [Run] migrates River's schema and durasim's tables, empties them
// (refusing a database where another River client leads), inserts the
// documents (every fifth twice: River skips the second), and starts
// Config.Workers children. Each new child of a killing slot gets a kill
// point from the supervisor: one not killed yet, else any, so every point
// is covered early. The first Config.Steady slots get none, and during the
// kill phase they alone take part in River's leader election (the others
// run with LeaderElectionDisabled, unless Config.KilledLead): a fresh
// client bids for leadership as it starts, so under constant restarts the
// one that wins once the dead leader's term expires is nearly always about
// to die too, before River's rescuer (every 30 s, not configurable) and
// scheduler (every 5 s) have run. A child that dies at its point is
// restarted with a new one. Every Config.PauseEvery a child holding a job
// holding a job (its history says so) is frozen until another client has fetched that job (River
// found it stuck and retried it), then thawed at once, while the new
// holder is still at its work: a zombie whose job context has expired
// meanwhile. Once -kills kills landed (each point had one) and -zombies
// freezes ended in a takeover, every child is stopped (SIGTERM: River's
// soft stop; SIGKILL after 30 s, a hard stop, its history given a kill
// line at hard_stop), and after RescueStuckJobsAfter they are all
// restarted without kill points until every job is finished or
// Config.Drain runs out.
//
// # Histories and checks
//
// Each child appends one JSON line per operation (workload.Entry), one write(2)
// each, with wall-clock times before and after it: the fetch as Work
// received it (job, attempt; T0 is River's attempted_at), the end of the
// work, the effect written, JobCompleteTx's returned state and attempt,
// the commit or rollback (a COMMIT that returned an error is its own
// line: committed or not, unknown), timeouts (the work context had
// expired) and kills; the orchestrator's client appends the inserts and
// the freezes. The lines become [target.Op]s in interval order
// (workload.ToOps), the final jobs (River's driver, JobGetByIDMany) and effects a
// [target.Snapshot], and [invariants.CheckTarget] checks them under a
// partial feed: killed processes lose lines and River's own maintenance
// writes none, so each check uses only what such a history proves (and
// target-retry-timing, which needs the rescuer's and scheduler's writes,
// is not run). The [Report] (the workload's, with River's leaders) prints kills per point, restarts,
// freezes, leaders, jobs by final state, effects, exposures, and each
// check's verdict.
//
// # What a freeze can do to River
//
// A freeze that catches one of the child's handlers inside JobCompleteTx's
// transaction (the orchestrator sees an idle-in-transaction session of
// the child holding river_job's RowExclusiveLock) keeps that job's row
// locked; once the job is RescueStuckJobsAfter old, River's rescuer,
// whose single UPDATE covers every stuck job, waits on the lock, and no
// stuck job is rescued until the child wakes. The report counts those
// freezes; the thaw line of the orchestrator's history says how many
// sessions were waiting.
package riverchaos
