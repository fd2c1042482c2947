package model

import "testing"

// The status texts built once are the ones the answer spells, for every
// state and code, and one out of range is still spelled.
func TestStatusAnswerText(t *testing.T) {
	for st := range stateCount {
		for c := range codeCount {
			a := StatusAnswer{State: st, Code: c}
			if got, want := a.Text(), a.text(); got != want {
				t.Fatalf("%v %v: Text() = %q, want %q", st, c, got, want)
			}
		}
	}
	if got := (StatusAnswer{State: Dead, Code: CodeBudgetExhausted}).Text(); got != "state=dead reason=budget_exhausted" {
		t.Fatalf("Text() = %q", got)
	}
	if got := (StatusAnswer{State: Leased}).Text(); got != "state=leased" {
		t.Fatalf("Text() = %q", got)
	}
	if got := (StatusAnswer{State: stateCount, Code: codeCount}).Text(); got != (StatusAnswer{State: stateCount, Code: codeCount}).text() {
		t.Fatalf("out of range: Text() = %q", got)
	}
}
