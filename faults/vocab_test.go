package faults_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/targetsim"
)

// vocabularies are every system's: the pipeline's and a queue target's.
var vocabularies = []*faults.Vocabulary{faults.Pipeline, targetsim.Vocabulary("river")}

// Every system's generated plans print as text that parses back to them,
// one fault per line and on one line.
func TestPlanRoundTripsThroughText(t *testing.T) {
	for _, v := range vocabularies {
		t.Run(v.System(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				docs := rapid.IntRange(1, 20).Draw(t, "docs")
				workers := rapid.IntRange(1, 8).Draw(t, "workers")
				p := v.PlanGen(docs, workers).Draw(t, "plan")
				if err := v.Validate(p); err != nil {
					t.Fatalf("generated an invalid plan: %v", err)
				}
				roundTrip(t, v, p)
			})
		})
	}
}

// FuzzParse reads any text as each system's plan: an error is one
// plan:LINE:COL line; a plan is valid and prints as text that parses back
// to it.
func FuzzParse(f *testing.F) {
	f.Add(faults.Canonical)
	f.Add("crash after_lease nth=1; duplicate nth=2 # c\n\n429 at=0s for=1.5µs")
	f.Add("transient doc=2 attempt=*;;deadline doc=1 within=1h2m3.000000004s")
	f.Add("crash relay_after_publish_before_mark nth=1 worker=w1")
	f.Add("pause after_extract nth=1 worker=w0 for=-1s\r\n")
	f.Add("delay nth=2147483647 for=2562047h47m16.854775807s")
	f.Add("crash after_fetch nth=1 worker=w1; pause after_effect nth=2 worker=* for=15s\ncrash rescuer_after_stuck nth=1")
	f.Add("slow doc=3 attempt=1 for=1.5s; cancel doc=4 attempt=*; snooze doc=5 attempt=2 for=250ms")
	f.Add("resubmit doc=1 at=2s; redrive doc=2; few-attempts doc=3 max=1 # River")
	f.Fuzz(func(t *testing.T, text string) {
		for _, v := range vocabularies {
			p, err := v.Parse(text)
			if err != nil {
				if msg := err.Error(); !strings.HasPrefix(msg, "plan:") || strings.Contains(msg, "\n") {
					t.Fatalf("%s: Parse(%q) error is not one plan:LINE:COL line: %q", v.System(), text, msg)
				}
				continue
			}
			if err := v.Validate(p); err != nil {
				t.Fatalf("%s: Parse(%q) returned an invalid plan: %v", v.System(), text, err)
			}
			roundTrip(t, v, p)
		}
	})
}

// fataler is what roundTrip needs of a *testing.T and a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func roundTrip(t fataler, v *faults.Vocabulary, p faults.Plan) {
	t.Helper()
	for _, text := range []string{p.String(), p.OneLine()} {
		got, err := v.Parse(text)
		if err != nil {
			t.Fatalf("%s: Parse(%q): %v", v.System(), text, err)
		}
		if diff := cmp.Diff(p, got); diff != "" {
			t.Fatalf("%s: Parse(%q) differs (-want +got):\n%s", v.System(), text, diff)
		}
	}
}

// Each system's kinds are found by name; a kind of another system, or of
// none, is refused naming the system's own.
func TestLookupKind(t *testing.T) {
	for _, v := range vocabularies {
		for _, k := range v.Kinds() {
			if got, err := v.LookupKind(k.String()); err != nil || got != k {
				t.Errorf("%s: LookupKind(%q) = %v, %v; want %v", v.System(), k, got, err, k)
			}
		}
		for k := range faults.KindCount {
			if _, err := v.LookupKind(k.String()); !v.Has(k) && !hasName(v, k.String()) && (err == nil ||
				err.Error() != v.System()+" has no fault kind "+k.String()+" (it has "+kindList(v)+")") {
				t.Errorf("%s: LookupKind(%q) = %v", v.System(), k, err)
			}
		}
		if _, err := v.LookupKind("explode"); err == nil || !strings.HasPrefix(err.Error(), `unknown fault kind "explode" (`+v.System()+" has ") {
			t.Errorf("%s: LookupKind(explode) = %v", v.System(), err)
		}
	}
	if got := faults.KindCount.String(); got != "kind(32)" {
		t.Errorf("KindCount.String() = %q", got)
	}
}

// resubmit is the pipeline's Resubmit (after the reply) and a target's
// ResubmitAt (at a time): one name, one meaning, each system's fields.
func TestResubmitIsEachSystemsOwn(t *testing.T) {
	want := map[string]faults.Kind{faults.Pipeline.System(): faults.Resubmit, "river": faults.ResubmitAt}
	for _, v := range vocabularies {
		if k, err := v.LookupKind("resubmit"); err != nil || k != want[v.System()] {
			t.Errorf("%s: resubmit is %v, %v", v.System(), k, err)
		}
	}
}

func hasName(v *faults.Vocabulary, name string) bool {
	_, err := v.LookupKind(name)
	return err == nil
}

func kindList(v *faults.Vocabulary) string {
	var names []string
	for _, k := range v.Kinds() {
		names = append(names, k.String())
	}
	return strings.Join(names, ", ")
}
