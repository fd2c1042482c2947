package workload

import (
	"testing"

	"github.com/durasim/durasim/target"
)

// History lines become the partial checks' ops in T1 order, transactions
// renumbered across processes; a COMMIT that returned an error leaves its
// transaction without an end, and an autocommitted effect whose write
// returned an error gets a transaction of its own, with no end.
func TestToOps(t *testing.T) {
	lines := []Entry{
		{Op: OpInsert, Proc: "client", Job: 1, Tenant: "acme", Doc: "d1", Version: 1, Max: 5, Unique: true, T0: 100, T1: 110},
		{Op: OpStart, Proc: "w1", T0: 105},
		{Op: OpFetch, Proc: "w1", Job: 1, Attempt: 1, T0: 120, T1: 130},
		{Op: OpEffect, Proc: "w1", Job: 1, Attempt: 1, Tx: 1, Key: "acme:d1:v1", Applied: true, T0: 140, T1: 150},
		{Op: OpComplete, Proc: "w1", Job: 1, Attempt: 1, Tx: 1, State: "completed", RowAttempt: 1, T0: 150, T1: 160},
		{Op: OpUnknown, Proc: "w1", Job: 1, Attempt: 1, Tx: 1, Err: "conn closed", T0: 160, T1: 170},
		{Op: OpFetch, Proc: "w2", Job: 1, Attempt: 2, T0: 175, T1: 180},
		{Op: OpEffect, Proc: "w2", Job: 1, Attempt: 2, Tx: 1, Key: "acme:d1:v1", Applied: true, T0: 181, T1: 182},
		{Op: OpCommit, Proc: "w2", Job: 1, Attempt: 2, Tx: 1, T0: 183, T1: 184},
		{Op: OpEffect, Proc: "w3", Job: 1, Attempt: 3, Key: "acme:d1:v1", Applied: true, Err: "timeout", T0: 185, T1: 186},
		{Op: OpKill, Proc: "w3", Job: 1, Attempt: 3, Point: "after_effect", T0: 187, T1: 187},
	}
	ops := ToOps(lines, 100)
	want := []struct {
		kind  target.OpKind
		actor string
		tx    int
	}{
		{target.OpInsert, "client", 0}, {target.OpFetch, "w1", 0}, {target.OpEffect, "w1", 1}, {target.OpComplete, "w1", 1},
		{target.OpFetch, "w2", 0}, {target.OpEffect, "w2", 2}, {target.OpCommit, "w2", 2}, {target.OpEffect, "w3", 3}, {target.OpCrash, "w3", 0},
	}
	if len(ops) != len(want) {
		t.Fatalf("%d ops, want %d: %+v", len(ops), len(want), ops)
	}
	for i, w := range want {
		o := ops[i]
		if o.Op.Kind != w.kind || o.Op.Actor != w.actor || o.Op.Tx != w.tx || o.Op.Seq != uint64(i+1) {
			t.Errorf("op %d = %s (tx %d, seq %d), want %s by %s tx %d", i, o.Op, o.Op.Tx, o.Op.Seq, w.kind, w.actor, w.tx)
		}
	}
	if ins := ops[0]; ins.Op.Args != (target.Args{Tenant: "acme", Doc: "d1", Version: 1}) || ins.Op.MaxAttempts != 5 || !ins.Op.Unique || ins.T0 != 0 || ins.Op.T != 10 {
		t.Errorf("insert %+v", ins)
	}
	if c := ops[3]; c.Op.State != target.Completed {
		t.Errorf("complete_tx state %s", c.Op.State)
	}
}
