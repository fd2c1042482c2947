package invariants_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/target"
)

// Fixtures of the partial target checks (target_partial.go): for each
// check a history where it holds and one where it fails. A fixture
// writes its history with a [ph] builder: each op is numbered from 1 and
// takes partialStep, its interval the 8ms before its time; ph.overlap
// makes the next op's interval start before the last op's ended.

const (
	partialStep = 10 * target.Millisecond
	partialKind = "durasim_doc"
)

// ph builds one partial fixture.
type ph struct {
	ops   []invariants.PartialOp
	now   target.Time
	txs   int
	early target.Time // the next op's interval starts this much earlier
	jobs  map[target.JobID]target.Args
	snap  target.Snapshot
}

func newPH() *ph { return &ph{jobs: map[target.JobID]target.Args{}} }

func (h *ph) add(o target.Op) uint64 {
	h.now += partialStep
	o.Seq, o.T = uint64(len(h.ops)+1), h.now
	h.ops = append(h.ops, invariants.PartialOp{Op: o, T0: h.now - 8*target.Millisecond - h.early})
	h.early = 0
	return o.Seq
}

// overlap widens the next op's interval back past the last op's end.
func (h *ph) overlap() { h.early = 2 * partialStep }

func doc(tenant, name string) target.Args { return target.Args{Tenant: tenant, Doc: name, Version: 1} }

// insert is the client's unique insert of j for args, with 3 attempts.
func (h *ph) insert(j target.JobID, a target.Args) uint64 {
	h.jobs[j] = a
	return h.add(target.Op{Kind: target.OpInsert, Actor: "client", Job: j, Kind2: partialKind, Args: a, MaxAttempts: 3, Unique: true})
}

func (h *ph) skipped(j target.JobID, a target.Args) uint64 {
	return h.add(target.Op{Kind: target.OpInsert, Actor: "client", Job: j, Kind2: partialKind, Args: a, MaxAttempts: 3, Unique: true, Skipped: true})
}

func (h *ph) fetch(w string, j target.JobID, n int) uint64 {
	return h.add(target.Op{Kind: target.OpFetch, Actor: w, Job: j, Attempt: n})
}

func (h *ph) key(j target.JobID) string {
	a := h.jobs[j]
	return fmt.Sprintf("%s:%s:v%d", a.Tenant, a.Doc, a.Version)
}

// txDone is w's transactional handler on attempt n of j: effect,
// JobCompleteTx returning st, then commit (or, with commit false, a
// rollback). It returns the effect's and the end's seqs.
func (h *ph) txDone(w string, j target.JobID, n int, st target.State, commit bool) (effect, end uint64) {
	h.txs++
	tx := h.txs
	effect = h.add(target.Op{Kind: target.OpEffect, Actor: w, Job: j, Attempt: n, Key: h.key(j), Applied: true, Tx: tx})
	h.add(target.Op{Kind: target.OpComplete, Actor: w, Job: j, Attempt: n, State: st, Tx: tx})
	if commit {
		return effect, h.add(target.Op{Kind: target.OpCommit, Actor: w, Job: j, Attempt: n, Tx: tx})
	}
	return effect, h.add(target.Op{Kind: target.OpRollback, Actor: w, Job: j, Attempt: n, Tx: tx, Err: "stale_completion"})
}

// effectNow is an effect written outside any transaction.
func (h *ph) effectNow(w string, j target.JobID, n int) uint64 {
	return h.add(target.Op{Kind: target.OpEffect, Actor: w, Job: j, Attempt: n, Key: h.key(j), Applied: true})
}

func (h *ph) crash(w string, j target.JobID, n int, at string) uint64 {
	return h.add(target.Op{Kind: target.OpCrash, Actor: w, Job: j, Attempt: n, Boundary: at})
}

// row adds j to the state read back: st at attempt n of 3.
func (h *ph) row(j target.JobID, st target.State, n int) *target.Job {
	h.snap.Jobs = append(h.snap.Jobs, target.Job{ID: j, Kind: partialKind, Args: h.jobs[j], State: st, Attempt: n, MaxAttempts: 3, Unique: true})
	return &h.snap.Jobs[len(h.snap.Jobs)-1]
}

// stored adds an effect of attempt n of j by w to the state read back.
func (h *ph) stored(w string, j target.JobID, n int) {
	a := h.jobs[j]
	h.snap.Effects = append(h.snap.Effects, target.Effect{Seq: int64(len(h.snap.Effects) + 1), Job: j, Attempt: n, Worker: w, Key: h.key(j),
		Tenant: a.Tenant, Doc: a.Doc})
}

// partialFeed is a transactional design's drained run.
func partialFeed() invariants.PartialFeed {
	return invariants.PartialFeed{Drained: true, ExactlyOnce: true, EffectKinds: []string{partialKind}, Transactional: true,
		InsertsComplete: true, NoSnooze: true}
}

// pviol is an expected violation: check, job, proving ops, a fragment of
// its message.
type pviol struct {
	inv    string
	job    model.JobID
	events []uint64
	msg    string
}

// completedOnce is the passing history most fixtures start from: j1
// inserted (and inserted again, skipped), worked once by w1, completed
// with its effect.
func completedOnce() *ph {
	h := newPH()
	h.insert(1, doc("acme", "a"))
	h.skipped(1, doc("acme", "a"))
	h.fetch("w1", 1, 1)
	h.txDone("w1", 1, 1, target.Completed, true)
	h.row(1, target.Completed, 1)
	h.stored("w1", 1, 1)
	return h
}

func TestCheckTargetPartial(t *testing.T) {
	for _, tc := range []struct {
		name      string
		build     func(h *ph) ([]pviol, []invariants.Exposure)
		feed      func(*invariants.PartialFeed)
		fromEmpty bool // build starts from an empty history, not completedOnce
	}{
		{name: "clean run holds", build: func(*ph) ([]pviol, []invariants.Exposure) { return nil, nil }},
		{name: "final kept: a committed completion undone", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.snap.Jobs[0].State = target.Retryable
			return []pviol{{invariants.TargetFinalKept, 1, []uint64{5, 6}, "committed; the database says retryable"},
				{invariants.TargetEffectOnce, 1, []uint64{4}, "no job of it completed"},
				{invariants.TargetDrained, 1, []uint64{1}, "still retryable"}}, nil
		}},
		{name: "final kept: a rolled-back completion may be undone", fromEmpty: true, build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.insert(1, doc("acme", "a"))
			h.fetch("w1", 1, 1)
			h.txDone("w1", 1, 1, target.Completed, false)
			h.row(1, target.Discarded, 1)
			return nil, nil
		}},
		{name: "attempts: beyond max_attempts", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			f := h.fetch("w2", 1, 4)
			h.snap.Jobs[0].Attempt = 4
			return []pviol{{invariants.TargetAttempts, 1, []uint64{1, f}, "attempt 4 of j1, which has at most 3"},
				{invariants.TargetAttempts, 1, []uint64{1}, "at attempt 4 of at most 3"}}, nil
		}},
		{name: "attempts: max_attempts changed", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.snap.Jobs[0].MaxAttempts = 5
			return []pviol{{invariants.TargetAttempts, 1, []uint64{1}, "max_attempts 5; its insert gave 3"}}, nil
		}},
		{name: "unique: two live jobs of one document", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.insert(2, doc("acme", "a"))
			h.row(2, target.Completed, 0)
			return []pviol{{invariants.TargetUnique, 2, []uint64{1, 7}, "j1 and j2, unique with the same args, are completed and completed"}}, nil
		}},
		{name: "unique: a discarded job's document inserted again holds", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.insert(2, doc("acme", "b"))
			h.fetch("w1", 2, 1)
			h.crash("w1", 2, 1, "before_work")
			h.row(2, target.Discarded, 1)
			h.insert(3, doc("acme", "b"))
			h.fetch("w2", 3, 1)
			h.txDone("w2", 3, 1, target.Completed, true)
			h.row(3, target.Completed, 1)
			h.stored("w2", 3, 1)
			return nil, nil
		}},
		{name: "unique: skipped as a duplicate of other args", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			s := h.skipped(1, doc("acme", "z"))
			return []pviol{{invariants.TargetUnique, 1, []uint64{1, s}, "whose kind or args differ"}}, nil
		}},
		{name: "effect once: a second attempt's effect", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.fetch("w2", 1, 2)
			e2, _ := h.txDone("w2", 1, 2, target.Retryable, true)
			h.snap.Jobs[0].Attempt = 2
			h.stored("w2", 1, 2)
			// No exposure: w2 fetched after w1's commit.
			return []pviol{{invariants.TargetEffectOnce, 1, []uint64{4, e2}, "document acme:a:v1 has 2 effects (j1 attempt 1 by w1; j1 attempt 2 by w2)"}}, nil
		}},
		{name: "effect once: a completed document without its effect", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.snap.Effects = nil
			h.ops[5].Op.Kind = target.OpRollback // w1 rolled back: its commit line is a rollback's
			return []pviol{{invariants.TargetEffectOnce, 1, []uint64{1}, "completed (j1) with no effect"}}, nil
		}},
		{name: "effect once: an effect of a document that never completed", fromEmpty: true, build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.insert(1, doc("acme", "a"))
			h.fetch("w1", 1, 1)
			e := h.effectNow("w1", 1, 1)
			h.row(1, target.Discarded, 1)
			h.stored("w1", 1, 1)
			return []pviol{{invariants.TargetEffectOnce, 1, []uint64{e}, "has an effect (j1 attempt 1) but no job of it completed"}}, nil
		}},
		{name: "effect once: an effect of a document that never completed, at-least-once", fromEmpty: true,
			feed: func(f *invariants.PartialFeed) { f.Transactional = false }, build: func(h *ph) ([]pviol, []invariants.Exposure) {
				h.insert(1, doc("acme", "a"))
				h.fetch("w1", 1, 1)
				h.effectNow("w1", 1, 1)
				h.row(1, target.Discarded, 1)
				h.stored("w1", 1, 1)
				return nil, nil
			}},
		{name: "tenant: an effect of another tenant", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.snap.Effects[0].Tenant = "globex"
			return []pviol{{invariants.TargetTenant, 1, []uint64{1}, "effect 1 of j1 is tenant globex's document a; the job is tenant acme's document a"}}, nil
		}},
		{name: "tenant: one key for two tenants", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.insert(2, doc("globex", "a"))
			h.fetch("w2", 2, 1)
			h.jobs[2] = doc("acme", "a") // w2 writes under acme's key
			e, _ := h.txDone("w2", 2, 1, target.Completed, true)
			h.jobs[2] = doc("globex", "a")
			h.row(2, target.Completed, 1)
			h.stored("w2", 2, 1)
			h.snap.Effects[1].Key = "acme:a:v1"
			return []pviol{{invariants.TargetTenant, 2, []uint64{4, e}, "j2 (tenant globex) wrote its effect under key acme:a:v1, which j1 of tenant acme wrote first"}}, nil
		}},
		{name: "consistency: one attempt handed out twice", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			f := h.fetch("w2", 1, 1)
			return []pviol{{invariants.TargetConsistency, 1, []uint64{3, f}, "attempt 1 of j1 was handed to w1 and to w2"}}, nil
		}},
		{name: "consistency: an inserted job missing, a job never inserted", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.insert(2, doc("acme", "b"))
			h.jobs[3] = doc("acme", "c")
			h.row(3, target.Discarded, 0)
			return []pviol{{invariants.TargetConsistency, 2, []uint64{7}, "j2, inserted, is not in the database"},
				{invariants.TargetConsistency, 3, nil, "the database holds j3, which no insert returned"}}, nil
		}},
		{name: "consistency: a committed effect missing from the table", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.snap.Effects = nil
			return []pviol{{invariants.TargetEffectOnce, 1, []uint64{1}, "completed (j1) with no effect"},
				{invariants.TargetConsistency, 1, []uint64{4}, "w1 made 1 effects of j1 attempt 1 durable; the database holds 0"}}, nil
		}},
		{name: "consistency: an effect no write accounts for", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.stored("w9", 1, 1)
			return []pviol{{invariants.TargetEffectOnce, 1, []uint64{4}, "has 2 effects"},
				{invariants.TargetConsistency, 1, []uint64{1}, "the database holds 1 effects of j1 attempt 1 by w9; its history made 0 durable"}}, nil
		}},
		{name: "consistency: a write whose line a kill cut off holds", fromEmpty: true, feed: func(f *invariants.PartialFeed) { f.Transactional = false },
			build: func(h *ph) ([]pviol, []invariants.Exposure) {
				h.insert(1, doc("acme", "a"))
				h.fetch("w1", 1, 1)
				h.crash("w1", 1, 1, "after_effect")
				h.fetch("w2", 1, 2)
				h.row(1, target.Discarded, 2)
				h.stored("w1", 1, 1)
				return nil, nil
			}},
		{name: "consistency: a write of another job the dead process held holds", fromEmpty: true,
			feed: func(f *invariants.PartialFeed) { f.Transactional = false }, build: func(h *ph) ([]pviol, []invariants.Exposure) {
				h.insert(1, doc("acme", "a"))
				h.insert(2, doc("acme", "b"))
				h.fetch("w1", 1, 1)
				h.fetch("w1", 2, 1)
				h.crash("w1", 2, 1, "after_fetch") // j1's effect was in flight
				h.row(1, target.Discarded, 1)
				h.row(2, target.Discarded, 1)
				h.stored("w1", 1, 1)
				return nil, nil
			}},
		{name: "consistency: two unrecorded writes of a dead process's attempt", fromEmpty: true,
			feed: func(f *invariants.PartialFeed) { f.Transactional = false }, build: func(h *ph) ([]pviol, []invariants.Exposure) {
				h.insert(1, doc("acme", "a"))
				h.fetch("w1", 1, 1)
				h.crash("w1", 1, 1, "after_fetch")
				h.row(1, target.Discarded, 1)
				h.stored("w1", 1, 1)
				h.stored("w1", 1, 1)
				return []pviol{{invariants.TargetEffectOnce, 1, nil, "has 2 effects"},
					{invariants.TargetConsistency, 1, []uint64{1}, "the database holds 2 effects of j1 attempt 1 by w1; its history made 0 durable"}}, nil
			}},
		{name: "drained: a job still running", build: func(h *ph) ([]pviol, []invariants.Exposure) {
			h.insert(2, doc("acme", "b"))
			h.fetch("w2", 2, 1)
			h.row(2, target.Running, 1)
			return []pviol{{invariants.TargetDrained, 2, []uint64{7}, "j2 is still running (attempt 1 of 3)"}}, nil
		}},
		{name: "drained: not checked before the drain", feed: func(f *invariants.PartialFeed) { f.Drained = false },
			build: func(h *ph) ([]pviol, []invariants.Exposure) {
				h.insert(2, doc("acme", "b"))
				h.row(2, target.Available, 0)
				return nil, nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := completedOnce()
			if tc.fromEmpty {
				h = newPH()
			}
			want, wantExp := tc.build(h)
			feed := partialFeed()
			if tc.feed != nil {
				tc.feed(&feed)
			}
			rep := invariants.CheckTargetPartial(h.ops, h.snap, feed)
			checkPartial(t, rep, want, wantExp)
		})
	}
}

func checkPartial(t *testing.T, rep invariants.TargetReport, want []pviol, wantExp []invariants.Exposure) {
	t.Helper()
	if len(rep.Violations) != len(want) {
		t.Fatalf("got %d violations, want %d:\n%s", len(rep.Violations), len(want), violationLines(rep.Violations))
	}
	for i, w := range want {
		v := rep.Violations[i]
		if v.Invariant != w.inv || v.Job != w.job || !slices.Equal(v.Events, w.events) || !strings.Contains(v.Message, w.msg) {
			t.Errorf("violation %d = %s (job %d), want %s on j%d with events %v and %q", i, v, v.Job, w.inv, w.job, w.events, w.msg)
		}
	}
	if !slices.EqualFunc(rep.Exposures, wantExp, func(a, b invariants.Exposure) bool {
		return a.Job == b.Job && a.First == b.First && a.Second == b.Second && slices.Equal(a.Ops, b.Ops)
	}) {
		t.Errorf("exposures %+v, want %+v", rep.Exposures, wantExp)
	}
}

func violationLines(vs []invariants.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("  " + v.String() + "\n")
	}
	return b.String()
}

// Exposures come from intervals: a second fetch that ended before the
// first worker's later op began is an overlap; one whose interval might
// come after it is not.
func TestCheckTargetPartialExposures(t *testing.T) {
	build := func(overlap bool) (*ph, uint64, uint64, uint64) {
		h := newPH()
		h.insert(1, doc("acme", "a"))
		f1 := h.fetch("w1", 1, 1)
		f2 := h.fetch("w2", 1, 2)
		if overlap {
			h.overlap()
		}
		late := h.add(target.Op{Kind: target.OpTimeout, Actor: "w1", Job: 1, Attempt: 1})
		h.txDone("w2", 1, 2, target.Completed, true)
		h.row(1, target.Completed, 2)
		h.stored("w2", 1, 2)
		return h, f1, f2, late
	}
	h, f1, f2, late := build(false)
	rep := invariants.CheckTargetPartial(h.ops, h.snap, partialFeed())
	checkPartial(t, rep, nil, []invariants.Exposure{{Job: 1, First: "w1", Second: "w2", Ops: []uint64{f1, f2, late}}})

	h, _, _, _ = build(true)
	rep = invariants.CheckTargetPartial(h.ops, h.snap, partialFeed())
	checkPartial(t, rep, nil, nil)
}

// The partial checks are the target checks but retry timing, in the
// same order.
func TestPartialChecks(t *testing.T) {
	want := slices.DeleteFunc(invariants.TargetChecks(), func(s string) bool { return s == invariants.TargetRetryTiming })
	if got := invariants.PartialChecks(); !slices.Equal(got, want) {
		t.Errorf("PartialChecks() = %v, want %v", got, want)
	}
}
