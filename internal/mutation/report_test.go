package mutation

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleReport() *Report {
	surv := &Mutant{File: "q.go", Func: "(*S).f", Op: CondBoundary, Original: "a < b", Mutated: "a <= b", Line: 12, Col: 7}
	eq := &Mutant{File: "q.go", Func: "g", Op: Logical, Original: "a && b", Mutated: "a || b", Line: 20, Col: 4}
	kill := &Mutant{File: "r.go", Func: "h", Op: IncDec, Original: "n++", Mutated: "n--", Line: 3, Col: 2}
	return &Report{
		ImportPath: "example.com/m", Dir: "m", Killer: []string{"./killer"}, Jobs: 2, Enumerated: 5,
		Outcomes: []Outcome{
			{Mutant: surv, Status: Survived},
			{Mutant: eq, Status: Equivalent, Reason: "b implies a"},
			{Mutant: kill, Status: Killed, Detail: "violation seed 3: x"},
			{Mutant: &Mutant{File: "r.go", Func: "h", Op: StmtRemoval, Original: "f()"}, Status: NotCovered},
		},
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	sampleReport().WriteText(&b, 90)
	out := b.String()
	for _, want := range []string{
		"survived    1 (0 with the reason the killer cannot see them, 1 unexplained), and 1 argued equivalent\n",
		"not covered 1 ",
		"score       50.0% = killed 1 / (killed 1 + survived 1); target >= 90%: NOT met\n",
		"            33.3% if the argued-equivalent survivors counted as survived\n",
		"per file    q.go 0% (1 survived), r.go 100% (0 survived)\n",
		"survivors (1):\n  m/q.go:12:7  (*S).f  conditionals-boundary  \"a < b\" -> \"a <= b\"\n",
		"argued equivalent (1):\n  m/q.go:20:4  g  logical  \"a && b\" -> \"a || b\"\n      b implies a\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestWriteTextCatalogue: kills by the killer's catalogue check are
// counted apart, with the score the correct design's sweep alone earns.
func TestWriteTextCatalogue(t *testing.T) {
	r := sampleReport()
	naive := &Mutant{File: "naive.go", Func: "init", Op: StmtRemoval, Original: "d.X = y", Line: 5, Col: 2}
	r.Outcomes = append(r.Outcomes, Outcome{Mutant: naive, Status: Killed, Detail: "catalogue: variant v not caught in seeds 1:1000"})
	var b bytes.Buffer
	r.WriteText(&b, 90)
	out := b.String()
	for _, want := range []string{
		"killed      2 (violation 2, crash 0)\n            1 of the violations by the catalogue",
		"score       66.7% = killed 2 / (killed 2 + survived 1)",
		"            33.3% by the correct design's sweep alone",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json")
	if err := sampleReport().WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j jsonReport
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Mutants) != 4 || j.Counts["survived"] != 1 || j.Counts["killed"] != 1 || j.Score != 50 {
		t.Errorf("JSON report: %+v", j)
	}
	if m := j.Mutants[1]; m.Status != "equivalent" || m.Reason != "b implies a" || m.ID != `q.go g logical "a && b" -> "a || b" #0` {
		t.Errorf("second mutant: %+v", m)
	}
}
