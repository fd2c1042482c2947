// Command killer is the sweep that judges a mutant: what `durasim run
// -seeds 1:2000` runs on the correct design, as a small binary that builds
// in a second (the CLI links SQLite and the plotting library) and stops at
// the first failing seed without shrinking it.
//
//	killer [-seeds A:B] [-variant NAME] [-catalogue A:B]
//
// It runs sim.DefaultConfig() — the CLI's flag defaults: swarm on, memory
// backend, StopOnViolation as the CLI's sweep sets it — over the seeds in
// order on one sim.Runner, folding each result into a sim.Summary. A
// failing seed prints one line and exits 1 at once. Otherwise, as the CLI,
// it replays its first seeds with their traces kept and from their
// printed replay commands (sim.Replicate: same hashes; exit 1 if not),
// prints the summary the CLI prints (its traces line folds every seed's
// trace hash in seed order, so equal lines mean equal traces) and exits
// 0. Bad usage exits 2.
//
// With -catalogue it then also does what `durasim mutants -seeds A:B`
// checks: every naive variant of the catalogue is caught in those seeds
// (each stops at its first failing seed). A variant that is not prints
// "catalogue: ..." and exits 1. That is the only sweep that runs the
// variants' own code (model/naive.go, the catalogue in model/design.go):
// a mutant there that turns a variant correct, or hides its bug, is
// killed by the catalogue, and the mutation report counts those kills
// apart from the correct design's sweep.
// One thread: the mutation driver runs mutants side by side.
package main
