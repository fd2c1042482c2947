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
// and always run first.
//
// # Reproducing a failure
//
// Every setting of a [Config] has a flag of the CLI or a key in a repro
// file: the table in command.go (package internal/repro reads the struct
// by reflection, nested structs included, and refuses a field of a type
// with no text form). [Config.Flags] gives the flags of the settings that
// differ from [DefaultConfig], [Config.Unflagged] those no flag sets,
// [WriteRepro] and [ReadRepro] the repro file, which holds every setting
// and the seed. A [Reproducer] prints the commands of a failure as the
// user runs durasim where they are, writing a repro file where flags
// cannot say everything; a backend of the user's own (not a
// [CLIBackend]) gets its go test line only. [WriteFailure] prints the
// failure's story: the whole run's violations, the shrunk run's own
// violation with its events marked in its counterexample.
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
