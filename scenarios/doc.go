// Package scenarios holds the named course scenarios: each turns a claim of
// a course document into a configuration, an explicit fault plan, and the
// expected outcome of the correct design and of the naive variant it
// contrasts with, run on the same seed.
//
// # Shape
//
// A [Scenario] has a name, a title and story in Brazilian Portuguese and
// English, the source it quotes, a config builder and its arms: the
// correct design and one or more naive variants, each with [Check]s over the
// run's [sim.Result]. [Scenario.Run] runs every arm and evaluates every
// check; a naive arm that does not fail as the chapter says is a failure of
// the scenario.
package scenarios
