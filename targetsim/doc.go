// Package targetsim is the seeded sweep of a queue durasim does not own:
// the actors that drive a [target.Queue] — clients that insert documents,
// workers that fetch, work, run a handler and report, the rescuer, the
// scheduler and an operator — each call one step on the scheduler with
// durasim's virtual time passed in, the faults of a plan striking at the
// target seam's boundaries, and the one target oracle
// ([invariants.CheckTarget]) judging the history and the state read back.
//
// # A run
//
// [Run] resets the queue for a seed, schedules the workload (documents
// arriving, workers polling at the target's fetch cadence, maintenance
// passes, the operator, the end of the faults) and steps the scheduler
// until nothing is left to do or the quiescence window ends. Every call's
// question and answer is recorded as a [target.Op]; the trace is one
// line per op and its hash ([Result.Hash]) is the same on every run of
// the seed. The oracle reads only those ops and the [target.Snapshot],
// against what the queue declares it promises ([target.Policy]). A run
// kept with its trace ([Config.KeepTrace]) also says when each worker
// incarnation lived ([Incarnation]) and on which op each fault of the
// plan took effect ([Strike]): what package timeline draws beside the
// ops; neither is part of the trace or its hash.
//
// # Handler designs
//
// A [Design] is how a worker's handler writes its effect and completes
// its job: the correct ones (an effect and the job's completion in one
// transaction, checked; an outbox with a deduplicating consumer; an
// idempotency key naming the tenant) and the naive ones a team writes on
// top of an at-least-once queue. The effect and tenant checks
// ([invariants.TargetHandlerCheck]) judge the handler; the others judge
// the queue's own guarantees.
//
// # Faults
//
// A plan is written in the model's grammar (package faults) against the
// seam's vocabulary ([Vocabulary]): crashes and pauses at the seam's
// boundaries (after_fetch, after_work, after_effect, before_commit,
// after_commit, after_report, rescuer_after_stuck), workers numbered from
// w0 as in the model, and the document faults slow, transient, cancel,
// snooze, resubmit (at a time), redrive and few-attempts. With
// [Config.Swarm] each seed adds its own faults (swarm testing). [Shrink]
// reduces a failing seed to a minimal plan, documents and workers, and
// prints the command that replays it.
package targetsim
