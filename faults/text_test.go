package faults

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// canonical is the text form of one fault of every shape, in canonical form.
const canonical = `crash after_commit_before_ack nth=1 worker=*
crash after_lease nth=2 worker=w3
pause after_extract nth=1 worker=* for=45s
crash relay_after_publish_before_mark nth=1
crash consumer_after_apply nth=2
duplicate nth=3
delay nth=2 for=500ms
reorder nth=4
transient doc=2 attempt=1
transient doc=2 attempt=*
permanent doc=3
poison doc=1
429 at=2s for=3s
ambiguous-commit nth=1
deadline doc=1 within=100ms
`

func TestCanonicalTextPrintsBackUnchanged(t *testing.T) {
	p, err := Parse(canonical)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 15 {
		t.Fatalf("parsed %d faults, want 15", p.Len())
	}
	if diff := cmp.Diff(canonical, p.String()); diff != "" {
		t.Errorf("String() differs from the canonical text (-want +got):\n%s", diff)
	}
	want := strings.ReplaceAll(strings.TrimSuffix(canonical, "\n"), "\n", "; ")
	if got := p.OneLine(); got != want {
		t.Errorf("OneLine() = %q, want %q", got, want)
	}
}

func TestPlanRoundTripsThroughText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		docs := rapid.IntRange(1, 20).Draw(t, "docs")
		workers := rapid.IntRange(1, 8).Draw(t, "workers")
		p := PlanGen(docs, workers).Draw(t, "plan")
		if err := p.Validate(); err != nil {
			t.Fatalf("generated an invalid plan: %v", err)
		}
		for _, text := range []string{p.String(), p.OneLine()} {
			got, err := Parse(text)
			if err != nil {
				t.Fatalf("Parse(%q): %v", text, err)
			}
			if diff := cmp.Diff(p, got); diff != "" {
				t.Fatalf("Parse(%q) differs (-want +got):\n%s", text, diff)
			}
		}
	})
}

func TestDurationsRoundTripExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.Int64Range(1, math.MaxInt64).Draw(t, "d")
		f := Fault{Kind: Delay, Nth: 1, For: d}
		got, err := Parse(f.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", f, err)
		}
		if got.Faults[0].For != d {
			t.Fatalf("%q parsed back as %d, want %d", f, got.Faults[0].For, d)
		}
	})
}

func TestKindNamesRoundTrip(t *testing.T) {
	for k := range KindCount {
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", k, got, err, k)
		}
	}
	if got := KindCount.String(); got != "kind(15)" {
		t.Errorf("KindCount.String() = %q", got)
	}
}

func TestValidateRejectsFieldsAKindDoesNotUse(t *testing.T) {
	tests := []struct {
		f    Fault
		want string
	}{
		{Fault{Kind: Duplicate, Nth: 1, Doc: 2}, "doc does not apply to duplicate"},
		{Fault{Kind: Crash, Boundary: 7, Nth: 1, Worker: 0}, "worker does not apply to crash at relay_after_publish_before_mark"},
		{Fault{Kind: Crash, Nth: 1, Worker: AnyWorker}, "crash needs a boundary"},
		{Fault{Kind: Permanent, Doc: 1, For: time.Second.Nanoseconds()}, "for does not apply to permanent"},
		{Fault{Kind: KindCount}, "unknown fault kind 15"},
		{Fault{Kind: Crash, Boundary: 1, Nth: 1, Worker: -2}, "malformed worker -2"},
		{Fault{Kind: Transient, Doc: 1, Attempt: -1}, "attempt must be >= 1 or *"},
	}
	for _, tt := range tests {
		err := tt.f.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%#v.Validate() = %v, want it to mention %q", tt.f, err, tt.want)
		}
	}
}
