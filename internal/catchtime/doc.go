// Package catchtime is the headline figure of a finding: how long a sweep
// takes to show it, as seeds to its first failing seed times the seconds
// a seed of that sweep costs, the median over trials (disjoint seed
// ranges of one length). Seeds to catch say how rare the bug is; seconds
// per seed say what each seed of that system costs; their product is what
// a user waits for. `durasim mutants -json` reports it for the model's
// variants and, with -target, for a target's handler designs and its own
// findings; examples/ownqueue's benchmark for its planted bugs.
package catchtime
