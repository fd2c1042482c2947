package main

import (
	"strings"
	"testing"
)

// goqite through the same target flags: its own -goqite-timeout, the
// backends it declares (a PostgreSQL server that does not answer, and
// -parallel on one database, refused), a plan fault its clocks cannot
// take refused.
func TestGoqiteBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-target", "goqite", "-seeds", "1:2", "-goqite-timeout", "0s"},
		{"run", "-target", "goqite", "-seeds", "1:2", "-goqite-timeout", "1500us"},
		{"run", "-target", "goqite", "-seeds", "1:2", "-backend", "mysql"},
		{"run", "-target", "goqite", "-seeds", "1:2", "-rescue-after", "3s"},
		{"run", "-target", "river", "-seeds", "1:2", "-goqite-timeout", "3s"},
		{"replay", "-target", "goqite", "-seed", "1", "-db", "postgres://127.0.0.1:1/x"},
		{"run", "-target", "goqite", "-seeds", "1:2", "-backend", "postgres", "-db", "postgres://u@127.0.0.1:1/x?connect_timeout=5"},
		{"run", "-target", "goqite", "-seeds", "1:2", "-backend", "postgres", "-db", "postgres://u@127.0.0.1:1/x?connect_timeout=5", "-parallel", "2"},
	} {
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
	}
}

// A goqite sweep gives every check's verdict, and replay prints one
// trace, twice alike; the correct handler for goqite passes (its swarm
// without clock faults, which break goqite's timeout).
func TestGoqiteRunAndReplay(t *testing.T) {
	out, stderr, code := cli("run", "-target", "goqite", "-design", "idempotent-key", "-swarm-clocks=false", "-seeds", "1:20")
	if code != 0 || !strings.Contains(out, "target      goqite ") || !strings.Contains(out, "  target-consistency ") {
		t.Fatalf("run: exit %d\n%s%s", code, out, stderr)
	}
	a, _, c1 := cli("replay", "-target", "goqite", "-seed", "7", "-design", "idempotent-key", "-swarm-clocks=false")
	b, _, c2 := cli("replay", "-target", "goqite", "-seed", "7", "-design", "idempotent-key", "-swarm-clocks=false")
	if c1 != 0 || c2 != 0 || a != b || !strings.Contains(a, " fetch j") {
		t.Errorf("replay: exits %d and %d, traces equal %v:\n%s", c1, c2, a == b, a)
	}
	_, stderr, code = cli("replay", "-target", "goqite", "-seed", "1", "-plan", "zone for=3h")
	if code == 0 || !strings.Contains(stderr, "reads no local time") {
		t.Errorf("a zone against goqite: exit %d, %s", code, stderr)
	}
}
