// Package simtest runs durasim simulations from `go test`, the way rapid
// runs property tests: seeds come from flags, failures print the seed, the
// plan, the shrunk counterexample and the exact commands that reproduce
// them, and failing seeds are saved under testdata/ and run first on every
// later run.
//
//	func TestPipeline(t *testing.T) {
//		cfg := sim.DefaultConfig()
//		cfg.Workers, cfg.Docs = 8, 50
//		simtest.Sweep(t, cfg, 200) // 200 seeds from a random root
//	}
//
// # Flags
//
//	-sim.seed=N    run seed N (after the saved failing seeds)
//	-sim.seeds=N   run N seeds (default: the test's own count)
//	-sim.root=R    derive the seeds from root R instead of a random one
//
// # Saved failures
//
// [Fail] appends a failing seed to testdata/sim-failures/<test>. [Seeds]
// returns the seeds in that file first, whatever the flags (-sim.seed
// included), so a failure stays red until it is fixed; commit the file, and
// delete a line to retire its seed.
//
// # Reproducing a failure
//
// A failure prints, from the root of the module under test, the go test
// line that reruns it (-run '^Test$/^sub$' for a subtest, -sim.seed=N)
// and the durasim commands: go run ./cmd/durasim in durasim's own module,
// else the installed durasim and how to install the version the module
// uses (go -C CHECKOUT install ./cmd/durasim where go.mod replaces
// durasim by a directory). A configuration with a setting no flag sets
// gets a repro file beside the saved seed,
// testdata/sim-failures/<test>.seed-N.repro, which the commands read
// (durasim replay -repro FILE). A store of the user's own gets the go
// test line only.
//
// # The test's deadline
//
// [Sweep] stops starting seeds while the test's deadline (go test
// -timeout) still leaves time to shrink and report a failure, and fails
// saying how many seeds ran.
//
// # The random root, and go test's cache
//
// The random root is the only nondeterministic input. Each sweep prints it
// on stderr in one line, with the flag that repeats it, and writes it to
// testdata/sim-runs/<test> (a directory that ignores itself in git). go
// test shows the line with -v, in local directory mode (a bare `go test`
// in the package's directory) and when the test fails; for a passing
// package in `go test ./...`, which prints only "ok", read the file.
//
// go test caches passing runs, which would make a second `go test` print
// the first run's result without drawing new seeds. It does not cache a
// run that opened a file modified less than 2 s before the run ended;
// the record is opened and dated a day ahead, so every plain `go test` of
// a sweep draws new seeds. (-count=1, the documented way to bypass the
// cache, works too, as does any -sim.* flag.)
//
// # Examples
//
// The examples in example_test.go run under go test, their output
// checked; go doc -http shows them. ExampleSweep is a sweep,
// ExampleSweep_savedFailure a test with a saved failing seed, ExampleSeeds
// the seeds -sim.seed runs, ExampleSeedsFrom the seeds a root derives.
//
// This package is outside the simulated core: it is the one place that
// reads entropy (crypto/rand) to pick a root.
package simtest
