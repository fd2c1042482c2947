package invariants_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// What the feeds decide: a partial history's missing lines and unknown
// order prove nothing, and what a feed records, declares or lacks turns
// the same change into a violation or into nothing.

func TestTargetFeedChecks(t *testing.T) {
	all := invariants.TargetChecks()
	noTiming := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == invariants.TargetRetryTiming })
	for _, tc := range []struct {
		name string
		feed invariants.TargetFeed
		want []string
	}{
		{"complete", invariants.TargetFeed{Complete: true}, all},
		{"partial, inserts and retries recorded", invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry}}, noTiming},
		{"partial, every op that sets a due time recorded", invariants.TargetFeed{Recorded: []target.OpKind{target.OpFetch, target.OpReport,
			target.OpRescue, target.OpSchedule, target.OpRetry}}, all},
		{"partial, the scheduler's ops missing", invariants.TargetFeed{Recorded: []target.OpKind{target.OpFetch, target.OpReport,
			target.OpRescue, target.OpRetry}}, noTiming},
	} {
		if got := tc.feed.Checks(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Checks() = %v, want %v", tc.name, got, tc.want)
		}
		if rep := invariants.CheckTarget(nil, target.Snapshot{}, tc.feed); !slices.Equal(rep.Checked, tc.want) {
			t.Errorf("%s: Checked = %v, want %v", tc.name, rep.Checked, tc.want)
		}
	}
}

// A partial feed that records every op that sets a due time runs
// target-retry-timing over its intervals.
func TestTargetPartialTiming(t *testing.T) {
	h := newTH()
	h.insert(1, "d1")
	h.fetch("w1", 1, 1)
	r := h.erred("w1", 1, 1, 1) // due at 1.040s
	h.at(540 * tms)
	a := h.done("w2", 1, 2)
	h.row(1, target.Completed, 2)
	h.stored(1, 2, "w2")
	ops := make([]invariants.TargetOp, len(h.ops))
	for i, o := range h.ops {
		ops[i] = invariants.TargetOp{Op: o, T0: o.T - 8*tms}
	}
	f := runnerFeed()
	f.Recorded = []target.OpKind{target.OpInsert, target.OpFetch, target.OpReport, target.OpRescue, target.OpSchedule, target.OpRetry}
	rep := invariants.CheckTarget(ops, h.snap, f)
	want := []tviol{{inv: invariants.TargetRetryTiming, job: 1, events: []uint64{r, a.fetch}, msg: "j1 was fetched at 0.540s, before 1.040s"}}
	if !violationsMatch(rep.Violations, want) {
		t.Errorf("got %v, want %+v", rep.Violations, want)
	}
}

// Writes a partial history may hold without their lines: a kill between
// a write and its line, of the attempt or of another its process held.
func TestTargetPartialSlack(t *testing.T) {
	checkTarget(t, []tcase{
		{name: "a write whose line a kill cut off", feed: notTransactional, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_effect")
			h.rescued(1, 1, sec)
			a := h.done("w2", 1, 2)
			h.row(1, target.Completed, 2)
			h.stored(1, 1, "w1")
			h.stored(1, 2, "w2")
			h.expect(invariants.TargetEffectOnce, 1, "document acme:d1:v1 has 2 effects (j1 attempt 1 by w1; j1 attempt 2 by w2)", a.effect)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database holds 1 effects of j1 attempt 1 by w1; its history made 0 durable", 1)
		}},
		{name: "a write of another job the dead process held", feed: both(notTransactional, notExactlyOnce, notDrained), run: func(h *th) {
			h.insert(1, "d1")
			h.insert(2, "d2")
			h.fetch("w1", 1, 1)
			h.fetch("w1", 2, 1)
			h.crash("w1", 2, "after_fetch") // j1's effect was in flight
			h.row(1, target.Running, 1)
			h.row(2, target.Running, 1)
			h.stored(1, 1, "w1")
			h.onlyComplete(invariants.TargetConsistency, 1, "the database holds 1 effects of j1 attempt 1 by w1; its history made 0 durable", 1)
		}},
		{name: "two unrecorded writes of a dead process's attempt", feed: both(notTransactional, notDrained), run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.row(1, target.Running, 1)
			h.stored(1, 1, "w1")
			h.stored(1, 1, "w1")
			h.expect(invariants.TargetEffectOnce, 1, "document acme:d1:v1 has 2 effects")
			h.expect(invariants.TargetConsistency, 1, "the database holds 2 effects of j1 attempt 1 by w1; its history made 0 durable", 1)
		}},
		{name: "an effect whose transaction's end a kill cut off", feed: notDrained, run: func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.work("w1", 1, 1, target.Done)
			tx := h.begin()
			h.effect("w1", 1, 1, tx, true)
			h.complete("w1", 1, tx, target.Completed)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w1")
			// The complete history has no commit, so nothing committed; a
			// partial one may have lost the commit's line.
			h.onlyComplete(invariants.TargetConsistency, 1, "the database has j1 completed; the history left it running (fetch by w1)", 2)
			h.onlyComplete(invariants.TargetConsistency, 1, "the database holds 1 effects of j1 attempt 1 by w1; its history made 0 durable", 1)
		}},
	})
}

// The same change means a violation where the feed guarantees the fact,
// and nothing where it does not.
func TestTargetChecksRespectTheFeed(t *testing.T) {
	noRetries := func(f *invariants.TargetFeed) { f.Recorded = []target.OpKind{target.OpInsert} }
	noInserts := func(f *invariants.TargetFeed) { f.Recorded = []target.OpKind{target.OpRetry} }
	maySnooze := func(f *invariants.TargetFeed) { f.Outcomes = nil }
	for _, tc := range []struct {
		name   string
		check  string
		change func(*invariants.TargetFeed) // of the partial feed
		run    func(h *th)
	}{
		{"a completed job fetched again: an unrecorded retry may have brought it back", invariants.TargetFinalKept, noRetries, func(h *th) {
			happy(h)
			h.snap.Jobs[0].Attempt, h.snap.Jobs[0].State = 2, target.Running
			h.fetch("w2", 1, 2)
		}},
		{"a job the database holds and no insert returned: inserts may be missing", invariants.TargetConsistency, noInserts, func(h *th) {
			happy(h)
			h.snap.Jobs = append(h.snap.Jobs, target.Job{ID: 5, Kind: kindDoc, Args: acme("d5"), State: target.Discarded, MaxAttempts: 3})
		}},
		{"an attempt handed out twice: a snooze may have given it back", invariants.TargetConsistency, maySnooze, func(h *th) {
			h.insert(1, "d1")
			h.fetch("w1", 1, 1)
			h.crash("w1", 1, "after_fetch")
			h.done("w2", 1, 1)
			h.row(1, target.Completed, 1)
			h.stored(1, 1, "w2")
		}},
	} {
		for _, lacks := range []bool{false, true} {
			h := newTH()
			tc.run(h)
			change := notDrained
			if lacks {
				change = both(notDrained, tc.change)
			}
			n := 0
			for _, v := range h.run("partial", change).Violations {
				n += b2i(v.Invariant == tc.check)
			}
			if (n > 0) == lacks {
				t.Errorf("%s, the feed lacking it %v: %d %s violations", tc.name, lacks, n, tc.check)
			}
		}
	}
}

// A partial history's ops count in interval order: a fetch whose interval
// overlaps a completion's commit may have come first.
func TestTargetPartialOrder(t *testing.T) {
	build := func(fetchT0 target.Time) []invariants.TargetOp {
		return []invariants.TargetOp{
			{Op: target.Op{Seq: 1, T: 10 * tms, Kind: target.OpInsert, Actor: "client", Job: 1, Kind2: kindDoc, Args: acme("d1"), MaxAttempts: 3, Unique: true}, T0: 5 * tms},
			{Op: target.Op{Seq: 2, T: 20 * tms, Kind: target.OpFetch, Actor: "w1", Job: 1, Attempt: 1}, T0: 15 * tms},
			{Op: target.Op{Seq: 3, T: 30 * tms, Kind: target.OpComplete, Actor: "w1", Job: 1, Attempt: 1, State: target.Completed, Tx: 1}, T0: 25 * tms},
			{Op: target.Op{Seq: 4, T: 40 * tms, Kind: target.OpCommit, Actor: "w1", Job: 1, Attempt: 1, Tx: 1}, T0: 35 * tms},
			{Op: target.Op{Seq: 5, T: 50 * tms, Kind: target.OpFetch, Actor: "w2", Job: 1, Attempt: 2}, T0: fetchT0},
		}
	}
	snap := target.Snapshot{Jobs: []target.Job{{ID: 1, Kind: kindDoc, Args: acme("d1"), State: target.Completed, Attempt: 2, MaxAttempts: 3, Unique: true}}}
	feed := invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry}, Policy: basePolicy()}
	if rep := invariants.CheckTarget(build(45*tms), snap, feed); len(rep.Violations) != 1 || rep.Violations[0].Invariant != invariants.TargetFinalKept {
		t.Errorf("a fetch that began after the commit ended: %v, want one target-final-kept", rep.Violations)
	}
	if rep := invariants.CheckTarget(build(35*tms), snap, feed); len(rep.Violations) != 0 {
		t.Errorf("a fetch whose interval overlaps the commit: %v, want none", rep.Violations)
	}
	// Lines come from several files, in no common order: the report is
	// the same whatever order they are given in.
	ops := build(45 * tms)
	want := invariants.CheckTarget(ops, snap, feed)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		if got := invariants.CheckTarget(ops, snap, feed); !slices.EqualFunc(got.Violations, want.Violations, func(a, b invariants.Violation) bool {
			return a.String() == b.String()
		}) {
			t.Fatalf("order %v: %v, want %v", ops, got.Violations, want.Violations)
		}
	}
}

// An insert's line may end after the first lines of its job: a worker
// fetched it before the client's call returned. In a complete history
// that order is the queue's, and a violation.
func TestTargetInsertLineLate(t *testing.T) {
	ops := []invariants.TargetOp{
		{Op: target.Op{Seq: 1, T: 20 * tms, Kind: target.OpFetch, Actor: "w1", Job: 1, Attempt: 1}, T0: 15 * tms},
		{Op: target.Op{Seq: 2, T: 30 * tms, Kind: target.OpInsert, Actor: "client", Job: 1, Kind2: kindDoc, Args: acme("d1"), MaxAttempts: 3, Unique: true}, T0: 5 * tms},
		{Op: target.Op{Seq: 3, T: 35 * tms, Kind: target.OpInsert, Actor: "client", Job: 1, Kind2: kindDoc, Args: acme("d1"), MaxAttempts: 3, Unique: true,
			Skipped: true}, T0: 31 * tms},
	}
	ops[0], ops[1] = ops[1], ops[0] // given in any order
	snap := target.Snapshot{Jobs: []target.Job{{ID: 1, Kind: kindDoc, Args: acme("d1"), State: target.Running, Attempt: 1, MaxAttempts: 3, Unique: true}}}
	feed := invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry}, Policy: basePolicy()}
	if rep := invariants.CheckTarget(ops, snap, feed); len(rep.Violations) != 0 {
		t.Errorf("partial: %v, want none", rep.Violations)
	}
	var complete []target.Op
	for _, o := range []int{1, 0, 2} {
		complete = append(complete, ops[o].Op)
	}
	feed.Complete = true
	rep := invariants.CheckTarget(invariants.CompleteHistory(complete), snap, feed)
	if len(rep.Violations) == 0 || rep.Violations[0].Message != "fetch by w1 names j1, which no insert returned" {
		t.Errorf("complete: %v, want the fetch before the insert named", rep.Violations)
	}
}

// Exposures come from intervals: a second fetch that ended before the
// first worker's later op began is an overlap; one whose interval might
// come after it is not.
func TestTargetPartialExposures(t *testing.T) {
	build := func(lateT0 target.Time) []invariants.TargetOp {
		return []invariants.TargetOp{
			{Op: target.Op{Seq: 1, T: 10 * tms, Kind: target.OpInsert, Actor: "client", Job: 1, Kind2: kindDoc, Args: acme("d1"), MaxAttempts: 3, Unique: true}, T0: 5 * tms},
			{Op: target.Op{Seq: 2, T: 20 * tms, Kind: target.OpFetch, Actor: "w1", Job: 1, Attempt: 1}, T0: 15 * tms},
			{Op: target.Op{Seq: 3, T: 30 * tms, Kind: target.OpFetch, Actor: "w2", Job: 1, Attempt: 2}, T0: 25 * tms},
			{Op: target.Op{Seq: 4, T: 40 * tms, Kind: target.OpTimeout, Actor: "w1", Job: 1, Attempt: 1}, T0: lateT0},
		}
	}
	snap := target.Snapshot{Jobs: []target.Job{{ID: 1, Kind: kindDoc, Args: acme("d1"), State: target.Completed, Attempt: 2, MaxAttempts: 3, Unique: true}}}
	feed := invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry}, Policy: basePolicy()}
	rep := invariants.CheckTarget(build(35*tms), snap, feed)
	if want := []invariants.Exposure{{Job: 1, First: "w1", Second: "w2", Ops: []uint64{2, 3, 4}}}; !slices.EqualFunc(rep.Exposures, want, exposureEqual) {
		t.Errorf("exposures %+v, want %+v", rep.Exposures, want)
	}
	if rep := invariants.CheckTarget(build(28*tms), snap, feed); len(rep.Exposures) != 0 {
		t.Errorf("exposures %+v, want none: w1's op may have begun before w2's fetch ended", rep.Exposures)
	}
}

func exposureEqual(a, b invariants.Exposure) bool {
	return a.Job == b.Job && a.First == b.First && a.Second == b.Second && slices.Equal(a.Ops, b.Ops)
}
