package reports

import (
	"regexp"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/timeline"
)

// TestViolationsTranslated holds every violation the course scenarios and
// the River report produce — of every arm's run, every shrunk
// counterexample, River's sweeps, its documented pattern and the
// contrast runs — to a Portuguese text, so that a pt-BR page never shows
// a violation in English alone. A message with none fails the test with
// its shape (its ids and numbers as {}): the shape to add to
// timeline/messages.go.
func TestViolationsTranslated(t *testing.T) {
	missing := map[string]bool{}
	checked := 0
	check := func(where string, vs []invariants.Violation) {
		for _, v := range vs {
			checked++
			if _, ok := timeline.PtBR.Message(v.Message); ok {
				continue
			}
			if s := messageShape(v.Message); !missing[s] {
				missing[s] = true
				t.Errorf("%s: no Portuguese for the %s message shape\n\t%q\n(for instance %q): add the shape and its Portuguese to timeline/messages.go", where, v.Invariant, s, v.Message)
			}
		}
	}
	for _, b := range built(t) {
		for i, o := range b.Outcomes {
			if o.Result != nil {
				check(b.Scenario.Name+", arm "+o.Arm.Name(), o.Result.Violations)
			}
			if c := b.Counter[i]; c != nil {
				check(b.Scenario.Name+", arm "+o.Arm.Name()+" shrunk", c.Shrunk.Result.Violations)
			}
		}
	}
	rv := river(t)
	for _, d := range rv.Designs {
		if d.Caught != nil {
			check(RiverName+", "+d.Design.String(), d.Caught.Violations)
		}
		if d.Shrunk != nil {
			check(RiverName+", "+d.Design.String()+" shrunk", d.Shrunk.Result.Violations)
		}
	}
	if rv.Documented != nil {
		check(RiverName+", the documented pattern", rv.Documented.Violations)
	}
	for _, c := range rv.Contrast {
		check(RiverName+", contrast "+c.Config.Design.String(), c.Result.Violations)
	}
	if checked == 0 {
		t.Fatal("no violation to translate: the naive arms broke nothing")
	}
}

var (
	quotedRe = regexp.MustCompile(`"[^"]*"`)
	idRe     = regexp.MustCompile(`[\w.:/=+'-]*\d[\w.:/=+'-]*`)
)

// messageShape is a message with what it quotes (strings, and every word
// with a digit: ids, numbers, keys, durations) as {}.
func messageShape(msg string) string {
	return idRe.ReplaceAllString(quotedRe.ReplaceAllString(msg, "{}"), "{}")
}
