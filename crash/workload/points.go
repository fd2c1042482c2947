package workload

import (
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/targetsim"
)

// The kill points of the handlers, in the order one crosses them (the
// target seam's boundaries of the same places): after_fetch (the library
// handed the job to the handler, nothing done yet), after_effect (the
// effect written: in the handler's open transaction for the
// transactional and keyed designs, durable for effect-outside-tx),
// before_commit (the library's transactional completion returned, the
// transaction not committed: the transactional designs only) and
// after_commit (committed; the handler is about to return nil, which is
// the library's ack or completion for the keyed designs).
var (
	txPoints = boundary.NewSet("a transactional handler", boundary.AfterFetch, boundary.AfterEffect, boundary.BeforeCommit,
		boundary.AfterCommit)
	keyedPoints = boundary.NewSet("a keyed handler", boundary.AfterFetch, boundary.AfterEffect, boundary.AfterCommit)
	plainPoints = boundary.NewSet("a handler", boundary.AfterFetch, boundary.AfterEffect)
)

// Points is the kill points design d's handler crosses on library lib
// ("River"), named for messages ("River's tx-checked handler").
func Points(lib string, d targetsim.Design) boundary.Set {
	name := lib + "'s " + d.String() + " handler"
	switch {
	case Transactional(d):
		return txPoints.Named(name)
	case Keyed(d):
		return keyedPoints.Named(name)
	}
	return plainPoints.Named(name)
}

// Transactional: the effect commits with the library's transactional
// completion (River's JobCompleteTx, goqite's DeleteTx) or not at all.
func Transactional(d targetsim.Design) bool {
	return d == targetsim.TxChecked || d == targetsim.TxAsDocumented
}

// Keyed: the effect is written in a transaction with its ledger key,
// then the handler returns nil for the library to complete the job.
func Keyed(d targetsim.Design) bool {
	return d == targetsim.IdempotentKey || d == targetsim.KeyWithoutTenant
}

// Ended reports whether e is the last write of a run of design d's
// handler: what ends a job's hold, with an error or a timeout.
func Ended(d targetsim.Design, e Entry) bool {
	switch {
	case e.Op == OpError || e.Op == OpTimeout:
		return true
	case Transactional(d) || Keyed(d):
		return e.Op == OpCommit || e.Op == OpRollback || e.Op == OpUnknown
	}
	return e.Op == OpEffect
}
