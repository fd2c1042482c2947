// Package crash is durasim's one real-crash supervisor: it runs a
// system's actors as child processes, kills them with SIGKILL at named
// points (boundary names: the child kills itself there), freezes them
// with SIGSTOP, restarts them, and hands the workload back what it
// counted; the workload then checks the system from the children's
// histories and its final state. It is the only place with processes
// and signals, a child's self-kill aside.
//
// A system under test costs a [Workload], never a second supervisor (as
// TigerBeetle's Vortex: one supervisor, one small driver per system).
// The pipeline runs on it as package chaos (sqlstore on PostgreSQL,
// `durasim chaos`); every queue library as one workload, package
// crash/workload, with an adapter per library: riverchaos (`durasim
// chaos -target river`), asynqchaos (`-target asynq`).
//
// # The workload
//
// A workload declares its [Role]s in a [Config]: a name, a prefix for its
// children's names, a number of slots (the first Steady of them never
// given a kill point), its kill points as a [boundary.Set], the
// statement boundaries of each inside point, and MaxNth (how late a
// point handed out again may fire). It implements [Workload]:
//
//   - Args: a child's command line, built from the [Child] (role, slot,
//     incarnation, kill point, history file);
//   - Tick: every Config.Tick of the kill phase (keep work coming);
//   - Drained: every Config.Tick of the drain (true ends it);
//   - Ended: a child's end (chaos carries a consumer's cursor over);
//   - Freeze: every Settings.PauseEvery, which running child to freeze
//     and its thaw condition ([Freeze]): chaos freezes a lease holder
//     for a duration (Max, no condition); River's thaw is "another
//     client fetched the frozen child's job";
//   - Goal: the workload's own goals of the kill phase (River's: a
//     number of takeovers), with its progress for the log lines.
//
// A child uses [Begin] (signals and history), a [Killer] armed with its
// [Assignment] (from the flags [Assignment.Flags] defines and
// [Assignment.Args] writes) and its own line type, which implements
// [Line] and carries a [Mark]'s fields under their JSON names: that is
// how the supervisor reads every workload's histories.
//
// # The life of a child
//
// [Supervisor.Run] runs two generations of every slot: the killing one,
// then the clean one that drains; incarnations count across both (w3,
// w3.1, w3.2, ...). In the killing generation each new child gets a kill
// point from the hand-out: a point of its role with no kill yet and
// nobody waiting at it, at its first crossing, while Kills covers every
// point; else, while fewer than Kills kills landed, any point of its
// role at one of its first MaxNth crossings; else none. An inside point
// (between two statements of one operation) gets a statement boundary at
// random. The child is spawned (the binary, Args, Config.Env, its own
// log file, Pdeathsig: it dies with the supervisor) and runs until it
// dies at its point, then its slot starts the next. The kill phase ends
// once Kills kills landed, each point had one (unless Kills is below
// their number) and the workload's Goal holds; its children are then
// stopped, and after Config.DrainDelay the clean generation runs until
// Drained, or Settings.Drain runs out.
//
// A stop is bounded: SIGTERM (and SIGCONT, for a frozen child must run
// to see it), then, Config.StopWait later, SIGKILL: a hard stop, counted,
// and written into the child's history as a kill line at [HardStop],
// which the checks read as a crash (its last lines may be lost).
//
// A child that has been awake (its freezes left out) longer than
// Settings.Reach without reaching its point is stopped, and the run ends
// with a verdict naming the point and why: the child writes, as it
// stops, an armed line ([Killer.Disarm]) saying how often it crossed the
// point and, for an inside point, how many runs of its operation ended
// and the most statement boundaries one passed, so that a store running
// fewer statements than the point expects is told from a point merely
// not crossed. Without the bound such a run waited for ever.
//
// # Classification
//
// Each end of a child is one of:
//   - killed at its point: SIGKILL, and a kill line at its point in its
//     history (any line: other goroutines may write after it); counted
//     per point and per statement boundary, and the slot restarts;
//   - stopped: its generation stopping, and it exited 0 or by SIGTERM;
//   - hard-stopped: SIGKILLed after StopWait, counted;
//   - not reached: stopped by the Reach bound; the run fails with the
//     verdict;
//   - died otherwise: the run fails with one line, its exit and the
//     tail of its log.
//
// A failed run keeps its directory (its histories and logs), and its
// error says where; a passing one's temporary directory is removed
// ([Supervisor.Finish]). A -dir that holds histories is refused.
package crash
