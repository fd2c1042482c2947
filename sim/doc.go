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
// Package [github.com/durasim/durasim/simtest] runs sweeps from go test:
// -sim.seed=N replays one seed, -sim.seeds=N runs N seeds from a random
// root and prints it; failing seeds are saved under testdata/sim-failures
// and always run first. [Config.Flags] and [Command] give the durasim
// command line that reruns a seed.
//
// # Examples
//
// The examples in example_test.go run under go test, their output
// checked; go doc -http shows them. ExampleRun is one seed,
// ExampleRun_replay the replay of a swarm run's realized plan,
// ExampleShrink a shrunk failure, ExampleRunner a sweep with a [Summary],
// ExampleBackend a store of your own checked in lockstep ([Backend]).
// TestMyConfiguration and TestMyStore there are the README's tests of
// your own configuration and store.
package sim
