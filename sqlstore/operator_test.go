package sqlstore

import (
	"errors"
	"testing"

	"github.com/durasim/durasim/model"
)

// The model's two-step dead-letter path, the lease path's unfenced
// transitions, redrive and audit, on every backend.
func TestOperatorOps(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		a := enqueue(t, c, job("a", 0))
		b := enqueue(t, c, job("b", 0))

		// Unfenced (fence 0): the lease path ends a live job, holder or not.
		if err := c.Cancel(ctx, a, 0, model.CodeDeadlineExceeded, 10); err != nil {
			t.Fatal(err)
		}
		if j := jobRow(t, s, a); j.State != model.Cancelled || j.LastCode != model.CodeDeadlineExceeded {
			t.Fatalf("after an unfenced cancel: %+v", j)
		}
		wantFenced(t, "unfenced cancel of a terminal job", c.Cancel(ctx, a, 0, model.CodeDeadlineExceeded, 11), model.CodeNotLeased)

		// Two steps: the DLQ row (twice: it overwrites), then the job dead.
		l := lease(t, c, "w0", 0, 100)
		if l.Job != b {
			t.Fatalf("leased %v, want %v", l.Job, b)
		}
		for _, reason := range []model.Code{model.CodeTransient, model.CodePoisonSchema} {
			if err := c.WriteDLQ(ctx, DLQRow{Job: b, Tenant: "t1", Reason: reason, Attempts: 1}, model.CodePoisonSchema, 20); err != nil {
				t.Fatal(err)
			}
		}
		if dlq := state(t, s).DLQ; len(dlq) != 1 || dlq[0].Reason != model.CodePoisonSchema {
			t.Fatalf("DLQ after two writes = %+v; want one row, the last reason", dlq)
		}
		wantFenced(t, "mark dead with a stale fence", c.MarkDead(ctx, b, l.Fence+1, model.CodePoisonSchema, 21), model.CodeStaleFence)
		if err := c.MarkDead(ctx, b, l.Fence, model.CodePoisonSchema, 21); err != nil {
			t.Fatal(err)
		}

		// Redrive: only a dead job, attempts reset, one more redrive.
		if err := c.Redrive(ctx, a, 30, 1000); !errors.Is(err, ErrNotDead) {
			t.Fatalf("redrive of a cancelled job = %v; want ErrNotDead", err)
		}
		if err := c.Redrive(ctx, b, 30, 1000); err != nil {
			t.Fatal(err)
		}
		if j := jobRow(t, s, b); j.State != model.Pending || j.Attempt != 0 || j.RedriveCount != 1 {
			t.Fatalf("after redrive: %+v", j)
		}
		if l := lease(t, c, "w1", 30, 130); l.Job != b {
			t.Fatalf("the redriven job is not leasable: leased %v", l.Job)
		}

		if err := c.Audit(ctx, AuditRow{Operator: "op-ana", Action: "redrive", Job: b}, 31); err != nil {
			t.Fatal(err)
		}
		if au := state(t, s).Audit; len(au) != 1 || au[0].Operator != "op-ana" || au[0].Job != b {
			t.Fatalf("audit = %+v", au)
		}
	})
}
