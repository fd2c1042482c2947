package workload

import (
	"cmp"
	"slices"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// ToOps turns the history lines of a run into the partial checks' ops:
// sorted by the end of their intervals (T1), numbered from 1, with times
// relative to base and transactions renumbered across processes. A line
// with no op of its own (start, commit_err) leaves none: a transaction
// whose COMMIT returned an error has no end, so its writes count as
// perhaps durable; so does an autocommitted effect whose write returned
// an error (it gets a transaction of its own, with no end).
func ToOps(lines []Entry, base int64) []invariants.TargetOp {
	lines = slices.Clone(lines)
	slices.SortStableFunc(lines, func(a, b Entry) int { return cmp.Compare(a.T1, b.T1) })
	txs := map[procTx]int{}
	tx := func(proc string, n int) int {
		if n == 0 {
			return 0
		}
		k := procTx{proc, n}
		if txs[k] == 0 {
			txs[k] = len(txs) + 1
		}
		return txs[k]
	}
	var out []invariants.TargetOp
	for _, e := range lines {
		o, ok := opOf(e)
		if !ok {
			continue
		}
		o.Tx = tx(e.Proc, e.Tx)
		if e.Op == OpEffect && e.Err != "" && e.Tx == 0 {
			o.Tx = tx(e.Proc+"/unknown", len(txs)+1) // perhaps durable: a transaction with no end
		}
		o.Seq, o.T = uint64(len(out)+1), e.T1-base
		t0 := e.T0
		if t0 == 0 {
			t0 = e.T1
		}
		out = append(out, invariants.TargetOp{Op: o, T0: t0 - base})
	}
	return out
}

type procTx struct {
	proc string
	n    int
}

// opOf is a line's op, without its Seq, times and transaction.
func opOf(e Entry) (target.Op, bool) {
	o := target.Op{Actor: e.Proc, Job: target.JobID(e.Job), Attempt: e.Attempt, Err: e.Err}
	switch e.Op {
	case OpInsert:
		o.Kind, o.Kind2, o.MaxAttempts, o.Unique, o.Skipped = target.OpInsert, targetsim.KindDoc, e.Max, e.Unique, e.Skipped
		o.Args = target.Args{Tenant: e.Tenant, Doc: e.Doc, Version: e.Version}
	case OpFetch:
		o.Kind = target.OpFetch
	case OpWork:
		o.Kind, o.Outcome = target.OpWork, target.Done
	case OpError:
		o.Kind, o.Outcome = target.OpWork, target.Errored
	case OpEffect:
		o.Kind, o.Key, o.Applied = target.OpEffect, e.Key, e.Applied
	case OpComplete:
		st, _ := target.ParseState(e.State)
		o.Kind, o.State = target.OpComplete, st
	case OpCommit:
		o.Kind = target.OpCommit
	case OpRollback:
		o.Kind = target.OpRollback
	case OpTimeout:
		o.Kind = target.OpTimeout
	case OpKill:
		o.Kind, o.Boundary = target.OpCrash, e.Point
	default:
		return o, false
	}
	return o, true
}
