package faults

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/google/go-cmp/cmp"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, pos, names string
	}{
		{"explode nth=1", "plan:1:1:", `unknown fault kind "explode" (the pipeline has crash, pause,`},
		{"crash nowhere nth=1", "plan:1:7:", `unknown boundary "nowhere" (the pipeline has after_lease,`},
		{"crash after_fetch nth=1", "plan:1:7:", "the pipeline has no boundary after_fetch (it has after_lease, after_extract,"},
		{"slow doc=1 attempt=1 for=1s", "plan:1:1:", "the pipeline has no fault kind slow (it has crash, pause, duplicate,"},
		{"few-attempts doc=1 max=2", "plan:1:1:", "the pipeline has no fault kind few-attempts"},
		{"resubmit doc=1 at=2s", "plan:1:16:", `unknown key "at" for resubmit (want doc)`},
		{"crash", "plan:1:1:", "crash needs a boundary before its fields (the pipeline has after_lease,"},
		{"crash nth=1", "plan:1:7:", "crash needs a boundary"},
		{"crash after_lease worker=*", "plan:1:1:", "missing required field nth"},
		{"pause after_extract nth=1", "plan:1:1:", "missing required field for"},
		{"transient doc=1", "plan:1:1:", "missing required field attempt"},
		{"duplicate nth=1 color=red", "plan:1:17:", `unknown key "color" for duplicate (want nth)`},
		{"deadline doc=1 for=1s", "plan:1:16:", `unknown key "for" for deadline (want doc, within)`},
		{"duplicate nth=1 nth=2", "plan:1:17:", "duplicate key nth"},
		{"duplicate nth=x", "plan:1:15:", `bad number "x" for nth`},
		{"duplicate nth=+1", "plan:1:15:", `bad number "+1" for nth`},
		{"duplicate nth=99999999999", "plan:1:15:", "bad number"},
		{"duplicate nth=0", "plan:1:15:", "nth must be >= 1, got 0"},
		{"ambiguous-commit nth=-3", "plan:1:22:", "nth must be >= 1, got -3"},
		{"permanent doc=0", "plan:1:15:", "doc must be >= 1"},
		{"delay nth=1 for=-5s", "plan:1:17:", "for must be > 0, got -5s"},
		{"delay nth=1 for=0s", "plan:1:17:", "for must be > 0, got 0s"},
		{"delay nth=1 for=5", "plan:1:17:", `bad duration "5" for for`},
		{"deadline doc=1 within=0s", "plan:1:23:", "within must be > 0"},
		{"429 at=-1s for=1s", "plan:1:8:", "at must be >= 0"},
		{"429 at=9223372036s for=1s", "plan:1:24:", "overflows"},
		{"transient doc=1 attempt=0", "plan:1:25:", `bad attempt "0"`},
		{"crash relay_after_publish_before_mark nth=1 worker=w1", "plan:1:45:", "worker given for non-worker boundary relay_after_publish_before_mark"},
		{"crash after_lease nth=1 worker=x3", "plan:1:32:", `malformed worker "x3" (want * or wN)`},
		{"crash after_lease nth=1 worker=w-1", "plan:1:32:", `malformed worker "w-1"`},
		{"crash after_lease nth=1 worker=w", "plan:1:32:", `malformed worker "w"`},
		{"reorder 4", "plan:1:9:", `expected key=value, got "4"`},
		{"duplicate nth=1\n\n  poison doc=1; permanent doc=x", "plan:3:31:", `bad number "x" for doc`},
		{"# header\r\ncrash after_lease nth=1 # ok\r\n\tcrash  after_ack nth=1 worker=w1 for=1s", "plan:3:35:", `unknown key "for" for crash (want nth, worker)`},
		{"poison doc=1 # fine ; explode", "", ""},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if tt.pos == "" {
			if err != nil {
				t.Errorf("Parse(%q): unexpected error %v", tt.in, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error at %s", tt.in, tt.pos)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tt.pos+" ") || !strings.Contains(msg, tt.names) || strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q) error = %q, want one line starting %q naming %q", tt.in, msg, tt.pos, tt.names)
		}
	}
}

func TestParseAcceptsLooseLayout(t *testing.T) {
	text := "# a plan\n\n  crash after_lease   nth=2 worker=w3  # trailing comment\r\n" +
		";; duplicate nth=1 ;  pause after_extract for=45s nth=1\n" +
		"\t429 for=3s at=0s;transient doc=2 attempt=*\n# done\n"
	got, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{Faults: []Fault{
		{Kind: Crash, Boundary: model.AfterLease, Worker: 3, Nth: 2},
		{Kind: Duplicate, Nth: 1},
		{Kind: Pause, Boundary: model.AfterExtract, Worker: AnyWorker, Nth: 1, For: 45 * second},
		{Kind: RateLimit, At: 0, For: 3 * second},
		{Kind: Transient, Doc: 2, Attempt: 0},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse differs (-want +got):\n%s", diff)
	}
}

func TestParseEmptyIsTheEmptyPlan(t *testing.T) {
	for _, text := range []string{"", "\n", "  # nothing\n;;\n"} {
		p, err := Parse(text)
		if err != nil || p.Faults != nil || p.String() != "" || p.OneLine() != "" {
			t.Errorf("Parse(%q) = %#v, %v; want the empty plan", text, p, err)
		}
	}
}

func TestWorkerDefaultsToAny(t *testing.T) {
	p, err := Parse("crash after_lease nth=1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.String(), "crash after_lease nth=1 worker=*\n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

const second = 1000 * model.Millisecond
