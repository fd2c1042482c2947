package main

import (
	"encoding/json"
	"math"
	"testing"
)

// near: the figure is seeds to catch times seconds per seed (rounding
// aside).
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestMutantsJSONCarriesTimeToCatch(t *testing.T) {
	out, stderr, code := cli("mutants", "-seeds", "1:50", "-trials", "3", "-variants", "ack-before-commit,ignore-budget", "-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep mutantsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Variants {
		f := r.TimeToCatch
		if len(f.Trials) != 3 || f.SecondsPerSeed <= 0 {
			t.Fatalf("%s: %+v", r.Name, f)
		}
		for i, s := range r.Seeds.Trials {
			if !near(f.Trials[i], s*f.SecondsPerSeed) {
				t.Errorf("%s trial %d: %v s, want %v seeds × %v s", r.Name, i, f.Trials[i], s, f.SecondsPerSeed)
			}
		}
		if !near(f.MedianSeconds, r.Seeds.Median*f.SecondsPerSeed) {
			t.Errorf("%s: median %v s, want the median seeds %v × %v s", r.Name, f.MedianSeconds, r.Seeds.Median, f.SecondsPerSeed)
		}
	}
}

// mutants -target -json: every design's verdict, a caught design's time
// to catch, and the queue's own findings with theirs.
func TestTargetMutantsJSONCarriesTimeToCatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every handler design against River")
	}
	out, stderr, code := cli("mutants", "-target", "river", "-seeds", "1:20", "-trials", "2", "-json")
	if code > 1 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep targetMutantsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Target != "river" || rep.Trials != 2 || rep.Seeds != "1:20" || len(rep.Designs) < 7 {
		t.Fatalf("report %+v", rep)
	}
	caught := 0
	for _, d := range rep.Designs {
		if len(d.Seeds.Trials) != 2 || d.Verdict == "" {
			t.Errorf("%s: %+v", d.Design, d)
		}
		if d.CaughtTrials > 0 {
			caught++
			f := d.TimeToCatch
			if f == nil || len(f.Trials) != 2 || !near(f.Trials[0], d.Seeds.Trials[0]*f.SecondsPerSeed) {
				t.Errorf("%s: caught, time to catch %+v", d.Design, f)
			}
		}
		for _, q := range d.QueueFindings {
			if q.FoundTrials < 1 || len(q.SeedsTo.Trials) != 2 || q.TimeToCatch.SecondsPerSeed <= 0 {
				t.Errorf("%s: finding %+v", d.Design, q)
			}
		}
	}
	if caught == 0 {
		t.Error("no design caught in 1:20 and 21:40: key-without-tenant is caught at seed 1")
	}
	args := []string{"mutants", "-target", "river", "-trials", "0"}
	o, e, c := cli(args...)
	oneLineError(t, args, o, e, c)
}
