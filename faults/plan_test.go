package faults

import (
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/google/go-cmp/cmp"
)

func TestWithoutAndSubset(t *testing.T) {
	p := mustParse(t, "duplicate nth=1; reorder nth=2; poison doc=3")
	if got, want := p.Without(1).OneLine(), "duplicate nth=1; poison doc=3"; got != want {
		t.Errorf("Without(1) = %q, want %q", got, want)
	}
	if p.Len() != 3 {
		t.Errorf("Without changed the original plan: %q", p.OneLine())
	}
	if got, want := p.Subset([]bool{false, true, true}).OneLine(), "reorder nth=2; poison doc=3"; got != want {
		t.Errorf("Subset = %q, want %q", got, want)
	}
	if diff := cmp.Diff(Plan{}, p.Subset(make([]bool, 3))); diff != "" {
		t.Errorf("empty Subset is not the empty plan:\n%s", diff)
	}
	if diff := cmp.Diff(Plan{}, p.Without(0).Without(0).Without(0)); diff != "" {
		t.Errorf("Without down to nothing is not the empty plan:\n%s", diff)
	}
}

func TestExhaustiveAndPairsCounts(t *testing.T) {
	crossings := make([]int32, len(model.Boundaries())+1)
	crossings[model.AfterLease] = 3
	crossings[model.AfterAck] = 2
	crossings[model.RelayAfterPublishBeforeMark] = 1
	crossings[model.NoBoundary] = 9 // not a boundary: ignored
	singles := Exhaustive(Counts{Crossings: crossings, Lease: 40 * second})
	if len(singles) != 12 {
		t.Fatalf("Exhaustive: %d plans, want 6 crashes + 6 pauses", len(singles))
	}
	if got := len(Exhaustive(Counts{Crossings: crossings})); got != 6 {
		t.Errorf("Exhaustive without a lease (no pauses): %d plans, want 6", got)
	}
	for i, p := range singles {
		if p.Len() != 1 || p.Validate() != nil || (p.Faults[0].Kind == Pause) != (i >= 6) {
			t.Errorf("plan %d = %q", i, p.OneLine())
		}
	}
	pairs := Pairs(singles)
	if len(pairs) != 12*11/2 {
		t.Fatalf("Pairs: %d plans, want 66", len(pairs))
	}
	if got, want := pairs[0].OneLine(), "crash after_lease nth=1 worker=*; crash after_lease nth=2 worker=*"; got != want {
		t.Errorf("first pair = %q, want %q", got, want)
	}
	if got, want := pairs[65].OneLine(), "pause after_ack nth=2 worker=* for=42s; pause relay_after_publish_before_mark nth=1 for=42s"; got != want {
		t.Errorf("last pair = %q, want %q", got, want)
	}
}

// Every fault kind is enumerated, each plan valid, with the counts the
// workload gives.
func TestExhaustiveEnumeratesEveryKind(t *testing.T) {
	crossings := make([]int32, len(model.Boundaries())+1)
	crossings[model.AfterExtract] = 2
	singles := Exhaustive(Counts{Crossings: crossings, Publishes: 3, Commits: 2, Docs: 2, Horizon: 10 * second, Lease: 30 * second})
	var per [KindCount]int
	for _, p := range singles {
		if err := p.Validate(); err != nil {
			t.Fatalf("%q: %v", p.OneLine(), err)
		}
		per[p.Faults[0].Kind]++
	}
	want := [KindCount]int{Crash: 2, Pause: 2, Duplicate: 3, Delay: 3, Reorder: 3, Transient: 4, Permanent: 2, Poison: 2,
		RateLimit: 2, AmbiguousCommit: 2, DeadlinePressure: 2, Resubmit: 2, ResubmitEdited: 2, CrashLoop: 2, Malformed: 2}
	if per != want {
		t.Fatalf("plans per kind %v, want %v", per, want)
	}
}
