package chaos

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

func (r *rig) enqueueJob(i int, tr Traits, maxAttempts int32, deadline time.Duration) string {
	r.t.Helper()
	doc := DocName(i, tr)
	key, err := model.BuildIdempotencyKey("ta", doc, 1)
	if err != nil {
		r.t.Fatal(err)
	}
	n := now(r.clock)
	j := sqlstore.NewJob{Tenant: "ta", Document: doc, Version: 1, Key: key, PayloadHash: PayloadOf(doc),
		MaxAttempts: maxAttempts, Now: n}
	if deadline > 0 {
		j.DeadlineAt = n + model.Time(deadline)
	}
	if _, _, err := r.conn().Enqueue(r.ctx, j); err != nil {
		r.t.Fatal(err)
	}
	r.keys = append(r.keys, key)
	return key
}

// every path run: one run, in-process on SQLite with a mock clock, that
// takes each job path: a ".few.flaky9" job dies for max attempts at its
// fourth lease and is redriven, then succeeds; a poison job is
// dead-lettered and reprocessed; a ".short.flaky9" job is cancelled at a
// retry; a ".late" one at lease; the operator resubmits and conflicts.
func everyPathRun(t *testing.T) (final, *rig) {
	r := newRig(t)
	r.clock.Add(time.Hour) // no zero times
	few := r.enqueueJob(1, Traits{Flaky: 9, Few: true}, FewAttempts, 0)
	r.enqueueJob(2, Traits{Poison: true}, 5, 0)
	r.enqueueJob(3, Traits{Flaky: 9, Short: true}, 5, 250*time.Millisecond)
	r.enqueueJob(4, Traits{}, 5, 0)
	r.enqueueJob(5, Traits{Late: true}, 5, time.Millisecond)
	w := r.worker("w0")
	w.Facts = DBReader{r.store.DB()}
	oh := &History{Proc: "op0"}
	r.hists = append(r.hists, oh)
	op := &Operator{Ops: r.conn(), Read: DBReader{r.store.DB()}, Clock: r.clock, Name: "op-0", Deadline: time.Hour,
		Rand: rand.New(rand.NewPCG(1, 2)), Hist: oh}

	r.clock.Add(10 * time.Millisecond) // the late job's deadline passes
	r.step(w, Retried)                 // few: attempt 1
	r.step(w, DeadLettered)            // poison
	r.step(w, Retried)                 // short: visible at +100ms, deadline +250ms
	r.step(w, Succeeded)               // plain
	r.step(w, Idle)                    // late: cancelled at lease
	r.clock.Add(100 * time.Millisecond)
	r.step(w, Retried)   // few: attempt 2
	r.step(w, Cancelled) // short: a retry visible at +300ms would pass +250ms
	r.clock.Add(200 * time.Millisecond)
	r.step(w, Retried) // few: attempt 3
	r.clock.Add(400 * time.Millisecond)
	r.step(w, Idle) // few: dead for max attempts at lease
	if err := op.Step(r.ctx); err != nil {
		t.Fatal(err)
	}
	r.clock.Add(time.Millisecond)
	r.step(w, Succeeded) // few, redriven: no more failures
	r.step(w, Succeeded) // poison's version 2
	r.step(w, Idle)
	if err := op.Step(r.ctx); err != nil { // nothing left but submissions
		t.Fatal(err)
	}
	f := r.drain()
	if n := len(f.st.Jobs); n != 6 {
		t.Fatalf("%d jobs, want 6", n)
	}
	if j := f.st.Jobs[0]; j.Key != few || j.RedriveCount != 1 || j.State != model.Succeeded {
		t.Fatalf("few job %+v, want redriven once and succeeded", j)
	}
	return f, r
}

func runCheck(f final, operator bool) *Report {
	rep := &Report{Kills: map[boundary.Boundary]int{}, Operator: operator, Drained: true}
	f.check(rep)
	return rep
}

func inv(rep *Report, name string) Invariant {
	for _, i := range rep.Invariants {
		if i.Name == name {
			return i
		}
	}
	return Invariant{Name: name, Violations: []string{"no such invariant"}}
}

// The run takes every job path, and every invariant holds over it.
func TestEveryPathRunHolds(t *testing.T) {
	f, _ := everyPathRun(t)
	rep := runCheck(f, true)
	for _, i := range rep.Invariants {
		if !i.Holds() {
			t.Errorf("%s: %v", i.Name, i.Violations)
		}
	}
	taken := map[string]int{}
	for _, p := range rep.Paths {
		taken[p.Name] = p.N
	}
	for _, name := range []string{"retry", "cancel at lease (deadline passed)", "cancel at retry (deadline reached)",
		"dead for max attempts (at lease)", "dead poison", "redrive", "reprocess", "idempotency conflict refused",
		"resubmission deduplicated"} {
		if taken[name] == 0 {
			t.Errorf("path %q not taken: %v", name, rep.Paths)
		}
	}
}

// Each check fails when its fact is broken: the run's final state and
// histories, with one thing changed.
func TestChecksCatch(t *testing.T) {
	base, _ := everyPathRun(t)
	clone := func() final {
		f := base
		f.hist = slices.Clone(base.hist)
		f.st.Jobs = slices.Clone(base.st.Jobs)
		f.st.Audit = slices.Clone(base.st.Audit)
		f.st.Results = slices.Clone(base.st.Results)
		f.st.Broker = slices.Clone(base.st.Broker)
		return f
	}
	few := model.JobID(1)
	for _, tc := range []struct {
		name, inv, want string
		mod             func(f *final)
	}{
		{"a lease of a job dead for max attempts missing", InvMaxAttempts, "after 2 leases of 3", func(f *final) {
			i := slices.IndexFunc(f.hist, func(e Entry) bool { return e.Op == OpLease && e.Job == int64(few) })
			f.hist = slices.Delete(f.hist, i, i+1)
		}},
		{"a lease before the retry's visible time", InvRetryTiming, "before the visible time", func(f *final) {
			i := slices.IndexFunc(f.hist, func(e Entry) bool { return e.Op == OpLease && e.Job == int64(few) && e.Attempt == 2 })
			f.hist[i].T1 = f.hist[i].T0 + 1
			rt := slices.IndexFunc(f.hist, func(e Entry) bool { return e.Op == OpRetry && e.Job == int64(few) })
			f.hist[rt].Visible = f.hist[i].T1 + int64(time.Millisecond)
		}},
		{"a lease past the deadline", InvDeadline, "past its deadline", func(f *final) {
			f.st.Jobs[2].DeadlineAt = 1
		}},
		{"a cancel before the deadline", InvDeadline, "before its deadline", func(f *final) {
			i := slices.IndexFunc(f.hist, func(e Entry) bool { return e.Op == OpCancel })
			f.hist[i].Visible = int64(f.st.Jobs[2].DeadlineAt) - 1
		}},
		{"a redrive that kept the attempts", InvRedrive, "is attempt 4", func(f *final) {
			for i, e := range f.hist {
				if e.Op == OpLease && e.Job == int64(few) && e.Attempt == 1 && e.T0 > f.hist[0].T0+int64(500*time.Millisecond) {
					f.hist[i].Attempt = 4
				}
			}
		}},
		{"a redriven job cancelled", InvRedrive, "ends cancelled", func(f *final) {
			f.st.Jobs[0].State = model.Cancelled
		}},
		{"a reprocess audited twice", InvReprocess, "2 audit rows", func(f *final) {
			i := slices.IndexFunc(f.st.Audit, func(a sqlstore.AuditRow) bool { return a.Action == "reprocess" })
			f.st.Audit = append(f.st.Audit, f.st.Audit[i])
		}},
		{"a reprocess of the wrong version", InvReprocess, "not the next version", func(f *final) {
			f.st.Jobs[5].Version = 3
		}},
		{"a resubmission that created a job", InvIdempotency, "created", func(f *final) {
			i := slices.IndexFunc(f.hist, func(e Entry) bool { return e.Op == OpResubmit })
			f.hist[i].Deduped = false
		}},
		{"a conflict accepted", InvIdempotency, "accepted", func(f *final) {
			i := slices.IndexFunc(f.hist, func(e Entry) bool { return e.Op == OpConflict })
			f.hist[i].Err = "accepted as j9"
		}},
		{"a payload overwritten", InvIdempotency, "payload", func(f *final) {
			f.st.Jobs[3].PayloadHash ^= 1
		}},
		{"a job left pending", InvLiveness, "1 jobs pending", func(f *final) {
			f.st.Jobs[3].State = model.Pending
		}},
		{"a dead job never redriven", InvLiveness, "never redriven", func(f *final) {
			f.st.Jobs[0].State = model.Dead
		}},
		{"a result without its outbox row", InvNoEventWithoutCommit, "not its outbox row", func(f *final) {
			f.st.Results = append(f.st.Results, sqlstore.ResultRow{Key: "ta:x:v1", Stage: model.StageIngest, EventID: 999})
		}},
		{"a delivery the broker did not count", InvHistoryDurable, "delivered", func(f *final) {
			f.st.Broker[0].Deliveries = 0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := clone()
			tc.mod(&f)
			got := inv(runCheck(f, true), tc.inv)
			if got.Holds() || !strings.Contains(strings.Join(got.Violations, "; "), tc.want) {
				t.Fatalf("%s: %v, want a violation with %q", tc.inv, got.Violations, tc.want)
			}
		})
	}
}

// A run that does not drain says why: what is left and where the
// consumers stand.
func TestLivenessSaysWhy(t *testing.T) {
	f, _ := everyPathRun(t)
	f.st.Rows[0].Published = false
	f.st.Ledger = f.st.Ledger[1:]
	rep := &Report{Kills: map[boundary.Boundary]int{}, Operator: true, DrainLimit: time.Minute, Cursors: map[string]int64{"consumer0": 7}}
	f.check(rep)
	got := strings.Join(inv(rep, InvLiveness).Violations, "; ")
	for _, want := range []string{"1 outbox rows unpublished", "1 events unapplied", "consumer0 at message 7", "not drained within -drain 1m0s"} {
		if !strings.Contains(got, want) {
			t.Errorf("liveness %q lacks %q", got, want)
		}
	}
}

// Every path taken: fails on a count of 0, n/a for a short run or with
// -every-path=false, and paths of the operator are n/a without it.
func TestEveryPath(t *testing.T) {
	f, _ := everyPathRun(t)
	rep := runCheck(f, true)
	if i := inv(rep, InvEveryPath); i.NA == "" {
		t.Errorf("-kills 0: %+v, want n/a", i)
	}
	for k, want := range map[bool]bool{true: false, false: true} { // all counts > 0: holds
		ps := slices.Clone(rep.Paths)
		for i := range ps {
			ps[i].N = 1
		}
		if k {
			ps[0].N = 0
		}
		got := everyPath(&Report{Target: 1000, Paths: ps})
		if got.Holds() != want || got.NA != "" {
			t.Errorf("zero count %v: %+v", k, got)
		}
		if got := everyPath(&Report{Target: 1000, Paths: ps, AnyPaths: true}); got.NA == "" {
			t.Errorf("-every-path=false, zero count %v: %+v, want n/a", k, got)
		}
	}
	norep := runCheck(f, false)
	for _, p := range norep.Paths {
		if (p.Name == "redrive" || p.Name == "reprocess") && p.NA == "" {
			t.Errorf("path %s applies without an operator", p.Name)
		}
	}
}
