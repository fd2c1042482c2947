// Package riverinproc is River's in-process mode, `durasim chaos -target
// river -inprocess`: River's started clients (river.NewClient and Start:
// producer, executor, batch completer, leader election, job rescuer, job
// scheduler, River's default retry policy) on riversqlite over one SQLite
// file, every one inside one testing/synctest bubble (internal/bubble),
// so that River's time.Now, timers and tickers are the bubble's virtual
// clock: a minute of River's time costs about two seconds. River's
// Config.Test.Time carries that clock into River's SQL.
//
// It is crash/workload's workload with its children in-process, not a
// second one: the Handler of every design with its kill points and its
// history lines, the documents (workload.DocOf, every fifth inserted
// twice), the freezes' holdings (workload.Ended), ToOps, the Report and
// invariants.CheckTarget with riverchaos's feed (riverchaos.Feed). What
// it owns is the in-process supervisor ([RunSeed]): the slots and their
// incarnations, the kill points handed out (each point once first, in an
// order the seed picks), the backlog, the freezes.
//
// # Kills and freezes
//
// Every client's connections are a database/sql driver wrapped by a gate
// ([ErrKilled]). At its kill point a client's history is cut after the
// kill line, its gate shut (every later call fails; a COMMIT rolls back,
// as the server does when a connection drops), the client stopped with
// StopAndCancel and a new incarnation started; its job is left for
// River's rescuer. A frozen client's calls stall at the gate until River
// has handed its job to another client (a zombie) or MaxFreeze; unlike a
// SIGSTOP, its goroutines' timers still run (the handler's work, River's
// pollers), only its database calls stop. SQLite's one writer is a lock
// on a channel of the bubble, taken at BEGIN and by each statement outside
// a transaction: SQLite's own busy wait sleeps in real time, outside the
// bubble's clock.
//
// # What replays
//
// The seed picks durasim's choices: the kill points and their order, the
// freezes, the handler's work times, the re-inserts. Go's scheduler still
// interleaves River's goroutines, so a seed's run is not replayed exactly
// (the deterministic mode, targetsim with target/rivertarget, is): [Sweep]
// runs a failing seed Reruns more times and says how often it failed
// again, with the command that runs it once more ([Config.Command]).
//
// # Shrinking to a deterministic plan
//
// Each failure's record (its history lines: the kills with their points,
// the freezes with their jobs and lengths, the inserts' documents) is
// translated into candidate plans of targetsim's fault grammar — a kill
// as a crash at the boundary of the same name by the slot's worker, a
// freeze as a pause after that worker's fetch of the job, as slow work
// of its document, or (a never-killed client leads and runs River's
// rescuer) as a pause of the rescuer between its two calls — which run on
// the deterministic mode (rivertarget) with the same design and seed; the
// first that fails the same check is shrunk by [targetsim.Shrink] and its
// `durasim run` command printed ([Shrinking.Line]); when none fails, the
// line says so.
package riverinproc
