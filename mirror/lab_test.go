package mirror_test

import (
	"context"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/sqlstore"
)

// Seed 004's lab (jobs.py on jobs-lab.sqlite), on a real SQLite: "re-running
// after a restart keeps one ticket; a failure inside the transaction leaves
// no partial effect; a permanent error never enters an infinite retry".

// labConfig is the lab: two documents of one tenant, one worker; the
// client sends document 1 twice, the second time across a crash and
// restart of the API; the worker dies after a commit, before its ack.
func labConfig(t *testing.T, docFault string) sim.Config {
	t.Helper()
	c := sim.DefaultConfig()
	c.Docs, c.Workers, c.Tenants, c.Swarm = 2, 1, 1, false
	c.Resubmit = []int32{1}
	plan, err := faults.Parse("crash after_accept_before_enqueue nth=3; crash after_commit_before_ack nth=4 worker=*; " + docFault)
	if err != nil {
		t.Fatal(err)
	}
	c.Plan = plan
	return c
}

// runLab runs the lab on SQLite and returns the store's final tables.
func runLab(t *testing.T, cfg sim.Config) (*sim.Result, sqlstore.State) {
	t.Helper()
	b := open(t, sqlstore.SQLite, ":memory:")
	sameAsModel(t, b, cfg, 1) // the lab itself passes in lockstep
	cfg.Backend, cfg.KeepTrace = b, true
	res, err := sim.Run(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Store().State(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, st
}

func TestLabResubmitAcrossRestartKeepsOneTicket(t *testing.T) {
	res, st := runLab(t, labConfig(t, "poison doc=2"))
	apiCrashed, deduped := false, false
	for _, e := range res.History {
		switch {
		case e.Kind == model.EvCrash && e.Actor.Role == model.RoleAPI:
			apiCrashed = true
		case e.Kind == model.EvEnqueue && e.Code == model.CodeDeduped && e.Job == 1:
			deduped = apiCrashed
		}
	}
	if !deduped {
		t.Fatal("the lab did not resubmit document 1 across an API restart")
	}
	jobs, reviews := 0, 0
	for _, j := range st.Jobs {
		if j.Key == st.Jobs[0].Key {
			jobs++
		}
	}
	for _, e := range st.Effects {
		if e.Job == 1 && e.Stage == model.StageReview {
			reviews++
		}
	}
	if jobs != 1 || reviews != 1 {
		t.Fatalf("document 1 has %d job(s) and %d ticket(s) in SQLite, want 1 and 1", jobs, reviews)
	}
}

func TestLabPermanentErrorDoesNotLoop(t *testing.T) {
	for _, fault := range []string{"poison doc=2", "permanent doc=2"} {
		_, st := runLab(t, labConfig(t, fault))
		j := st.Jobs[1]
		if j.State != model.Dead || j.Attempt != 1 {
			t.Fatalf("%s: j2 is %s after %d attempt(s) in SQLite, want dead after 1", fault, j.State, j.Attempt)
		}
		if len(st.DLQ) != 1 || st.DLQ[0].Job != 2 || st.DLQ[0].Attempts != 1 {
			t.Fatalf("%s: DLQ %+v, want j2's entry after 1 attempt", fault, st.DLQ)
		}
	}
}

// A commit that fails between its INSERTs and COMMIT — the connection
// closed under it, as a crash does — leaves neither result nor outbox row;
// the retry on a new connection commits once.
func TestLabFailureInsideTransactionLeavesNothing(t *testing.T) {
	ctx := context.Background()
	b := open(t, sqlstore.SQLite, ":memory:")
	st := b.Store()
	if err := st.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := st.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	job := sqlstore.NewJob{Tenant: "acme", Document: "d1", Version: 1, Key: "acme:d1:v1", PayloadHash: 7, MaxAttempts: 3, DeadlineAt: 1 << 40}
	if _, _, err := c.Enqueue(ctx, job); err != nil {
		t.Fatal(err)
	}
	l, ok, err := c.LeaseNext(ctx, sqlstore.LeaseReq{Worker: "w0", LeaseUntil: 1000})
	if err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	req := sqlstore.CommitReq{Job: l.Job, Fence: l.Fence, Tenant: "acme", Key: job.Key, Stage: model.StageIngest, PayloadHash: 7, Value: 42}
	crashed := req
	crashed.BeforeCommit = func() { _ = c.Close() }
	if _, err := c.Commit(ctx, crashed); err == nil {
		t.Fatal("a commit whose connection closed before COMMIT succeeded")
	}
	var results int
	if err := st.DB().QueryRowContext(ctx, "SELECT count(*) FROM results").Scan(&results); err != nil {
		t.Fatal(err)
	}
	if s, err := st.State(ctx); err != nil || len(s.Rows) != 0 || results != 0 {
		t.Fatalf("after the failed commit: %d result(s), %d outbox row(s), err %v; want none", results, len(s.Rows), err)
	}
	c2, err := st.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for i, want := range []bool{false, true} {
		res, err := c2.Commit(ctx, req)
		if err != nil || res.Deduped != want {
			t.Fatalf("commit %d: %+v, %v; want deduped=%v", i+1, res, err, want)
		}
	}
	if s, _ := st.State(ctx); len(s.Rows) != 1 {
		t.Fatalf("%d outbox rows, want 1", len(s.Rows))
	}
	if _, err := c.Commit(ctx, req); err == nil {
		t.Fatal("the closed connection still commits")
	}
}
