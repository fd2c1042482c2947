// Package sim wires virtual workers, the model and faults on the
// deterministic scheduler: [Run] executes one seed and returns its trace,
// trace hash, metrics and invariant violations; [Shrink] reduces a failing
// run to a minimal plan and workload; [CheckDeterminism] runs a seed twice
// and reports the first diverging trace line.
//
// # A run
//
// A run has two phases. In the first, documents arrive, workers lease,
// extract, commit and ack, and faults are injected at every named boundary
// (from an explicit plan, from the seed's swarm, or both). In the second
// (quiescence) faults stop and the system is allowed to drain; liveness
// invariants are checked only after it did.
//
// # Actors
//
// Workers, the relay, the consumer, the API, clients and an operator are
// actors on the scheduler; each has at most a few pending events and loses
// its memory when it crashes. Everything durable lives in [model.System].
//
// # Go test integration
//
// Tests use [Flags]: -sim.seed=N replays one seed, -sim.seeds=N runs N seeds
// from a random root and prints it. Failing seeds are saved under
// testdata/sim-failures and replayed first on the next run.
package sim
