// Package faults describes the faults durasim injects and decides, during a
// run, which of them take effect.
//
// # Plans
//
// A [Fault] is a value of one [Kind]: a crash or pause of an actor at a
// [model.Boundary], a broker duplicate, delay or reorder, a transient,
// permanent or poison extraction failure, a 429 burst, an ambiguous commit,
// deadline pressure on a document, a client's resubmission (the same or an
// edited document) or a document that crashes every worker leasing it. A [Plan] is an ordered list of them.
// Every plan prints as text ([Plan.String], [Plan.OneLine]) that [Parse]
// reads back to the same plan, one fault per line:
//
//	crash after_commit_before_ack nth=1 worker=*
//	pause after_extract nth=1 worker=w2 for=45s
//	crash relay_after_publish_before_mark nth=1
//	duplicate nth=3
//	delay nth=2 for=500ms
//	reorder nth=4
//	transient doc=2 attempt=1     # attempt=* fails every attempt
//	permanent doc=3
//	poison doc=1
//	429 at=2s for=3s
//	ambiguous-commit nth=1
//	deadline doc=1 within=100ms
//	resubmit doc=2                # the client submits the same document again
//	resubmit-edited doc=2         # ... an edited one under the same id: a conflict
//	crash-loop doc=3              # every worker that leases it dies, while faults last
//	malformed doc=1               # the client's first request for it is malformed
//
// Fields come in that fixed order; durations are Go durations. A crash or
// pause at a worker boundary takes worker=wN or worker=* (the default), and
// counts its nth crossing per worker or across all actors; at a relay,
// consumer or API boundary it takes no worker. Faults may also be separated
// by ';', and '#' starts a comment. Errors read "plan:LINE:COL: message".
//
// # Injection
//
// An [Injector] is the runtime side: the simulator calls
// [Injector.Crossing], [Injector.Publish], [Injector.Commit],
// [Injector.WorkError], [Injector.RateLimited] and [Injector.Deadline] as the
// run goes. Explicit plan faults always apply; a [Swarm] (swarm testing:
// per seed, each kind on or off with its own rate, see [NewSwarm]) adds
// random faults up to [SwarmParams.MaxFaults]. [Injector.Stop] starts the
// quiescence phase in which nothing more is injected.
//
// # Replay
//
// [Injector.Realized] lists every fault that took effect as an explicit
// plan; an injector built from it without a swarm gives the same answers to
// the same sequence of calls. So a failing seed's faults can be printed,
// saved, shrunk ([Plan.Without], [Plan.Subset]) and replayed.
//
// # Determinism
//
// All randomness comes from the [scheduler.Stream] passed in (the run's
// faults stream); nothing here reads the clock, starts goroutines or ranges
// over a map, so one seed and one call sequence give one set of faults.
//
// # Generators
//
// [Exhaustive] enumerates every single crash and pause of a small workload,
// [Pairs] every pair of them, and [PlanGen] and [FaultGen] are rapid
// generators of valid plans that shrink toward fewer, simpler faults.
package faults
