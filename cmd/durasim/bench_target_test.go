package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// bench -target river measures the sweep and its floor: the floor's
// replay of the recorded calls answered as the sweep's did (checked
// before the timed rounds), and the report carries both rates and their
// ratio.
func TestBenchTargetReportsTheFloor(t *testing.T) {
	out, stderr, code := cli("bench", "-target", "river", "-seeds", "4", "-rounds", "1", "-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep targetBenchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.ReplayAgrees || rep.SeedsPerSec <= 0 || rep.FloorPerSec <= 0 || rep.Ratio <= 0 || rep.CallsPerSeed < 20 ||
		len(rep.SweepRounds) != 1 || len(rep.FloorRounds) != 1 || !strings.HasPrefix(rep.Target, "river ") {
		t.Errorf("report %+v", rep)
	}
	text, _, code := cli("bench", "-target", "river", "-seeds", "2", "-rounds", "1")
	for _, want := range []string{"\nsweep ", " seeds/s\n", "\nfloor ", "calls per seed, replayed by a bare loop", "\nratio "} {
		if code != 0 || !strings.Contains(text, want) {
			t.Errorf("exit %d, no %q in:\n%s", code, want, text)
		}
	}
}

func TestBenchTargetRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-target", "nope"}, {"bench", "-target", "river", "-seeds", "0"}, {"bench", "-target", "river", "-rounds", "0"},
		{"bench", "-target", "river", "-design", "nope"},
	} {
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
	}
}
