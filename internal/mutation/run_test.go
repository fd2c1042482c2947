package mutation

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRunSample runs the whole tool on testdata/sample with
// testdata/samplekiller, on a selection of mutants: one for each way a
// mutant can end, and an equivalents list with one argued, one stale and
// one misjudged entry. The build-each run splits the killer into two runs
// (";"), the schemata run into a deterministic one and one whose output
// differs each time (as a chaos run's does): the verdicts must not change.
func TestRunSample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a dozen binaries")
	}
	for _, schemata := range []bool{true, false} {
		t.Run(map[bool]string{true: "schemata", false: "build-each"}[schemata], func(t *testing.T) {
			t.Parallel()
			runSample(t, schemata)
		})
	}
}

func runSample(t *testing.T, schemata bool) {
	argued := Argued{ID: `sample.go Back arithmetic "len(xs)-1-i" -> "len(xs)-1+i" #0`, Reason: "the killer asks for index 0 only", Line: 1}
	stale := Argued{ID: `sample.go Gone logical "a && b" -> "a || b" #0`, Reason: "deleted", Line: 2}
	misjudged := Argued{ID: `sample.go Twice arithmetic "2 * v" -> "2 / v" #0`, Reason: "wrong", Line: 3}
	killer := []string{"./testdata/samplekiller"}
	if !schemata {
		killer = append(killer, "clamp", ";", "rest")
	} else {
		killer = append(killer, "clamp", "rest", ";", "clock")
	}
	r, err := Run(Options{
		Pkg: "./testdata/sample", Killer: killer,
		Filter:   regexp.MustCompile(`Clamp conditionals-.*"v < lo"|Back|Spin statement-removal "n--"|Twice|Unused`),
		Schemata: schemata, Jobs: 2, Timeout: Timeout{Fixed: 2 * time.Second}, Dir: filepath.Join(t.TempDir(), "work"),
		Equivalents: []Argued{argued, stale, misjudged},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{
		`sample.go Clamp conditionals-boundary "v < lo" -> "v <= lo" #0`: Survived,
		`sample.go Clamp conditionals-negation "v < lo" -> "v >= lo" #0`: Killed,
		`sample.go Back arithmetic "len(xs)-1" -> "len(xs)+1" #0`:        Crashed,
		argued.ID: Equivalent,
		`sample.go Spin statement-removal "n--" -> "" #0`:      TimedOut,
		`sample.go Twice statement-removal "sink(x)" -> "" #0`: NotViable,
		misjudged.ID: Killed,
		`sample.go Unused arithmetic "a * 3" -> "a / 3" #0`: NotCovered,
	}
	if r.Enumerated != 16 || len(r.Outcomes) != len(want) {
		t.Errorf("%d mutants enumerated, %d selected: want 16 and %d", r.Enumerated, len(r.Outcomes), len(want))
	}
	got := map[string]Status{}
	for _, o := range r.Outcomes {
		got[o.Mutant.ID()] = o.Status
		if w, ok := want[o.Mutant.ID()]; !ok || w != o.Status {
			t.Errorf("%s: %s (%s), want %v", o.Mutant.ID(), o.Status, o.Detail, w)
		}
	}
	for id := range want {
		if _, ok := got[id]; !ok {
			t.Errorf("mutant %s not enumerated", id)
		}
	}
	if len(r.Stale) != 1 || r.Stale[0].ID != stale.ID {
		t.Errorf("stale entries %v, want the one for Gone", r.Stale)
	}
	if len(r.Misjudged) != 1 || r.Misjudged[0].ID != misjudged.ID {
		t.Errorf("misjudged entries %v, want the one for Twice", r.Misjudged)
	}
	inSchema := 0
	for _, o := range r.Outcomes {
		if o.Schema {
			inSchema++
		}
	}
	// Every mutant run can be switched in this package's schema.
	if schemata && inSchema != 6 || !schemata && inSchema != 0 {
		t.Errorf("%d mutants ran in the schema", inSchema)
	}
	if r.Reached == 0 || r.Reached >= r.Statements {
		t.Errorf("coverage %d of %d statements: want some but not all (Unused never runs)", r.Reached, r.Statements)
	}
}

// A filter that selects nothing is an error before the killer runs, not
// a run that scores 100% of nothing.
func TestRunFilterSelectingNothing(t *testing.T) {
	_, err := Run(Options{
		Pkg: "./testdata/sample", Killer: []string{"./testdata/samplekiller", "clamp"},
		Filter: regexp.MustCompile(`^no such mutant$`), Jobs: 1, Timeout: Timeout{Fixed: 2 * time.Second},
		Dir: filepath.Join(t.TempDir(), "work"),
	})
	if !errors.Is(err, ErrNoneSelected) || !strings.Contains(err.Error(), "select none of the 16 mutants") {
		t.Fatalf("got %v, want ErrNoneSelected naming the 16 mutants", err)
	}
}
