// Package scenarios holds the named course scenarios: each turns a claim of
// a course document (seeds 000, 003 and 004) into a configuration, an
// explicit fault plan, and the expected outcome of the correct design and
// of the naive variants it contrasts with, run on the same seed.
//
// # Shape
//
// A [Scenario] has a name, a title, the chapter's claim and the run's story
// in Brazilian Portuguese and English, its [Source]s (with a verbatim
// quote), a config builder, the charts its report draws, and its arms. An
// [Arm] is a design (the correct one or a naive variant, by its -variant
// name), optionally with a Tweak of the config (the backoff strategy, the
// breaker, the workers), or a Custom experiment that is not a simulation
// (the workflow replay of llm-in-replay). Each arm has [Check]s over its
// [Outcome]; a check may compare the arm with another (full jitter against
// fixed delay, one worker against four).
//
// [Scenario.Run] runs every arm and evaluates every check. A naive arm that
// does not fail as the chapter says is a failure of the scenario; an arm
// whose variant is not registered is reported as Missing and not run.
//
// `durasim run -scenario NAME` prints the checks; package reports renders
// the scenarios as Markdown with charts.
package scenarios
