package riverchaos

import (
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/targetsim"
)

// The kill points of the handlers, in the order one crosses them (the
// target seam's boundaries of the same places): after_fetch (River handed
// the job to Work, nothing done yet), after_effect (the effect written:
// in the handler's transaction for the transactional designs, durable for
// the others), before_commit (JobCompleteTx returned, its transaction not
// committed), after_commit (committed, Work not returned yet). The
// non-transactional designs have no JobCompleteTx and no commit.
var (
	txPoints = boundary.NewSet("River's transactional handler", boundary.AfterFetch, boundary.AfterEffect, boundary.BeforeCommit,
		boundary.AfterCommit)
	plainPoints = boundary.NewSet("River's non-transactional handler", boundary.AfterFetch, boundary.AfterEffect)
)

// PointsOf is the kill points design d's handler crosses.
func PointsOf(d targetsim.Design) boundary.Set {
	if transactional(d) {
		return txPoints.Named("River's " + d.String() + " handler")
	}
	return plainPoints.Named("River's " + d.String() + " handler")
}

// Killer decides, at each point a handler crosses, whether the process
// dies there (package crash: the kill line, then SIGKILL to itself). The
// zero value (and nil) never kills.
type Killer = crash.Killer[Entry]
