package riverchaos

import "github.com/durasim/durasim/invariants"

// ToOps is toOps for the other real-client handler workloads
// (asynqchaos): their handlers write the same lines (fetch, work, effect,
// commit, rollback, timeout, error, kill, insert), so one conversion
// serves them.
func ToOps(lines []Entry, base int64) []invariants.TargetOp { return toOps(lines, base) }
