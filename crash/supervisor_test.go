package crash

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
)

// Children killed at their points: every point of every role gets a
// kill, each counted kill is a kill line at the child's point in its
// history, inside points die at their statement boundaries, each killed
// child is restarted, the drain generation runs and is stopped.
func TestKilledAtPoints(t *testing.T) {
	cfg := fakeConfig(t, 24)
	f := &fakeSystem{}
	res, err := runFake(t, cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total < cfg.Kills || res.Total > cfg.Kills+4 || res.Restarts != res.Total || res.HardStops != 0 || !res.Drained {
		t.Errorf("%d kills (want %d, + at most the 4 points handed out first), %d restarts, %d hard stops, drained %v",
			res.Total, cfg.Kills, res.Restarts, res.HardStops, res.Drained)
	}
	lines := map[string]int{}
	marks, err := ReadHistories[Mark](cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range marks {
		if m.Op == OpKill {
			lines[m.Point]++
			if m.Point == boundary.InsideCommitAfterStmt.String() && (m.Stmt < 1 || m.Stmt > 2) {
				t.Errorf("kill inside the commit after statement %d", m.Stmt)
			}
		}
	}
	n := 0
	for _, p := range append(fakeWorker.List(), fakeRelay.List()...) {
		if res.Kills[p] == 0 || lines[p.String()] != res.Kills[p] {
			t.Errorf("%s: %d kills, %d kill lines", p, res.Kills[p], lines[p.String()])
		}
		n += res.Kills[p]
	}
	stmts := 0
	for _, k := range res.KillStmts[boundary.InsideCommitAfterStmt] {
		stmts += k
	}
	if n != res.Total || stmts != res.Kills[boundary.InsideCommitAfterStmt] {
		t.Errorf("kills by point add up to %d of %d; inside the commit %d by statement of %d", n, res.Total, stmts,
			res.Kills[boundary.InsideCommitAfterStmt])
	}
	drain, killing := 0, 0
	for _, c := range f.ended {
		switch {
		case c.Killing:
			killing++
		case c.Kill.At != boundary.None:
			t.Errorf("%s of the drain had kill point %s", c.Name, c.Kill)
		default:
			drain++
		}
	}
	// Each kill ends a child; so does the stop of each killing slot's
	// last child, unless its kill came after the goals were met.
	if drain != 3 || killing < res.Total || killing > res.Total+3 {
		t.Errorf("%d children of the drain ended (want 3), %d of the kill phase for %d kills", drain, killing, res.Total)
	}
	// Incarnations count across generations: the drain's children follow
	// the killing generation's last.
	names := childNames(f.ended)
	if slices.Contains(names[len(names)-3:], "w0") || !slices.Contains(names, "w0") {
		t.Errorf("children %v: the drain restarted w0's numbering", names)
	}
}

func childNames(cs []Child) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// A child that ignores SIGTERM is SIGKILLed StopWait after the stop: a
// hard stop, counted, with a kill line at hard_stop in its history.
func TestHardStop(t *testing.T) {
	cfg := fakeConfig(t, 0) // no kill phase: the drain's children only
	cfg.StopWait = 300 * time.Millisecond
	res, err := runFake(t, cfg, &fakeSystem{mode: func(Child) string { return "deaf" }})
	if err != nil {
		t.Fatal(err)
	}
	if res.HardStops != 3 || res.Total != 0 {
		t.Fatalf("%d hard stops (want 3), %d kills", res.HardStops, res.Total)
	}
	for _, name := range []string{"w0", "w1", "relay0"} {
		ms, err := ReadHistory[Mark](filepath.Join(cfg.Dir, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if last := ms[len(ms)-1]; last.Op != OpKill || last.Point != HardStop || last.Proc != name || last.T1 == 0 {
			t.Errorf("%s's last line %+v, want its hard stop", name, last)
		}
	}
}

// A child that dies otherwise than at its point ends the run: one line,
// its name, its exit and its log's tail.
func TestDiedOutsideItsPoint(t *testing.T) {
	cfg := fakeConfig(t, 10)
	_, err := runFake(t, cfg, &fakeSystem{mode: func(c Child) string {
		if c.Name == "relay0" {
			return "die"
		}
		return "work"
	}})
	oneLine(t, err, "relay0 died outside its kill point (exit status 1)", "fake: boom", cfg.Dir)
}

// A point that cannot be reached ends the run within -reach, with a
// verdict that names the point and says why: the store's commit runs
// fewer statements than the point's declared boundaries.
func TestUnreachablePoint(t *testing.T) {
	cfg := fakeConfig(t, 10)
	cfg.Reach = 2 * time.Second
	cfg.Roles = cfg.Roles[:1]
	cfg.Roles[0].Points = boundary.NewSet("fake worker", boundary.InsideCommitAfterStmt)
	start := time.Now()
	_, err := runFake(t, cfg, &fakeSystem{stmts: 1}) // no boundary; the point declares two
	t.Logf("ended after %v: %v", time.Since(start).Round(time.Millisecond), err)
	oneLine(t, err, "kill point inside_commit_after_stmt (crossing ", "was not reached by w",
		"within -reach 2s awake", "passed at most 0 statement boundaries, fewer than the 2 the point declares")
}

// A point no child crosses at all: the verdict says so.
func TestNeverCrossedPoint(t *testing.T) {
	cfg := fakeConfig(t, 10)
	cfg.Reach = 2 * time.Second
	cfg.Roles = cfg.Roles[1:]
	cfg.Roles[0].Points = boundary.NewSet("fake relay", boundary.RelayAfterClaim, boundary.RelayAfterPublishBeforeMark)
	_, err := runFake(t, cfg, &fakeSystem{}) // the fake relay crosses relay_after_claim only
	oneLine(t, err, "kill point relay_after_publish_before_mark (crossing 1) was not reached by relay0", "the child never crossed it")
}

// A freeze stops the child (not a line of it while frozen) until the
// workload's thaw condition holds, and says why; without a condition it
// thaws at Max; the generation's stop thaws what is left. A frozen
// child's time does not count towards -reach.
func TestFreezeThaw(t *testing.T) {
	cfg := fakeConfig(t, 10)
	cfg.Roles = cfg.Roles[:1]
	cfg.Roles[0].Steady = 1 // w0 is frozen; w1 takes the kills
	cfg.PauseEvery = 30 * time.Millisecond
	var mu sync.Mutex
	type freeze struct {
		why      string
		from, to int64
	}
	var got []*freeze
	polls := 0
	f := &fakeSystem{}
	f.goal = func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 3 && got[2].from != 0 }
	f.freeze = func(running []Child) *Freeze {
		mu.Lock()
		defer mu.Unlock()
		i := slices.IndexFunc(running, func(c Child) bool { return c.Name == "w0" && !c.Frozen })
		if len(got) == 3 || i < 0 || !ranARound(running[i]) { // not before it runs: a stop would find it not yet listening
			return nil
		}
		fz := &freeze{}
		got = append(got, fz)
		fr := &Freeze{Child: "w0", Max: 150 * time.Millisecond,
			Frozen:  func(context.Context) { mu.Lock(); fz.from = time.Now().UnixNano(); mu.Unlock() },
			Thawing: func(why string) { mu.Lock(); fz.why, fz.to = why, time.Now().UnixNano(); mu.Unlock() }}
		switch len(got) {
		case 1: // thawed by its condition, at its third poll
			fr.Max, fr.Poll = time.Minute, 20*time.Millisecond
			fr.Thaw = func(context.Context) (string, bool) {
				mu.Lock()
				defer mu.Unlock()
				polls++
				return "third_poll", polls == 3
			}
		case 3: // thawed by the kill phase's end
			fr.Max = time.Hour
		}
		return fr
	}
	res, err := runFake(t, cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Freezes != 3 || len(got) != 3 {
		t.Fatalf("%d SIGSTOPs, %d freezes asked; want 3", res.Freezes, len(got))
	}
	lines, err := ReadHistory[fakeLine](filepath.Join(cfg.Dir, "w0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"third_poll", ThawMax, ThawStopping} {
		fz := got[i]
		if fz.why != want || fz.from == 0 || fz.to <= fz.from {
			t.Errorf("freeze %d: thawed %q over [%d, %d], want %q", i+1, fz.why, fz.from, fz.to, want)
		}
		after := 0
		for _, l := range lines {
			if i < 2 && l.T0 > fz.from && l.T1 < fz.to { // the stop's SIGCONT comes before the third's Thawing
				t.Errorf("freeze %d: w0 wrote %+v while frozen", i+1, l)
			}
			after += b2i(l.T0 > fz.to)
		}
		if i < 2 && after == 0 {
			t.Errorf("freeze %d: w0 wrote nothing after its thaw", i+1)
		}
	}
	if polls != 3 {
		t.Errorf("the thaw condition was asked %d times, want 3", polls)
	}
}

func ranARound(c Child) bool {
	ls, _ := ReadHistory[fakeLine](c.History)
	return slices.ContainsFunc(ls, func(l fakeLine) bool { return l.Op == "round" })
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A child's awake time leaves out its freezes.
func TestAwakeLeavesOutFreezes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := &child{started: t0, frozenFor: 3 * time.Second, frozenAt: t0.Add(5 * time.Second)}
	if got := c.awake(t0.Add(7 * time.Second)); got != 2*time.Second {
		t.Errorf("awake %v, want 2s (7s run, 3s frozen before, 2s frozen now)", got)
	}
	c.frozenAt = time.Time{}
	if got := c.awake(t0.Add(7 * time.Second)); got != 4*time.Second {
		t.Errorf("awake %v, want 4s", got)
	}
}

// The run's directory: a given one is made, and refused once it holds
// histories; "" is a temporary one, removed by Finish after a pass only.
func TestRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	if got, err := RunDir(dir, "fake"); err != nil || got != dir {
		t.Fatalf("RunDir(new) = %q, %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, "w0.jsonl"), []byte("{}\n"), 0o644)
	_, err := RunDir(dir, "fake")
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "w0.jsonl") {
		t.Errorf("RunDir(used) = %v, want a UsageError naming w0.jsonl", err)
	}
	for _, passed := range []bool{false, true} {
		s, err := New(Config{Settings: Settings{Timeout: time.Second, Drain: time.Second, Reach: time.Second}, Name: "fake"})
		if err != nil {
			t.Fatal(err)
		}
		kept := s.Finish(passed)
		_, statErr := os.Stat(s.Dir())
		if passed != (kept == "") || passed != os.IsNotExist(statErr) {
			t.Errorf("passed %v: Finish kept %q, stat %v", passed, kept, statErr)
		}
		os.RemoveAll(s.Dir())
	}
}
