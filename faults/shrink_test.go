package faults

import (
	"errors"
	"slices"
	"testing"
)

// tries records the plans a search ran, and fails on the first listed one.
type tries struct {
	ran   []string
	fails []string
	err   error
}

func (tr *tries) run(p Plan) (bool, error) {
	tr.ran = append(tr.ran, p.OneLine())
	if tr.err != nil && len(tr.ran) == 3 {
		return false, tr.err
	}
	return slices.Contains(tr.fails, p.OneLine()), nil
}

// The subsets come in index order, each fault's variants in order, the
// first fault's outermost; the first failing plan is returned.
func TestFirstFailingSubsetOrder(t *testing.T) {
	p := mustParse(t, "duplicate nth=1; reorder nth=2; poison doc=3")
	twice := func(f Fault) []Fault {
		if f.Kind != Duplicate {
			return []Fault{f}
		}
		g := f
		g.Nth = 5
		return []Fault{f, g}
	}
	tr := &tries{fails: []string{"reorder nth=2; poison doc=3"}}
	got, ok, err := FirstFailingSubset(p, 2, twice, tr.run)
	want := []string{"duplicate nth=1; reorder nth=2", "duplicate nth=5; reorder nth=2", "duplicate nth=1; poison doc=3",
		"duplicate nth=5; poison doc=3", "reorder nth=2; poison doc=3"}
	if !ok || err != nil || got.OneLine() != want[4] || !slices.Equal(tr.ran, want) {
		t.Fatalf("got %q, %v, %v after %q; want %q", got.OneLine(), ok, err, tr.ran, want)
	}
	tr = &tries{}
	if _, ok, _ := FirstFailingSubset(p, 1, nil, tr.run); ok || !slices.Equal(tr.ran, []string{"duplicate nth=1", "reorder nth=2", "poison doc=3"}) {
		t.Errorf("singles: %v after %q", ok, tr.ran)
	}
	for _, k := range []int{0, 4} {
		if _, ok, _ := FirstFailingSubset(p, k, nil, (&tries{}).run); ok {
			t.Errorf("k=%d found a subset", k)
		}
	}
	boom := errors.New("boom")
	tr = &tries{err: boom}
	if _, _, err := FirstFailingSubset(p, 1, nil, tr.run); !errors.Is(err, boom) || len(tr.ran) != 3 {
		t.Errorf("an error did not stop the search: %v after %d runs", err, len(tr.ran))
	}
}

// Delta debugging removes halves, then single faults, keeping each
// removal the plan still fails without.
func TestMinimize(t *testing.T) {
	p := mustParse(t, "duplicate nth=1; reorder nth=2; poison doc=3; permanent doc=4")
	needs := func(q Plan) (bool, error) { return q.CountKind(Reorder) == 1 && q.CountKind(Permanent) == 1, nil }
	got, err := Minimize(p, needs)
	if err != nil || got.OneLine() != "reorder nth=2; permanent doc=4" {
		t.Errorf("Minimize = %q, %v", got.OneLine(), err)
	}
	tr := &tries{err: errors.New("boom")}
	if got, err := Minimize(p, tr.run); err == nil || got.Len() != 4 {
		t.Errorf("an error: %q, %v", got.OneLine(), err)
	}
}
