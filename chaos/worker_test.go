package chaos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// rig is a SQLite store with a mock clock: deterministic, no sleeps.
type rig struct {
	t     *testing.T
	ctx   context.Context
	store *sqlstore.Store
	clock *clock.Mock
	keys  []string
	hists []*History
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, sqlstore.SQLite, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &rig{t: t, ctx: ctx, store: s, clock: clock.NewMock()}
}

func (r *rig) conn() *sqlstore.Conn {
	c, err := r.store.Conn(r.ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

func (r *rig) enqueue(keys ...string) {
	c := r.conn()
	for _, k := range keys {
		_, doc, _, ok := ParseKey(k)
		if !ok {
			doc = k
		}
		if _, _, err := c.Enqueue(r.ctx, sqlstore.NewJob{Tenant: "t", Document: doc, Version: 1, Key: k,
			PayloadHash: PayloadOf(doc), MaxAttempts: 5, Now: now(r.clock)}); err != nil {
			r.t.Fatal(err)
		}
		r.keys = append(r.keys, k)
	}
}

func (r *rig) worker(name string) *Worker {
	h := &History{Proc: name}
	r.hists = append(r.hists, h)
	return &Worker{Ops: r.conn(), Clock: r.clock, Name: name, Lease: 2 * time.Second, Backoff: 100 * time.Millisecond, Hist: h}
}

func (r *rig) step(w *Worker, want Outcome) {
	r.t.Helper()
	got, err := w.Step(r.ctx)
	if err != nil || got != want {
		r.t.Fatalf("%s: Step = %v, %v; want %v", w.Name, got, err, want)
	}
}

// drainAndCheck relays and consumes everything in-process, then runs the
// chaos checks over the state and every history.
func (r *rig) drainAndCheck() *Report {
	r.t.Helper()
	rep := &Report{Kills: map[boundary.Boundary]int{}}
	r.drain().check(rep)
	for _, inv := range rep.Invariants {
		if !inv.Holds() {
			r.t.Errorf("%s: %v", inv.Name, inv.Violations)
		}
	}
	return rep
}

// final is what the checks read at the end of a run.
type final struct {
	st   sqlstore.State
	hist []Entry
	keys []string
}

func (f final) check(rep *Report) { check(rep, f.st, f.hist, f.keys, feed) }

// drain relays and consumes everything in-process and reads the final
// state and every history.
func (r *rig) drain() final {
	r.t.Helper()
	rh, ch := &History{Proc: "relay0"}, &History{Proc: "consumer0"}
	// No Pub: SQLite's immediate transactions would make a second
	// connection wait on the claim's.
	rl := &Relay{Ops: r.conn(), Clock: r.clock, Batch: 4, Hist: rh}
	cs := &Consumer{Ops: r.conn(), Broker: StoreBroker(r.store), Clock: r.clock, Batch: 4, Hist: ch}
	for {
		n, err := rl.Step(r.ctx)
		if err != nil {
			r.t.Fatal(err)
		}
		m, err := cs.Step(r.ctx)
		if err != nil {
			r.t.Fatal(err)
		}
		if n == 0 && m == 0 {
			break
		}
	}
	st, err := r.store.State(r.ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	var all []Entry
	for _, h := range append(r.hists, rh, ch) {
		all = append(all, h.Entries()...)
	}
	return final{st: st, hist: all, keys: r.keys}
}

func ops(h *History) []string {
	var out []string
	for _, e := range h.Entries() {
		out = append(out, e.Op+":"+e.Stage+":"+e.Err)
	}
	return out
}

// A worker whose lease expires loses the job to another worker with a
// higher fence, and its commit (a zombie's) is refused.
func TestLeaseExpiryZombieCommitFenced(t *testing.T) {
	r := newRig(t)
	r.enqueue("k1")
	a, b := r.worker("a"), r.worker("b")
	stalled := false
	a.Hook = func(p boundary.Boundary, e Entry) {
		if p != boundary.AfterExtract || stalled {
			return
		}
		stalled = true
		r.clock.Add(3 * time.Second) // past a's 2s lease, no heartbeat
		r.step(b, Succeeded)
	}
	r.step(a, Fenced)

	la, lb := a.Hist.Entries()[0], b.Hist.Entries()[0]
	if la.Op != OpLease || lb.Op != OpLease || lb.Fence <= la.Fence {
		t.Fatalf("leases: a %+v, b %+v; want b's fence above a's", la, lb)
	}
	if got, want := ops(a.Hist), []string{"lease:ingest:", "fenced:ingest:commit"}; !slices.Equal(got, want) {
		t.Fatalf("a's history %v, want %v", got, want)
	}
	st, err := r.store.State(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if j := st.Jobs[0]; j.State != model.Succeeded || j.Fence != lb.Fence {
		t.Fatalf("job %+v, want succeeded under b's fence %d", j, lb.Fence)
	}
	rep := r.drainAndCheck()
	if rep.Fenced != 1 || rep.Effects != 4 {
		t.Fatalf("fenced %d, effects %d; want 1 and 4", rep.Fenced, rep.Effects)
	}
}

// A heartbeat keeps the lease: a worker slower than half its lease renews
// it, and another worker finds nothing to take.
func TestHeartbeatKeepsLease(t *testing.T) {
	r := newRig(t)
	r.enqueue("k1")
	a, b := r.worker("a"), r.worker("b")
	a.Hook = func(p boundary.Boundary, e Entry) {
		if p != boundary.AfterExtract {
			return
		}
		r.clock.Add(1500 * time.Millisecond)
		if e.Stage == model.StageExtract.String() {
			// 3s after the lease began: without the heartbeat at the start
			// of this stage the 2s lease would be gone.
			r.step(b, Idle)
		}
	}
	r.step(a, Succeeded)
	beats := 0
	for _, e := range a.Hist.Entries() {
		if e.Op == OpBeat {
			beats++
		}
	}
	if beats < 2 {
		t.Fatalf("%d heartbeats, want at least 2: %v", beats, ops(a.Hist))
	}
	r.drainAndCheck()
}

var errKilled = errors.New("killed")

// killAt makes a Killer that "dies" by panicking out of the role, the way
// a SIGKILL stops it: nothing after the point runs.
func killAt(p boundary.Boundary, nth int) *Killer {
	return &Killer{Assignment: crash.Assignment{At: p, Nth: nth}, Kill: func(boundary.Boundary) { panic(errKilled) }}
}

func (r *rig) crash(w *Worker) {
	r.t.Helper()
	defer func() {
		if v := recover(); v != errKilled {
			r.t.Fatalf("%s did not die at its point: %v", w.Name, v)
		}
		w.Ops.Close() // the connection dies with the process
	}()
	w.Step(r.ctx)
}

// A kill inside the commit transaction leaves nothing; a kill after the
// commit leaves the result, which the next lease dedupes. Either way the
// job completes once, with one effect per stage.
func TestKillPointsRecover(t *testing.T) {
	for _, tc := range []struct {
		p       boundary.Boundary
		nth     int
		results int // results rows right after the kill
	}{
		{boundary.AfterLease, 1, 0},
		{boundary.AfterExtract, 2, 1},
		{boundary.AfterInsertBeforeCommit, 1, 0},
		{boundary.AfterInsertBeforeCommit, 3, 2},
		{boundary.AfterCommitBeforeAck, 2, 2},
		{boundary.AfterAck, 4, 4},
	} {
		t.Run(tc.p.String(), func(t *testing.T) {
			r := newRig(t)
			r.enqueue("k1")
			a := r.worker("a")
			a.Kill = killAt(tc.p, tc.nth)
			r.crash(a)
			st, err := r.store.State(r.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Results) != tc.results {
				t.Fatalf("%d results after the kill, want %d", len(st.Results), tc.results)
			}
			r.clock.Add(3 * time.Second) // a's lease expires
			b := r.worker("b")
			want := Succeeded
			if tc.p == boundary.AfterAck && tc.nth == 4 {
				want = Idle // a acked before dying
			}
			r.step(b, want)
			rep := r.drainAndCheck()
			if rep.Effects != 4 || rep.Succeeded != 1 {
				t.Fatalf("effects %d, succeeded %d; want 4 and 1", rep.Effects, rep.Succeeded)
			}
		})
	}
}

// Poison jobs go to the DLQ at once; flaky ones are retried after their
// backoff and then succeed.
func TestPoisonAndFlaky(t *testing.T) {
	r := newRig(t)
	r.enqueue(testKey(1, Traits{Poison: true}), testKey(2, Traits{Flaky: 2}))
	w := r.worker("w")
	w.Kill = killAt(boundary.AfterDLQWrite, 2) // never reached: one poison job
	r.step(w, DeadLettered)
	r.step(w, Retried)
	r.step(w, Idle) // backoff not over
	r.clock.Add(100 * time.Millisecond)
	r.step(w, Retried)
	r.step(w, Idle)
	r.clock.Add(200 * time.Millisecond)
	r.step(w, Succeeded)
	rep := r.drainAndCheck()
	if rep.Dead != 1 || rep.DeadBy[model.CodePoisonSchema] != 1 || rep.Succeeded != 1 {
		t.Fatalf("dead %d (%v), succeeded %d", rep.Dead, rep.DeadBy, rep.Succeeded)
	}
}

func testKey(i int, tr Traits) string {
	k, err := model.BuildIdempotencyKey("ta", DocName(i, tr), 1)
	if err != nil {
		panic(err)
	}
	return k
}

// Traits round-trip through document names and keys; only version 1 of a
// poison document is poison.
func TestJobKeys(t *testing.T) {
	for _, tc := range []struct {
		i   int
		tr  Traits
		doc string
	}{
		{1, Traits{}, "d000001"},
		{42, Traits{Poison: true}, "d000042.poison"},
		{7, Traits{Flaky: 2}, "d000007.flaky2"},
		{1234567, Traits{Flaky: 9, Slow: true, Few: true, Short: true, Late: true}, "d1234567.flaky9.slow.few.short.late"},
	} {
		if doc := DocName(tc.i, tc.tr); doc != tc.doc || DocTraits(doc) != tc.tr {
			t.Errorf("DocName(%d, %+v) = %q, traits back %+v", tc.i, tc.tr, doc, DocTraits(doc))
		}
		k := testKey(tc.i, tc.tr)
		if KeyTraits(k) != tc.tr || IsPoison(k) != tc.tr.Poison {
			t.Errorf("KeyTraits(%q) = %+v", k, KeyTraits(k))
		}
		v2, _ := model.BuildIdempotencyKey("ta", tc.doc, 2)
		if IsPoison(v2) {
			t.Errorf("%s is poison", v2)
		}
	}
	if _, _, _, ok := ParseKey("no-version"); ok {
		t.Error("ParseKey accepted a key without a version")
	}
	for _, role := range Roles() {
		for _, p := range PointsOf(role).List() {
			if err := (crash.Assignment{At: p, Nth: 1, Stmt: Boundaries(p)}).Check(PointsOf(role), stmts); err != nil {
				t.Errorf("%s at %s: %v", role, p, err)
			}
		}
	}
	if err := (crash.Assignment{At: boundary.AfterLease, Nth: 1}).Check(PointsOf(RoleRelay), stmts); err == nil {
		t.Error("after_lease accepted for a relay")
	}
	// The mix has every trait.
	var seen Traits
	for i := 1; i <= 300; i++ {
		tr := MixTraits(i)
		seen.Poison, seen.Slow, seen.Few = seen.Poison || tr.Poison, seen.Slow || tr.Slow, seen.Few || tr.Few
		seen.Short, seen.Late, seen.Flaky = seen.Short || tr.Short, seen.Late || tr.Late, max(seen.Flaky, tr.Flaky)
	}
	if seen != (Traits{Poison: true, Flaky: 9, Slow: true, Few: true, Short: true, Late: true}) {
		t.Errorf("the mix lacks a trait: %+v", seen)
	}
}

// A message behind the consumer's cursor whose event was never applied is
// still delivered: two relays commit their messages out of id order, so
// message 2 can become visible after the consumer read message 3 (a lost
// event a 500-kill run found when the consumer followed a cursor only).
func TestConsumerTakesALateLowerMessage(t *testing.T) {
	r := newRig(t)
	r.enqueue("a", "b", "c")
	c := r.conn()
	var events []model.EventID
	for i, k := range []string{"a", "b", "c"} {
		res, err := c.Commit(r.ctx, sqlstore.CommitReq{Job: model.JobID(i + 1), Tenant: "t", Key: k,
			Stage: model.StageIngest, PayloadHash: 7, Value: 1, Now: now(r.clock)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Publish(r.ctx, res.EventID, now(r.clock)); err != nil {
			t.Fatal(err)
		}
		events = append(events, res.EventID)
	}
	// The consumer has applied messages 1 and 3 and sits at cursor 3.
	for _, ev := range []model.EventID{events[0], events[2]} {
		if _, err := c.Apply(r.ctx, ev, now(r.clock)); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := StoreBroker(r.store).Messages(r.ctx, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].ID != 2 || msgs[0].Event != events[1] {
		t.Fatalf("messages after cursor 3 = %+v, want message 2 (event %d), never applied", msgs, events[1])
	}
}

// A kill between two statements of one operation (sqlstore's OnStatement)
// leaves nothing of it: the transaction rolls back whole, and the kill
// line says after how many statements it fell.
func TestKillInsideOperations(t *testing.T) {
	for _, tc := range []struct {
		p    boundary.Boundary
		stmt int
	}{
		{boundary.InsideLeaseAfterStmt, 1}, {boundary.InsideLeaseAfterStmt, 2}, {boundary.InsideCommitAfterStmt, 1}, {boundary.InsideCommitAfterStmt, 2}, {boundary.InsideCommitAfterStmt, 3}, {boundary.InsideDeadAfterStmt, 1},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.p, tc.stmt), func(t *testing.T) {
			r := newRig(t)
			key := testKey(1, Traits{Poison: tc.p == boundary.InsideDeadAfterStmt})
			r.enqueue(key)
			a := r.worker("a")
			a.Kill = killAt(tc.p, 1)
			a.Kill.Stmt, a.Kill.Hist = tc.stmt, a.Hist
			r.crash(a)
			st, err := r.store.State(r.ctx)
			if err != nil {
				t.Fatal(err)
			}
			es := a.Hist.Entries()
			last := es[len(es)-1]
			if last.Op != OpKill || last.Point != tc.p.String() || last.Stmt != tc.stmt {
				t.Fatalf("last line %+v, want a kill at %s after statement %d", last, tc.p, tc.stmt)
			}
			j := st.Jobs[0]
			switch tc.p {
			case boundary.InsideLeaseAfterStmt:
				if j.State != model.Pending || j.Attempt != 0 || st.Fence != 0 {
					t.Fatalf("job %+v, fence %d: the lease was not rolled back", j, st.Fence)
				}
			case boundary.InsideCommitAfterStmt:
				if len(st.Results) != 0 || len(st.Rows) != 0 {
					t.Fatalf("results %v, rows %v: the commit was not rolled back", st.Results, st.Rows)
				}
			case boundary.InsideDeadAfterStmt:
				if j.State != model.Leased || len(st.DLQ) != 0 {
					t.Fatalf("job %s, DLQ %v: the dead-lettering was not rolled back", j.State, st.DLQ)
				}
			}
			r.clock.Add(3 * time.Second) // a's lease expires
			b := r.worker("b")
			b.Facts = DBReader{r.store.DB()}
			want := Succeeded
			if tc.p == boundary.InsideDeadAfterStmt {
				want = DeadLettered
			}
			r.step(b, want)
			rep := &Report{Kills: map[boundary.Boundary]int{tc.p: 1}} // the orchestrator's count of the kill
			r.drain().check(rep)
			for _, inv := range rep.Invariants {
				if !inv.Holds() {
					t.Errorf("%s: %v", inv.Name, inv.Violations)
				}
			}
		})
	}
}

// A consumer killed inside Deliver leaves the message uncounted and the
// event unapplied; the operator killed inside Redrive leaves the job
// dead.
func TestKillInsideDeliverAndRedrive(t *testing.T) {
	r := newRig(t)
	key := testKey(1, Traits{})
	r.enqueue(key)
	r.step(r.worker("w"), Succeeded)
	rl := &Relay{Ops: r.conn(), Clock: r.clock, Batch: 4}
	if _, err := rl.Step(r.ctx); err != nil {
		t.Fatal(err)
	}
	for stmt := 1; stmt <= 2; stmt++ {
		c := &Consumer{Ops: r.conn(), Broker: StoreBroker(r.store), Clock: r.clock, Batch: 4, Kill: killAt(boundary.InsideDeliverAfterStmt, 1)}
		c.Kill.Stmt = stmt
		func() {
			defer func() {
				if v := recover(); v != errKilled {
					t.Fatalf("consumer did not die inside deliver: %v", v)
				}
				c.Ops.Close()
			}()
			c.Step(r.ctx)
		}()
		st, err := r.store.State(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Ledger) != 0 || len(st.Effects) != 0 || st.Broker[0].Deliveries != 0 {
			t.Fatalf("after a kill at statement %d: ledger %v, effects %v, deliveries %d", stmt, st.Ledger, st.Effects, st.Broker[0].Deliveries)
		}
	}

	// A job dead for max attempts; the operator dies inside its redrive.
	r.enqueueJob(2, Traits{Flaky: 9, Few: true}, FewAttempts, 0)
	w := r.worker("w2")
	for range FewAttempts {
		r.step(w, Retried)
		r.clock.Add(time.Second)
	}
	r.step(w, Idle) // dead at lease
	op := &Operator{Ops: r.conn(), Read: DBReader{r.store.DB()}, Clock: r.clock, Name: "op", Deadline: time.Hour,
		Kill: killAt(boundary.InsideRedriveAfterStmt, 1)}
	func() {
		defer func() {
			if v := recover(); v != errKilled {
				t.Fatalf("operator did not die inside redrive: %v", v)
			}
		}()
		op.Step(r.ctx)
	}()
	st, err := r.store.State(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if j := st.Jobs[1]; j.State != model.Dead || j.RedriveCount != 0 || st.DLQ[0].RedriveCount != 0 {
		t.Fatalf("job %+v, DLQ %+v: the redrive was not rolled back", j, st.DLQ[0])
	}
}
