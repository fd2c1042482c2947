package mutation

import (
	"strings"
	"testing"
	"time"
)

func TestParseEquivalents(t *testing.T) {
	m := &Mutant{File: "q.go", Func: "(*S).f", Op: CondBoundary, Original: `a < "x: y"`, Mutated: `a <= "x: y"`, Index: 2}
	text := "# argued equivalent\n\n" + m.ID() + ": a is never \"x: y\" here\n" +
		"q.go g logical `a && b` -> `a || b` #0: quoted with backquotes\n" +
		"reads.go const messagesQuery sql-literal \"a > b\" -> \"a >= b\" #0: a declaration's name holds a space\n"
	eqs, err := ParseEquivalents(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(eqs) != 3 || eqs[0].ID != m.ID() || eqs[0].Reason != `a is never "x: y" here` || eqs[0].Line != 3 {
		t.Fatalf("got %+v", eqs)
	}
	if eqs[1].ID != `q.go g logical "a && b" -> "a || b" #0` {
		t.Errorf("backquoted entry read as %s", eqs[1].ID)
	}
	if eqs[2].ID != `reads.go const messagesQuery sql-literal "a > b" -> "a >= b" #0` {
		t.Errorf("entry with a spaced function read as %s", eqs[2].ID)
	}
	for _, bad := range []string{
		m.ID(),         // no reason
		m.ID() + ":  ", // an empty one
		`q.go f nosuch-op "a" -> "b" #0: why`,
		`q.go f logical "a" "b" #0: why`,
		`q.go f logical "a" -> "b" 0: why`,
		`q.go f logical "a -> "b" #0: why`,
	} {
		if _, err := ParseEquivalents(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestApplyEquivalents(t *testing.T) {
	live := &Mutant{File: "a.go", Func: "f", Op: Logical, Original: "a && b", Mutated: "a || b"}
	killed := &Mutant{File: "a.go", Func: "f", Op: IncDec, Original: "n++", Mutated: "n--"}
	r := &Report{Outcomes: []Outcome{{Mutant: live, Status: Survived}, {Mutant: killed, Status: TimedOut}}}
	eqs := []Argued{{ID: live.ID(), Reason: "b implies a"}, {ID: killed.ID(), Reason: "wrong"}, {ID: "a.go f logical \"x\" -> \"y\" #0", Reason: "gone"}}
	applyEquivalents(r, []*Mutant{live, killed}, eqs)
	if r.Outcomes[0].Status != Equivalent || r.Outcomes[0].Reason != "b implies a" {
		t.Errorf("survivor: %v %q", r.Outcomes[0].Status, r.Outcomes[0].Reason)
	}
	if r.Outcomes[1].Status != TimedOut || len(r.Misjudged) != 1 || r.Misjudged[0].ID != killed.ID() {
		t.Errorf("killed one: %v, misjudged %v", r.Outcomes[1].Status, r.Misjudged)
	}
	if len(r.Stale) != 1 || r.Stale[0].Reason != "gone" {
		t.Errorf("stale %v", r.Stale)
	}
	all, _ := r.Tally()
	if score, withArgued := all.Score(); score != 100 || withArgued != 50 {
		t.Errorf("score %v, %v with the argued one as a survivor", score, withArgued)
	}
}

// An explained survivor keeps counting as a survivor, with its reason;
// one with no entry is unexplained.
func TestExplainedSurvivors(t *testing.T) {
	seen := &Mutant{File: "a.go", Func: "f", Op: CondBoundary, Original: "a < b", Mutated: "a <= b"}
	bare := &Mutant{File: "a.go", Func: "g", Op: CondBoundary, Original: "a < b", Mutated: "a <= b"}
	eq := &Mutant{File: "a.go", Func: "h", Op: Logical, Original: "a && b", Mutated: "a || b"}
	text := eq.ID() + ": b implies a\n" + survivorsSection + "\n" + seen.ID() + ": a == b needs equal random times\n"
	eqs, err := ParseEquivalents(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(eqs) != 2 || eqs[0].Explained || !eqs[1].Explained {
		t.Fatalf("got %+v", eqs)
	}
	r := &Report{Outcomes: []Outcome{{Mutant: seen, Status: Survived}, {Mutant: bare, Status: Survived}, {Mutant: eq, Status: Survived}}}
	applyEquivalents(r, []*Mutant{seen, bare, eq}, eqs)
	if o := r.Outcomes[0]; o.Status != Survived || o.Reason != "a == b needs equal random times" {
		t.Errorf("explained: %v %q", o.Status, o.Reason)
	}
	if r.Outcomes[2].Status != Equivalent {
		t.Errorf("equivalent: %v", r.Outcomes[2].Status)
	}
	if n := r.Unexplained(); n != 1 {
		t.Errorf("%d unexplained, want 1 (the bare survivor)", n)
	}
	all, _ := r.Tally()
	if all[Survived] != 2 {
		t.Errorf("%d survived, want 2: an explained survivor still counts", all[Survived])
	}
}

func TestParseTimeout(t *testing.T) {
	for _, tc := range []struct {
		in       string
		baseline time.Duration
		want     time.Duration
	}{
		{"10x", 3 * time.Second, 30 * time.Second},
		{"10x", 200 * time.Millisecond, 10 * time.Second}, // the floor
		{"2.5x", 8 * time.Second, 20 * time.Second},
		{"45s", time.Hour, 45 * time.Second},
	} {
		to, err := ParseTimeout(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := to.For(tc.baseline); got != tc.want {
			t.Errorf("%s of %s: %s, want %s", tc.in, tc.baseline, got, tc.want)
		}
	}
	for _, bad := range []string{"", "x", "0.5x", "-3s", "0s", "ten"} {
		if _, err := ParseTimeout(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
