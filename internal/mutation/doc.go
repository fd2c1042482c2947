// Package mutation measures how strong durasim's oracles are: which
// statements of a package the standard sweep reaches ([Cover]), and how
// many small deliberate bugs in those statements the sweep notices
// ([Enumerate] and [Run]). It is tooling, not part of the deterministic
// core: it runs the go command, starts processes and uses goroutines.
//
// # Coverage
//
// [Cover] builds a main package with -cover over the measured packages,
// runs it once with GOCOVERDIR set and reads the counters back with `go
// tool covdata textfmt` into a [Profile]. `make cover` prints model/'s
// statement coverage under `durasim run -seeds 1:2000` and every block the
// sweep never reaches, grouped by function.
//
// # Mutants
//
// [Enumerate] walks the package's non-test files with go/ast and lists one
// [Mutant] per applicable [Operator] at each site, in file and source
// order. Besides Go's own operators, a string literal that reads as SQL
// gets the changes a bug in a query makes (sql-literal: a comparison moved
// or negated, an equality in a condition negated, AND to OR, a NOT
// dropped, + and - swapped; sqlmut.go), so `make mutation-sql` measures
// the store's queries too. A mutant is a byte-range replacement of the original file, so the
// mutated file keeps every other byte and line number. Its [Mutant.ID]
// names it by file, function, operator, the original and mutated snippets
// and its occurrence among identical ones in the function: it does not
// move when lines are added elsewhere, so survivors argued equivalent in
// a checked-in file (see [ParseEquivalents]) stay matched.
//
// # Running
//
// [Run] type-checks every mutant (one that does not compile is not
// viable), skips those on statements the killer's own coverage run never
// reached, and runs the killer against each of the others. The killer —
// by default internal/mutation/cmd/killer, the sweep of `durasim run
// -seeds 1:2000` stopping at the first failing seed — kills a mutant by
// exiting non-zero: a violation, a crash, or running past the timeout (a
// multiple of the unmutated sweep's time).
//
// Mutants are applied with `go build -overlay`, which swaps the changed
// files in without copying or touching the repository. With
// [Options.Schemata] (the default of `make mutation`) one build holds
// every mutant that can be switched at run time, each one selected by an
// environment variable (see schema.go); the rest are built one at a time.
// The schema with no mutant on must print what the unmutated killer
// prints, trace hash included, and testdata/sample checks that both ways
// judge every kind of mutant alike.
//
// What is not mutated, and why: code outside function bodies (package-level
// tables and constants, which coverage cannot attribute to the sweep), the
// arguments of panic calls (only the text of a crash that already fails the
// run), and the post statement of a for loop for statement removal (it
// turns the loop into a hang that only the timeout can kill, telling
// nothing about the oracles).
package mutation
