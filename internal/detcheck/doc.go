// Package detcheck scans Go source for the constructs that would make a
// durasim run depend on something other than its seed (ARCHITECTURE.md,
// "Determinism", rule 3).
//
// # Rules
//
// [Scan] parses every non-test .go file under a directory with go/parser,
// type-checks each package with go/types (falling back to syntax where a
// type is unknown) and reports a [Finding] for each use of:
//
//   - [RuleWallClock]: time.Now, time.Since, time.Until, time.Sleep,
//     time.After, time.AfterFunc, time.NewTimer, time.NewTicker, time.Tick.
//     Time is read through a clock value and timers are scheduler events.
//   - [RuleGoroutine]: a go statement.
//   - [RuleChannel]: a channel type, a send, a receive, or a range over a
//     channel.
//   - [RuleSelect]: a select statement.
//   - [RuleMathRand]: an import of math/rand (v1, with its global source).
//   - [RuleCryptoRand]: an import of crypto/rand.
//   - [RuleGlobalRand]: anything from math/rand/v2 except the PCG type and
//     NewPCG; its package-level functions draw from a randomly seeded source.
//   - [RuleMapRange]: a range over a map (including a map-typed type
//     parameter), or over maps.Keys, maps.Values or maps.All, whose order
//     Go randomises on purpose.
//
// Calls and selections are recognised by what they resolve to, so aliases
// (import t "time") and dot imports are caught, and a local variable that
// happens to be called rand is not.
//
// # Escape hatch
//
// A map range whose order provably cannot matter (summing, or collecting keys
// that are sorted right after) may be kept by writing, on the line
// immediately above the for statement:
//
//	//det:sorted
//	for k := range m {
//
// Use it sparingly, and say why next to it; it silences only [RuleMapRange],
// only for that one statement. Every other rule has no escape hatch: the
// deterministic core has no business with wall clocks, goroutines,
// channels or unseeded randomness.
//
// # Use
//
// The package's own test scans scheduler, model, faults, invariants, sim and workflow
// and fails listing each finding as file:line: rule: text. Test files are
// not scanned (tests may measure, time out, and use goroutines).
package detcheck
