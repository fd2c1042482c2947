package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
		{"replay", "-target", "river", "-seed", "1", "-plan", "crash nowhere nth=1 worker=w1"},
		{"replay", "-target", "river", "-seed", "1", "-plan", "crash after_fetch nth=1 worker=w4"},
		{"replay", "-target", "river", "-seed", "1", "-plan-file", "/dev/zero"},
		{"replay", "-target", "river", "-seed", "1", "-plan-file", "/nonexistent/plan"},
		{"replay", "-target", "river", "-seed", "1", "-plan", "redrive doc=1", "-plan-file", "/dev/null"},
		{"replay", "-target", "river", "-seed", "1", "-plan", "slow doc=1 for=-3s"},
		{"replay", "-target", "river", "-seed", "1", "-only", "9"},
		{"shrink", "-target", "river", "-seed", "-4"},
		{"mutants", "-target", "river", "-seeds", "1:x"},
		{"run", "-target", "river", "-seeds", "1:2", "-parallel", "0"},
		{"run", "-target", "river", "-seeds", "1:2", "-shard", "2/2"},
		{"run", "-target", "river", "-seeds", "1:2", "-backend", "postgres", "-db", "postgres://127.0.0.1:1/x", "-parallel", "2"},
		{"run", "-target", "river", "-seeds", "1:2", "-races"}, // races mode needs PostgreSQL
	} {
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
	}
}

// A plan naming what a system does not have fails with the same kind of
// one-line error, at its line and column, for the model and for River.
func TestPlanErrorsAreOneKind(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "-seed", "1", "-plan", "crash after_fetch nth=1"},
			"durasim: plan:1:7: the pipeline has no boundary after_fetch (it has after_lease, after_extract, "},
		{[]string{"replay", "-target", "river", "-seed", "1", "-plan", "crash after_lease nth=1"},
			"durasim: plan:1:7: river has no boundary after_lease (it has after_fetch, after_work, "},
		{[]string{"replay", "-seed", "1", "-plan", "duplicate nth=1\nslow doc=1 attempt=1 for=1s"},
			"durasim: plan:2:1: the pipeline has no fault kind slow (it has crash, pause, "},
		{[]string{"replay", "-target", "river", "-seed", "1", "-plan", "cancel doc=1 attempt=1; poison doc=1"},
			"durasim: plan:1:25: river has no fault kind poison (it has crash, pause, "},
	} {
		out, stderr, code := cli(tt.args...)
		oneLineError(t, tt.args, out, stderr, code)
		if !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("%q: %q, want it to start %q", tt.args, stderr, tt.want)
		}
	}
}

// A River plan in a file replays as the same plan given inline.
func TestTargetPlanFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs River on SQLite")
	}
	const plan = "crash after_effect nth=3 worker=w0"
	file := filepath.Join(t.TempDir(), "plan")
	if err := os.WriteFile(file, []byte("# the effect-outside-tx counterexample\n"+plan+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"replay", "-target", "river", "-seed", "17", "-design", "effect-outside-tx", "-workers", "1", "-swarm=false", "-only", "1,4,5"}
	a, errA, codeA := cli(append(args, "-plan", plan)...)
	b, errB, codeB := cli(append(args, "-plan-file", file)...)
	if codeA != 1 || codeB != 1 || a != b || errA != errB || !strings.Contains(errA, "-plan '"+plan+"'") {
		t.Errorf("-plan: exit %d, -plan-file: exit %d, same trace %v:\n%s%s", codeA, codeB, a == b, errA, errB)
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
		!strings.Contains(stderr, "reproduce: go run ../../cmd/durasim replay -target river -seed 1 -design tx-as-documented") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}

// A target sweep on two goroutines, each with its own database, agrees
// with the serial one byte for byte: verdicts, failing seeds and the
// traces' folded hash; and the shards of a range add up to it.
func TestTargetParallelAgreesWithSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("runs River on SQLite over 500 seeds, twice")
	}
	serial, errS, codeS := cli("run", "-target", "river", "-seeds", "1:500", "-parallel", "1", "-json")
	parallel, errP, codeP := cli("run", "-target", "river", "-seeds", "1:500", "-parallel", "2", "-json")
	if codeS != codeP || serial != parallel || errS != errP {
		t.Fatalf("-parallel 1: exit %d, -parallel 2: exit %d; same JSON %v\n%s\n%s%s%s", codeS, codeP, serial == parallel, serial, parallel, errS, errP)
	}
	var sum struct {
		Seeds   int    `json:"seeds"`
		Traces  string `json:"traces"`
		Planned int    `json:"planned"`
	}
	if err := json.Unmarshal([]byte(serial), &sum); err != nil || sum.Seeds != 500 || sum.Planned != 500 || len(sum.Traces) != 16 {
		t.Fatalf("summary %+v (%v):\n%s", sum, err, serial)
	}
	seeds := 0
	for _, shard := range []string{"0/2", "1/2"} {
		out, _, _ := cli("run", "-target", "river", "-seeds", "1:20", "-shard", shard, "-parallel", "2", "-json")
		var part struct{ Seeds int }
		if err := json.Unmarshal([]byte(out), &part); err != nil {
			t.Fatalf("-shard %s: %v\n%s", shard, err, out)
		}
		seeds += part.Seeds
	}
	if seeds != 20 {
		t.Errorf("the shards 0/2 and 1/2 of 1:20 ran %d seeds, want 20", seeds)
	}
}
