// Package faults describes the faults durasim injects and decides, during a
// run, which of them take effect.
//
// # Plans
//
// A [Fault] is a value of one [Kind]: a crash or pause of an actor at a
// [boundary.Boundary], a broker duplicate, delay or reorder, a transient,
// permanent or poison extraction failure, a 429 burst, an ambiguous commit,
// deadline pressure on a document, a client's resubmission (the same or an
// edited document), a document that crashes every worker leasing it, and
// the target seam's handler faults (slow work, a cancel, a snooze), an
// operator's redrive and a document's own max attempts. A [Plan] is an
// ordered list of them. Every plan prints as text ([Plan.String],
// [Plan.OneLine]) that [Parse] reads back to the same plan, one fault per
// line:
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
// The kind comes first, then, for a crash or pause, the boundary, then
// key=value fields, printed in a fixed order (nth, worker, doc, attempt,
// at, for or within, max) and read in any; durations are Go durations.
// Every field a kind takes is required except worker: a crash or pause at
// a worker boundary takes worker=wN (workers are numbered from w0) or
// worker=* (the default), and counts its nth crossing by that worker or by
// all actors; at a boundary no worker crosses (a relay, consumer, API or
// rescuer boundary) it takes no worker. Faults may also be separated by
// ';', and '#' starts a comment. Errors are one line, "plan:LINE:COL:
// message", pointing at the offending token.
//
// # One vocabulary per system, one grammar
//
// Every system durasim tests speaks this grammar. What a system's plans may
// say is its [Vocabulary]: its [boundary.Set], the kinds it has (with each
// kind's fields) and its limits (durations in whole milliseconds, a
// bound on for=, boundaries where only a crash strikes). [Pipeline] is the
// pipeline's, and [Parse] and [Plan.Validate] are its; a target's is
// declared by the target seam (targetsim.Vocabulary) and read with
// [Vocabulary.Parse]. A River plan reads:
//
//	crash after_fetch nth=1 worker=w1
//	pause after_effect nth=2 worker=* for=15s
//	crash rescuer_after_stuck nth=1
//	slow doc=3 attempt=1 for=16s
//	transient doc=2 attempt=*
//	cancel doc=4 attempt=1
//	snooze doc=5 attempt=1 for=3s
//	resubmit doc=1 at=2s
//	redrive doc=2
//	few-attempts doc=3 max=1
//
// A kind or boundary a system does not have is refused with the same
// error for every system: "plan:1:7: river has no boundary after_lease (it
// has after_fetch, ...)", "plan:1:1: the pipeline has no fault kind slow
// (it has crash, ...)".
//
// # One name, one meaning
//
// A kind's name means one thing in every system; where two systems' faults
// mean the same, they share the name, and where they do not, they do not:
//   - transient: a retryable failure of a document's work on one attempt, or
//     on every attempt (attempt=*): the pipeline's extraction error and a
//     target handler's returned error (River retries it, or discards the
//     job at its last attempt) are the same fault.
//   - resubmit: the client submits the same document again. Only when it
//     does is each system's own: the pipeline's client resubmits after its
//     reply ([Resubmit], doc=), a target's client at a time of the plan
//     ([ResubmitAt], doc= at=; unique options make it the same job). They are
//     two kinds with one name, and a system has one of them.
//   - redrive: an operator brings a failed job back under the same logical
//     operation (a target's JobRetry of a discarded or cancelled job); not
//     "retry", which in every system is what the queue does by itself after
//     a transient failure.
//   - slow, cancel, snooze, few-attempts: a target's handler working past
//     the stuck horizon without watching its context, cancelling its job
//     (final; not the pipeline's deadline cancel), snoozing it (the attempt
//     given back), and a document's job inserted with max=K attempts. The
//     pipeline has none of them; few-attempts says what it does, where the
//     key max= says how many.
//   - crash and pause are one pair of kinds at any system's boundaries.
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
