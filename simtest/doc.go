// Package simtest runs durasim simulations from `go test`, the way rapid
// runs property tests: seeds come from flags, failures print the seed, the
// plan, the shrunk counterexample and the exact commands that reproduce
// them, and failing seeds are saved under testdata/ and replayed first on
// the next run.
//
// # Flags
//
//	-sim.seed=N    replay only seed N
//	-sim.seeds=N   run N seeds (default: the test's own count)
//	-sim.root=R    derive the seeds from root R instead of a random one
//
// The random root is the only nondeterministic input, and it is printed, so
// every run can be repeated. This package is outside the simulated core: it
// is the one place that reads entropy (crypto/rand) to pick a root.
package simtest
