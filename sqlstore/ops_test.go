package sqlstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

func TestEnqueueIdempotent(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k1", 0))
		id2, created, err := c.Enqueue(ctx, job("k1", 5))
		if err != nil || created || id2 != id {
			t.Fatalf("duplicate enqueue = %v, %v, %v; want %v, false, nil", id2, created, err, id)
		}
		other := job("k1", 5)
		other.PayloadHash = 7
		if _, _, err := c.Enqueue(ctx, other); !errors.Is(err, ErrIdempotencyConflict) {
			t.Fatalf("conflicting enqueue: err = %v; want ErrIdempotencyConflict", err)
		}
		explicit := job("k2", 0)
		explicit.ID = 10
		if got := enqueue(t, c, explicit); got != 10 {
			t.Fatalf("explicit id: got %v", got)
		}
		st := state(t, s)
		if len(st.Jobs) != 2 || st.Jobs[0].Key != "k1" || st.Jobs[0].State != model.Pending {
			t.Fatalf("jobs = %+v", st.Jobs)
		}
		for _, bad := range []NewJob{{Key: "", MaxAttempts: 1}, {Key: "x", MaxAttempts: 0}, {Key: "x", ID: -1, MaxAttempts: 1}} {
			if _, _, err := c.Enqueue(ctx, bad); err == nil || strings.Contains(err.Error(), "\n") {
				t.Errorf("Enqueue(%+v): err = %v; want a one-line error", bad, err)
			}
		}
	})
}

func TestLeaseOrderFenceAndExclusive(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		b := enqueue(t, c, job("b", 20))
		a := enqueue(t, c, job("a", 10))
		x := enqueue(t, c, job("x", 10)) // same time as a: id breaks the tie
		noLease(t, c, 9)
		l1 := lease(t, c, "w0", 100, 200)
		l2 := lease(t, conn(t, s), "w1", 100, 200)
		l3 := lease(t, c, "w0", 100, 200)
		if l1.Job != a || l2.Job != x || l3.Job != b {
			t.Fatalf("lease order = %v %v %v; want %v %v %v", l1.Job, l2.Job, l3.Job, a, x, b)
		}
		if l1.Fence != 1 || l2.Fence != 2 || l3.Fence != 3 {
			t.Fatalf("fences = %d %d %d; want 1 2 3", l1.Fence, l2.Fence, l3.Fence)
		}
		if l1.Attempt != 1 || l1.Key != "a" || l1.Tenant != "t1" || l1.Payload != 1<<63|42 || l1.Stage != model.StageIngest {
			t.Fatalf("lease = %+v", l1)
		}
		noLease(t, c, 199) // all held
		// Lease expiry: the earliest expired lease goes again, with a new fence.
		if err := c.Heartbeat(ctx, l1.Job, l1.Fence, 300); err != nil {
			t.Fatal(err)
		}
		// At 200, x's and b's leases expired at once: the id breaks the tie.
		l4 := lease(t, c, "w2", 200, 400)
		if l4.Job != b || l4.Fence != 4 || l4.Attempt != 2 {
			t.Fatalf("redelivery = %+v; want %v fence 4 attempt 2", l4, b)
		}
		wantFenced(t, "zombie heartbeat", c.Heartbeat(ctx, b, l3.Fence, 500), model.CodeStaleFence)
		wantFenced(t, "zombie ack", c.Ack(ctx, b, l3.Fence, 200), model.CodeStaleFence)
		wantFenced(t, "zombie advance", c.Advance(ctx, b, l3.Fence, model.StageExtract), model.CodeStaleFence)
		wantFenced(t, "zombie retry", c.Retry(ctx, b, l3.Fence, 900, model.CodeTransient), model.CodeStaleFence)
		wantFenced(t, "zombie dead", c.Dead(ctx, b, l3.Fence, model.CodePermanentError, 200), model.CodeStaleFence)
		wantFenced(t, "unknown job", c.Ack(ctx, 999, 1, 200), model.CodeNotFound)
		if err := c.Ack(ctx, b, l4.Fence, 200); err != nil {
			t.Fatal(err)
		}
		wantFenced(t, "second ack", c.Ack(ctx, b, l4.Fence, 200), model.CodeNotLeased)
		if j := jobRow(t, s, b); j.State != model.Succeeded || j.Stage != model.StageDone || j.Fence != 4 || j.Attempt != 2 {
			t.Fatalf("acked job = %+v", j)
		}
	})
}

func TestLeaseCancelsAndDeadLetters(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		late := job("late", 0)
		late.DeadlineAt = 50
		late.MaxAttempts = 1
		lateID := enqueue(t, c, late)
		once := job("once", 1)
		once.MaxAttempts = 1
		onceID := enqueue(t, c, once)
		fine := enqueue(t, c, job("fine", 30)) // ready after the two leases expire

		l := lease(t, c, "w0", 10, 20) // late is first and still in time
		if l.Job != lateID {
			t.Fatalf("leased %v; want %v", l.Job, lateID)
		}
		l = lease(t, c, "w0", 10, 20)
		if l.Job != onceID {
			t.Fatalf("leased %v; want %v", l.Job, onceID)
		}
		// At 60 both leases expired: late is past its deadline (cancelled,
		// checked first although it has no attempt left either), once has
		// no attempt left (dead), and fine is leased.
		l = lease(t, c, "w1", 60, 1000)
		if l.Job != fine {
			t.Fatalf("leased %v; want %v", l.Job, fine)
		}
		st := state(t, s)
		if j := st.Jobs[0]; j.State != model.Cancelled || j.LastCode != model.CodeDeadlineExceeded || j.Fence != 1 {
			t.Fatalf("late = %+v; want cancelled deadline_exceeded, fence kept", j)
		}
		if j := st.Jobs[1]; j.State != model.Dead || j.LastCode != model.CodeMaxAttemptsExceeded {
			t.Fatalf("once = %+v; want dead max_attempts_exceeded", j)
		}
		want := []DLQRow{{Job: onceID, Tenant: "t1", Reason: model.CodeMaxAttemptsExceeded, Attempts: 1, At: 60}} // written by the lease at 60
		if fmt.Sprint(st.DLQ) != fmt.Sprint(want) {
			t.Fatalf("dlq = %+v; want %+v", st.DLQ, want)
		}
		if l.Fence != 3 {
			t.Fatalf("fence = %d; want 3 (cancel and dead-letter take none)", l.Fence)
		}
		// A lease attempt that only cancels still commits the cancel.
		c2 := job("c2", 100)
		c2.DeadlineAt = 110
		c2ID := enqueue(t, c, c2)
		noLease(t, c, 120)
		if j := jobRow(t, s, c2ID); j.State != model.Cancelled {
			t.Fatalf("c2 = %+v; want cancelled", j)
		}
	})
}

func TestFencedOps(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k", 0))
		l := lease(t, c, "w0", 0, 100)
		if err := c.Heartbeat(ctx, id, l.Fence, 300); err != nil {
			t.Fatal(err)
		}
		noLease(t, c, 200) // the heartbeat moved the lease on
		if err := c.Advance(ctx, id, l.Fence, model.StageValidate); err != nil {
			t.Fatal(err)
		}
		if err := c.Advance(ctx, id, l.Fence, model.StageExtract); err != nil {
			t.Fatal(err)
		}
		if j := jobRow(t, s, id); j.Stage != model.StageValidate {
			t.Fatalf("stage = %v; the checkpoint never moves back", j.Stage)
		}
		if err := c.Retry(ctx, id, l.Fence, 500, model.CodeTransient); err != nil {
			t.Fatal(err)
		}
		if j := jobRow(t, s, id); j.State != model.RetryWait || j.LastCode != model.CodeTransient {
			t.Fatalf("after retry: %+v", j)
		}
		wantFenced(t, "heartbeat in retry_wait", c.Heartbeat(ctx, id, l.Fence, 600), model.CodeNotLeased)
		noLease(t, c, 499)
		l2 := lease(t, c, "w1", 500, 600)
		if l2.Stage != model.StageValidate || l2.Attempt != 2 {
			t.Fatalf("resumed lease = %+v; want stage validate attempt 2", l2)
		}
		if err := c.Dead(ctx, id, l2.Fence, model.CodePoisonSchema, 550); err != nil {
			t.Fatal(err)
		}
		st := state(t, s)
		if j := st.Jobs[0]; j.State != model.Dead || j.LastCode != model.CodePoisonSchema {
			t.Fatalf("after dead: %+v", j)
		}
		if len(st.DLQ) != 1 || st.DLQ[0].Reason != model.CodePoisonSchema || st.DLQ[0].Attempts != 2 {
			t.Fatalf("dlq = %+v", st.DLQ)
		}
		if err := c.Advance(ctx, id, l2.Fence, model.Stage(9)); err == nil {
			t.Fatal("Advance to stage 9: no error")
		}
		// Cancel (the model's Fail with a cancel decision).
		id2 := enqueue(t, c, job("k2", 600))
		l3 := lease(t, c, "w0", 600, 700)
		if err := c.Cancel(ctx, id2, l3.Fence, model.CodeDeadlineExceeded, 650); err != nil {
			t.Fatal(err)
		}
		if j := jobRow(t, s, id2); j.State != model.Cancelled {
			t.Fatalf("after cancel: %+v", j)
		}
	})
}

func commitReq(job model.JobID, fence uint64, key string, st model.Stage) CommitReq {
	return CommitReq{Job: job, Fence: fence, Tenant: "t1", Key: key, Stage: st, PayloadHash: 1<<63 | 42, Value: 1<<63 | 7, Now: 5}
}

func TestCommitDedupe(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k", 0))
		l := lease(t, c, "w0", 0, 100)
		r := commitReq(id, l.Fence, "k", model.StageIngest)
		got, err := c.Commit(ctx, r)
		if err != nil || got.EventID != 1 || got.Deduped || got.Value != r.Value {
			t.Fatalf("first commit = %+v, %v", got, err)
		}
		r.Value = 99 // a retried commit computes another value; the first stays
		again, err := c.Commit(ctx, r)
		if err != nil || again != (Committed{EventID: 1, Value: 1<<63 | 7, Deduped: true}) {
			t.Fatalf("second commit = %+v, %v; want the first event deduped", again, err)
		}
		r.PayloadHash = 3
		if _, err := c.Commit(ctx, r); !errors.Is(err, ErrIdempotencyConflict) {
			t.Fatalf("other hash: err = %v; want ErrIdempotencyConflict", err)
		}
		// Explicit event ids (the mirror's).
		r2 := commitReq(id, l.Fence, "k", model.StageExtract)
		r2.EventID = 7
		if got, err := c.Commit(ctx, r2); err != nil || got.EventID != 7 {
			t.Fatalf("explicit event = %+v, %v", got, err)
		}
		st := state(t, s)
		if len(st.Rows) != 2 || st.Rows[0].EventID != 1 || st.Rows[1].EventID != 7 || st.Rows[1].Stage != model.StageExtract || st.Rows[0].Published {
			t.Fatalf("outbox = %+v", st.Rows)
		}
		// Bad input.
		for _, bad := range []CommitReq{{Key: ""}, {Key: "k", Stage: model.StageDone}, {Key: "k", EventID: -1}} {
			if _, err := c.Commit(ctx, bad); err == nil {
				t.Errorf("Commit(%+v): no error", bad)
			}
		}
	})
}

func TestCommitFencing(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k", 0))
		old := lease(t, c, "w0", 0, 10)
		cur := lease(t, c, "w1", 10, 100) // old's lease expired: a zombie now
		// As in the model's correct design, an unfenced commit by the
		// zombie is accepted and deduplicates the current holder's.
		z, err := c.Commit(ctx, commitReq(id, old.Fence, "k", model.StageIngest))
		if err != nil || z.Deduped {
			t.Fatalf("zombie unfenced commit = %+v, %v", z, err)
		}
		h, err := c.Commit(ctx, commitReq(id, cur.Fence, "k", model.StageIngest))
		if err != nil || !h.Deduped || h.EventID != z.EventID {
			t.Fatalf("holder commit = %+v, %v; want the zombie's event deduped", h, err)
		}
		// Fenced commits check the lease.
		r := commitReq(id, old.Fence, "k", model.StageExtract)
		r.Fenced = true
		_, err = c.Commit(ctx, r)
		wantFenced(t, "fenced zombie commit", err, model.CodeStaleFence)
		r.Fence = cur.Fence
		if _, err := c.Commit(ctx, r); err != nil {
			t.Fatalf("fenced holder commit: %v", err)
		}
		r = commitReq(999, 1, "k9", model.StageIngest)
		r.Fenced = true
		_, err = c.Commit(ctx, r)
		wantFenced(t, "fenced commit of unknown job", err, model.CodeNotFound)
		if n := len(state(t, s).Rows); n != 2 {
			t.Fatalf("%d outbox rows; want 2", n)
		}
	})
}

func TestCommitRollsBackCompletely(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k", 0))
		l := lease(t, c, "w0", 0, 100)

		r := commitReq(id, l.Fence, "k", model.StageIngest)
		r.BeforeCommit = func() { panic("crash before COMMIT") }
		func() {
			defer func() {
				if p := recover(); p != "crash before COMMIT" {
					t.Fatalf("recovered %v", p)
				}
			}()
			c.Commit(ctx, r)
		}()
		if st := state(t, s); len(st.Rows) != 0 {
			t.Fatalf("after a panic in BeforeCommit: outbox = %+v", st.Rows)
		}

		// A crash: the connection closes inside BeforeCommit.
		c2 := conn(t, s)
		r.BeforeCommit = func() { c2.Close() }
		if _, err := c2.Commit(ctx, r); err == nil || !strings.Contains(err.Error(), "rolled back") {
			t.Fatalf("commit on a connection closed before COMMIT: err = %v", err)
		}
		if st := state(t, s); len(st.Rows) != 0 {
			t.Fatalf("after a close in BeforeCommit: outbox = %+v", st.Rows)
		}
		if _, _, err := c2.LeaseNext(ctx, LeaseReq{}); err == nil {
			t.Fatal("closed Conn still works")
		}

		// No result was left behind: the next commit is a first commit,
		// not a dedupe, and the connection that panicked still works.
		r.BeforeCommit = nil
		got, err := c.Commit(ctx, r)
		if err != nil || got.Deduped {
			t.Fatalf("commit after the rollbacks = %+v, %v; want a fresh event", got, err)
		}
		// PostgreSQL's identity does not roll back: the two lost commits
		// burnt event ids 1 and 2. SQLite's rowid reuses them.
		if st := state(t, s); len(st.Rows) != 1 || st.Rows[0].EventID != got.EventID {
			t.Fatalf("outbox = %+v; want the one row of event %v", st.Rows, got.EventID)
		}
	})
}

func TestRelayAndConsumer(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		id := enqueue(t, c, job("k", 0))
		l := lease(t, c, "w0", 0, 100)
		for st := model.StageIngest; st < model.StageDone; st++ {
			if _, err := c.Commit(ctx, commitReq(id, l.Fence, "k", st)); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := c.ClaimUnpublished(ctx, 3)
		if err != nil || len(rows) != 3 || rows[0].EventID != 1 || rows[2].EventID != 3 || rows[1].Stage != model.StageExtract || rows[0].Job != id {
			t.Fatalf("claim = %+v, %v", rows, err)
		}
		msg, err := c.Publish(ctx, 1, 10)
		if err != nil || msg != 1 {
			t.Fatalf("publish = %v, %v", msg, err)
		}
		if msg, err := c.Publish(ctx, 1, 11); err != nil || msg != 2 { // at least once
			t.Fatalf("republish = %v, %v", msg, err)
		}
		for range 2 {
			if err := c.MarkPublished(ctx, 1, 12); err != nil {
				t.Fatal(err)
			}
		}
		rows, err = c.ClaimUnpublished(ctx, 10)
		if err != nil || len(rows) != 3 || rows[0].EventID != 2 {
			t.Fatalf("claim after mark = %+v, %v", rows, err)
		}
		if _, err := c.Publish(ctx, 99, 10); err == nil {
			t.Fatal("publish of an unknown event: no error")
		}
		if err := c.MarkPublished(ctx, 99, 10); err == nil {
			t.Fatal("mark of an unknown event: no error")
		}
		if _, err := c.ClaimUnpublished(ctx, 0); err == nil {
			t.Fatal("claim 0: no error")
		}

		for i, want := range []bool{true, false} {
			if applied, err := c.Apply(ctx, 1, 20); err != nil || applied != want {
				t.Fatalf("apply #%d = %v, %v; want %v", i+1, applied, err, want)
			}
		}
		if _, err := c.Apply(ctx, 99, 20); err == nil {
			t.Fatal("apply of an unknown event: no error")
		}
		// Deliver: message 2 carries event 1 again (deduped); a message for
		// event 2 applies.
		m3, _ := c.Publish(ctx, 2, 21)
		if ev, applied, err := c.Deliver(ctx, 2, 22); err != nil || applied || ev != 1 {
			t.Fatalf("deliver dup = %v, %v, %v", ev, applied, err)
		}
		if ev, applied, err := c.Deliver(ctx, m3, 22); err != nil || !applied || ev != 2 {
			t.Fatalf("deliver = %v, %v, %v", ev, applied, err)
		}
		if _, _, err := c.Deliver(ctx, 99, 22); err == nil {
			t.Fatal("deliver of an unknown message: no error")
		}
		st := state(t, s)
		want := []EffectRow{{EventID: 1, Key: "k", Stage: model.StageIngest, Tenant: "t1", Job: id}, {EventID: 2, Key: "k", Stage: model.StageExtract, Tenant: "t1", Job: id}}
		for i := range st.Effects {
			st.Effects[i].At = 0 // (the times are the test's, not what it checks)
		}
		if fmt.Sprint(st.Effects) != fmt.Sprint(want) {
			t.Fatalf("effects = %+v; want %+v", st.Effects, want)
		}
		if len(st.Ledger) != 2 || st.Ledger[0].Event != 1 || st.Ledger[1].Event != 2 {
			t.Fatalf("ledger = %v", st.Ledger)
		}
		if !st.Rows[0].Published || st.Rows[1].Published {
			t.Fatalf("rows = %+v", st.Rows)
		}
	})
}

func TestReset(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		for round := range 2 {
			c := conn(t, s)
			id := enqueue(t, c, job("k", 0))
			l := lease(t, c, "w0", 0, 100)
			if id != 1 || l.Fence != 1 {
				t.Fatalf("round %d: job %v fence %d; want 1 and 1 after Reset", round, id, l.Fence)
			}
			got, err := c.Commit(ctx, commitReq(id, l.Fence, "k", model.StageIngest))
			if err != nil || got.EventID != 1 {
				t.Fatalf("round %d: commit = %+v, %v", round, got, err)
			}
			c.Publish(ctx, 1, 1)
			c.Apply(ctx, 1, 1)
			c.Dead(ctx, id, l.Fence, model.CodePermanentError, 2)
			c.Close()
			if err := s.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			st := state(t, s)
			if len(st.Jobs)+len(st.Rows)+len(st.Effects)+len(st.DLQ)+len(st.Ledger)+len(st.Audit) != 0 {
				t.Fatalf("after Reset: %+v", st)
			}
		}
	})
}
