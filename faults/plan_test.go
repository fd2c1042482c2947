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
	singles := Exhaustive(crossings, 45*second)
	if len(singles) != 12 {
		t.Fatalf("Exhaustive: %d plans, want 6 crashes + 6 pauses", len(singles))
	}
	if got := len(Exhaustive(crossings, 0)); got != 6 {
		t.Errorf("Exhaustive without pauses: %d plans, want 6", got)
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
	if got, want := pairs[65].OneLine(), "pause after_ack nth=2 worker=* for=45s; pause relay_after_publish_before_mark nth=1 for=45s"; got != want {
		t.Errorf("last pair = %q, want %q", got, want)
	}
}
