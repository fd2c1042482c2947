package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/durasim/durasim/sim"
)

// sweepCLI runs the command line and returns stdout, stderr and the status.
func sweepCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// -parallel changes how fast a sweep runs, never what it prints: results
// are folded in seed order, so the summary (and the shrunk counterexample
// of a failing sweep) is the same bytes.
func TestParallelSweepPrintsTheSameBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"correct", []string{"run", "-seeds", "1:40"}, 0},
		{"failing variant", []string{"run", "-seeds", "1:12", "-variant", "no-idempotency"}, 1},
		{"json lines", []string{"run", "-seeds", "1:12", "-variant", "no-idempotency", "-json"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr, code := sweepCLI(t, append(tc.args, "-parallel", "1")...)
			if code != tc.code {
				t.Fatalf("-parallel 1: status %d, want %d\n%s%s", code, tc.code, want, wantErr)
			}
			for _, n := range []string{"2", "16"} {
				got, gotErr, code := sweepCLI(t, append(tc.args, "-parallel", n)...)
				if code != tc.code || got != want || gotErr != wantErr {
					t.Errorf("-parallel %s: status %d, output differs from -parallel 1:\n--- 1\n%s%s--- %s\n%s%s", n, code, want, wantErr, n, got, gotErr)
				}
			}
		})
	}
}

func TestRunOrderedStopsAtTheFirstError(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Workers = 0 // every seed fails validation
	n := 0
	err := runOrdered(context.Background(), cfg, []uint64{1, 2, 3, 4, 5, 6, 7, 8}, 3, func(*sim.Result) { n++ })
	if err == nil || n != 0 {
		t.Fatalf("runOrdered on an invalid config: err %v after %d results, want an error and none", err, n)
	}
}

// decodeJSONLines parses JSON lines into objects.
func decodeJSONLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		lines = append(lines, m)
	}
	return lines
}

func TestRunJSONLines(t *testing.T) {
	out, stderr, code := sweepCLI(t, "run", "-seeds", "1:12", "-variant", "no-idempotency", "-json", "-parallel", "2")
	if code != 1 || stderr != "" {
		t.Fatalf("status %d (want 1), stderr %q", code, stderr)
	}
	lines := decodeJSONLines(t, out)
	sum := lines[len(lines)-1]
	if sum["type"] != "summary" || sum["seeds"] != 12.0 || sum["design"] != "no-idempotency" {
		t.Fatalf("last line is not the summary of 12 seeds: %v", sum)
	}
	failed := sum["failed_seeds"].([]any)
	if len(failed) != len(lines)-1 || sum["failed"] != float64(len(failed)) || sum["shrunk"] == nil {
		t.Fatalf("summary lists %d failed seeds (failed=%v, shrunk=%v), but %d violation lines", len(failed), sum["failed"], sum["shrunk"], len(lines)-1)
	}
	for i, l := range lines[:len(lines)-1] {
		if l["type"] != "violation" || l["seed"] != failed[i] {
			t.Errorf("line %d: %v, want the violation line of seed %v", i+1, l, failed[i])
		}
		for _, key := range []string{"violations", "invariants", "plan", "reproduce", "replay"} {
			if _, ok := l[key]; !ok {
				t.Errorf("line %d has no %q: %v", i+1, key, l)
			}
		}
		if !strings.Contains(l["reproduce"].(string), "-variant no-idempotency") {
			t.Errorf("line %d: reproduce command %q does not name the variant", i+1, l["reproduce"])
		}
	}
}

// Shards partition the range: their summaries add up to the whole sweep's.
func TestShardsPartitionTheRange(t *testing.T) {
	out, _, code := sweepCLI(t, "run", "-seeds", "5:34", "-json")
	if code != 0 {
		t.Fatalf("whole range: status %d\n%s", code, out)
	}
	whole := decodeJSONLines(t, out)[0]
	var seeds, events float64
	for _, shard := range []string{"0/3", "1/3", "2/3"} {
		out, _, code := sweepCLI(t, "run", "-seeds", "5:34", "-json", "-shard", shard)
		if code != 0 {
			t.Fatalf("shard %s: status %d\n%s", shard, code, out)
		}
		sum := decodeJSONLines(t, out)[0]
		if sum["seeds"] != 10.0 || sum["shard"] != shard {
			t.Errorf("shard %s ran %v seeds (shard %v), want 10", shard, sum["seeds"], sum["shard"])
		}
		seeds += sum["seeds"].(float64)
		events += sum["events"].(float64)
	}
	if seeds != whole["seeds"] || events != whole["events"] {
		t.Errorf("shards add up to %v seeds and %v events, the whole range has %v and %v", seeds, events, whole["seeds"], whole["events"])
	}
}

func TestSweepFlagsRejectBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"-shard", "3/3"}, {"-shard", "1"}, {"-shard", "a/2"}, {"-shard", "-1/2"},
		{"-shard", "0/0"}, {"-shard", "1/2/3"}, {"-parallel", "0"}, {"-parallel", "-2"},
	} {
		out, stderr, code := sweepCLI(t, append([]string{"run", "-seeds", "1:3"}, args...)...)
		if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "durasim: invalid -") {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want 2 and one line", args, code, out, stderr)
		}
	}
}

// A bar only on a terminal: a buffer gets nothing, however long the sweep.
func TestNoProgressBarOffATerminal(t *testing.T) {
	if p := newProgress(&bytes.Buffer{}, 1_000_000); p.bar != nil {
		t.Fatal("progress bar drawn on a buffer")
	}
}
