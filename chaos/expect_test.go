package chaos

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/model"
)

// poisonRedriveRun is issue 25's path 7(b), which the correct store
// allows: a ".poison.few" job's three attempts are spent before its
// extract (each worker killed right after its lease), so it is dead for
// max attempts at its fourth lease; the operator redrives it, as it does
// every job dead for max attempts; its extract then fails, a redrive
// fixing no document, and it dies poison; the operator reprocesses it.
func poisonRedriveRun(t *testing.T) final {
	r := newRig(t)
	r.clock.Add(time.Hour)
	r.enqueueJob(1, Traits{Poison: true, Few: true}, FewAttempts, 0)
	for i := range FewAttempts {
		w := r.worker("w" + string(rune('0'+i)))
		w.Kill = killAt(boundary.AfterLease, 1)
		r.crash(w)
		r.clock.Add(3 * time.Second) // its lease expires
	}
	w := r.worker("w9")
	w.Facts = DBReader{r.store.DB()}
	r.step(w, Idle) // dead for max attempts at lease
	oh := &History{Proc: "op0"}
	r.hists = append(r.hists, oh)
	op := &Operator{Ops: r.conn(), Read: DBReader{r.store.DB()}, Clock: r.clock, Name: "op-0", Deadline: time.Hour,
		Rand: rand.New(rand.NewPCG(1, 2)), Hist: oh}
	if err := op.Step(r.ctx); err != nil { // the redrive
		t.Fatal(err)
	}
	r.clock.Add(time.Millisecond)
	r.step(w, DeadLettered)                // poison at extract
	if err := op.Step(r.ctx); err != nil { // the reprocess
		t.Fatal(err)
	}
	r.step(w, Succeeded) // version 2
	f := r.drain()
	if j := f.st.Jobs[0]; j.RedriveCount != 1 || j.State != model.Dead || len(f.st.Jobs) != 2 {
		t.Fatalf("jobs %+v, want the poison job redriven once and dead, and its reprocess", f.st.Jobs)
	}
	return f
}

// The redrive rule is exact: it accepts the path above (a poison job
// redriven after dying for max attempts, then dead poison), and still
// refuses a redriven job cancelled, a redriven job that is not poison
// dead poison, and a redrive of a job that had died poison.
func TestRedriveRuleExact(t *testing.T) {
	base := poisonRedriveRun(t)
	rep := runCheck(base, true)
	for _, i := range rep.Invariants {
		if i.Name != InvEveryPointKilled && !i.Holds() {
			t.Errorf("%s: %v", i.Name, i.Violations)
		}
	}
	clone := func() final {
		f := base
		f.hist = slices.Clone(base.hist)
		f.st.Jobs = slices.Clone(base.st.Jobs)
		f.st.DLQ = slices.Clone(base.st.DLQ)
		return f
	}
	for _, tc := range []struct {
		name, want string
		mod        func(f *final)
	}{
		{"a redriven job cancelled", "ends cancelled", func(f *final) {
			f.st.Jobs[0].State, f.st.Jobs[0].LastCode = model.Cancelled, model.CodeDeadlineExceeded
		}},
		{"a redriven job that is not poison dead poison", "ends dead with poison_schema", func(f *final) {
			f.st.Jobs[0].Key = strings.Replace(f.st.Jobs[0].Key, ".poison", "", 1)
			f.keys = []string{f.st.Jobs[0].Key}
		}},
		{"a redrive of a job that died poison", "after it died with poison_schema", func(f *final) {
			rd := slices.IndexFunc(f.hist, func(e Entry) bool { return e.Op == OpRedrive })
			d := Entry{Op: OpDead, Proc: "w2", Job: 1, Err: model.CodePoisonSchema.String(), T0: f.hist[rd].T0 - 20, T1: f.hist[rd].T0 - 10}
			f.hist = append(f.hist, d)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := clone()
			tc.mod(&f)
			got := inv(runCheck(f, true), InvRedrive)
			if got.Holds() || !strings.Contains(strings.Join(got.Violations, "; "), tc.want) {
				t.Fatalf("%v, want a violation with %q", got.Violations, tc.want)
			}
		})
	}
}
