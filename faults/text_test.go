package faults

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/durasim/durasim/boundary"
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

func TestValidateRejectsFieldsAKindDoesNotUse(t *testing.T) {
	tests := []struct {
		f    Fault
		want string
	}{
		{Fault{Kind: Duplicate, Nth: 1, Doc: 2}, "doc does not apply to duplicate"},
		{Fault{Kind: Crash, Boundary: 7, Nth: 1, Worker: 0}, "worker does not apply to crash at relay_after_publish_before_mark"},
		{Fault{Kind: Crash, Nth: 1, Worker: AnyWorker}, "crash needs a boundary"},
		{Fault{Kind: Permanent, Doc: 1, For: time.Second.Nanoseconds()}, "for does not apply to permanent"},
		{Fault{Kind: KindCount}, "unknown fault kind 32"},
		{Fault{Kind: Slow, Doc: 1, Attempt: 1, For: 1}, "the pipeline has no fault kind slow"},
		{Fault{Kind: Crash, Boundary: boundary.AfterFetch, Nth: 1, Worker: AnyWorker}, "the pipeline has no boundary after_fetch"},
		{Fault{Kind: Crash, Boundary: boundary.Count, Nth: 1, Worker: AnyWorker}, "crash needs a boundary"},
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
