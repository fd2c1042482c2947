package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Bad input to run|replay|shrink|mutants -target river: exit 2, one line,
// nothing on stdout, no sweep started.
func TestTargetBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-target", "kafka", "-seeds", "1:2"},
		{"run", "-target", "river", "-design", "nope", "-seeds", "1:2"},
		{"run", "-target", "river", "-backend", "mysql", "-seeds", "1:2"},
		{"run", "-target", "river", "-seeds", "5:1"},
		{"run", "-target", "river", "-seeds", "x"},
		{"run", "-target", "river", "-seeds", "1:2", "-rescue-after", "-1s"},
		{"run", "-target", "river", "-seeds", "1:2", "-workers", "0"},
		{"run", "-target", "river", "-seeds", "1:2", "-docs", "-1"},
		{"run", "-target", "river", "-seeds", "1:2", "-max-attempts", "0"},
		{"run", "-target", "river", "-seeds", "1:2", "stray"},
		{"replay", "-target", "river"},
		{"replay", "-target", "river", "-seed", "abc"},
		{"replay", "-target", "river", "-seed", "1", "-plan", "crash w=1 at=nowhere nth=1"},
		{"replay", "-target", "river", "-seed", "1", "-plan", "slow doc=1 for=-3s"},
		{"replay", "-target", "river", "-seed", "1", "-only", "9"},
		{"shrink", "-target", "river", "-seed", "-4"},
		{"mutants", "-target", "river", "-seeds", "1:x"},
	} {
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
	}
}

// A short River sweep from the command line: exit 0 with every check's
// verdict named, the same summary as JSON, and a seed's replay printing
// the same trace twice.
func TestTargetRunAndReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs River on SQLite")
	}
	out, stderr, code := cli("run", "-target", "river", "-seeds", "1:3")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, stderr)
	}
	for _, check := range []string{"target-final-kept", "target-attempts", "target-unique", "target-retry-timing",
		"target-effect-once", "target-tenant-isolation", "target-consistency", "target-drained"} {
		if !strings.Contains(out, "  "+check+" ") {
			t.Errorf("the summary has no verdict for %s:\n%s", check, out)
		}
	}
	js, _, code := cli("run", "-target", "river", "-seeds", "1:3", "-json")
	var sum struct {
		Seeds   int            `json:"seeds"`
		Traces  string         `json:"traces"`
		Paths   map[string]int `json:"paths"`
		Failing []uint64       `json:"failing_seeds"`
	}
	if err := json.Unmarshal([]byte(js), &sum); err != nil || code != 0 {
		t.Fatalf("-json: exit %d, %v:\n%s", code, err, js)
	}
	if sum.Seeds != 3 || sum.Failing == nil || len(sum.Failing) != 0 || sum.Paths["fetches"] == 0 || !strings.Contains(out, sum.Traces) {
		t.Errorf("-json says %+v; the text:\n%s", sum, out)
	}
	a, _, c1 := cli("replay", "-target", "river", "-seed", "2")
	b, _, c2 := cli("replay", "-target", "river", "-seed", "2")
	if c1 != 0 || c2 != 0 || a != b || !strings.Contains(a, " fetch j") {
		t.Errorf("replay: exits %d and %d, traces equal %v:\n%s", c1, c2, a == b, a)
	}
}

// The documented JobCompleteTx pattern's finding, replayed from its plan:
// exit 1 and the effect written twice, with the command that reproduces it.
func TestTargetReplayFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("runs River on SQLite")
	}
	args := []string{"replay", "-target", "river", "-design", "tx-as-documented", "-seed", "1", "-docs", "1", "-workers", "2",
		"-swarm=false", "-plan", "slow doc=1 attempt=1 for=16s; slow doc=1 attempt=2 for=4s"}
	_, stderr, code := cli(args...)
	if code != 1 || !strings.Contains(stderr, "violation: target-effect-once: document acme:d1:v1 has 2 effects") ||
		!strings.Contains(stderr, "reproduce: go run ./cmd/durasim replay -target river -seed 1 -design tx-as-documented") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
