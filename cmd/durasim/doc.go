// Command durasim runs deterministic simulations of durable job pipelines.
//
// # Commands
//
//	run        one seed or a range (-seeds A:B, -parallel N, -json, -shard i/n),
//	           -check-determinism, -exhaustive, or -scenario NAME|all; the
//	           timeline of a failing seed (-html FILE) or of each (-html-dir DIR)
//	replay     the trace of one seed, ending with "hash <hex>" (-html FILE:
//	           also the run as an interactive timeline, package timeline;
//	           with -target river too, html_target.go)
//	shrink     a failing seed reduced to a minimal counterexample
//	mutants    every naive variant: caught, by which invariant, seeds and time
//	           to the first catch, shrunk size (-trials, -json, -exhaustive)
//	scenarios  the course scenarios
//	report     the scenario reports and the River report (river-target),
//	           pt-BR and en, Markdown and HTML site (-out, -lang, -scenario)
//	bench      events/s of durasim against a bare event loop, a
//	           testing/synctest bubble and clock.Mock (-json)
//	chaos      real processes on PostgreSQL, SIGKILLed at named points
//	worker     one process of a chaos run (started by chaos)
//
// The usage text, the unknown-command error and each command's -h come
// from one table (main.go). Every size flag has an upper bound, checked
// before anything is allocated (sim's limits, and this package's for
// seeds per process, -parallel and memory); `durasim <command> -h`
// prints them.
//
// # Exit status
//
// 0 when no invariant is violated, 1 when one is (or a scenario's check does
// not hold), 2 for bad usage or input, with a one-line error — an output
// path that cannot be written is found before the first seed runs —, 130
// for a sweep stopped by SIGINT or SIGTERM, which still prints the summary
// of the seeds that ran, their failures and pages.
//
// # Reproduce commands
//
// A failure's commands are printed as the user runs durasim where they
// are (repro.SelfCLI: go run ./cmd/durasim at the checkout's root, else
// the binary as they ran it); run, replay and shrink read a repro file
// (-repro FILE: every setting and the seed) and change it by flag.
//
// This is the only package with goroutines (parallel seeds, the benchmark's
// goroutine runners); every simulation itself is single-threaded.
package main
