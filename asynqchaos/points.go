package asynqchaos

import (
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/targetsim"
)

// The kill points of the handlers, in the order one crosses them:
// after_fetch (asynq handed the task to the handler, nothing done yet),
// after_effect (the effect written: in the handler's open transaction
// with its ledger key for the keyed designs, durable for effect-outside-tx)
// and, for the keyed designs, after_commit (committed; the handler is
// about to return nil, which is asynq's ack: the server then removes
// the task from the active list, if its lease still holds). A kill
// anywhere leaves the task active until its lease runs out and the
// recoverer takes it back.
var (
	keyedPoints = boundary.NewSet("asynq's keyed handler", boundary.AfterFetch, boundary.AfterEffect, boundary.AfterCommit)
	plainPoints = boundary.NewSet("asynq's handler", boundary.AfterFetch, boundary.AfterEffect)
)

// PointsOf is the kill points design d's handler crosses.
func PointsOf(d targetsim.Design) boundary.Set {
	if keyed(d) {
		return keyedPoints.Named("asynq's " + d.String() + " handler")
	}
	return plainPoints.Named("asynq's " + d.String() + " handler")
}
