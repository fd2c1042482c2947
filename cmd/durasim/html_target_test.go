package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/internal/browser"
)

// TestTargetReplayHTML: replay -target river -html writes the timeline of
// a passing seed (seed 7), and of a failing one (the effect written
// outside the transaction, seed 17) with its shrunk counterexample first
// and its reproduce command.
func TestTargetReplayHTML(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.html")
	if _, stderr, code := cli("replay", "-target", "river", "-seed", "7", "-html", file); code != 0 || !strings.Contains(stderr, "wrote "+file) {
		t.Fatalf("replay -seed 7 -html: status %d, stderr %q; want 0 and the file written", code, stderr)
	}
	page := read(t, file)
	for _, want := range []string{"Content-Security-Policy", "No invariant violated", "replay -target river -seed 7", `"clock":"whole"`} {
		if !strings.Contains(page, want) {
			t.Errorf("seed 7's page lacks %q", want)
		}
	}
	// The page as the command wrote it, in headless Chromium: it starts its
	// timeline, with no console error, exception or request off the file.
	p := browser.Start(t).Open(t, file)
	if !browser.Eval[bool](t, p, `window.durasimTimelines.ready === true && window.durasimTimelines.length === 1`) {
		t.Error("seed 7's page did not start its timeline")
	}
	p.CheckClean(t)
	file = filepath.Join(dir, "f.html")
	if _, stderr, code := cli("replay", "-target", "river", "-seed", "17", "-design", "effect-outside-tx", "-html", file); code != 1 || !strings.Contains(stderr, "wrote "+file) {
		t.Fatalf("replay -seed 17 -html: status %d, stderr %q; want 1 and the file written", code, stderr)
	}
	page = read(t, file)
	for _, want := range []string{"shrunk counterexample", "target-effect-once", "has 2 effects", "-design effect-outside-tx -workers 1 -swarm=false -plan"} {
		if !strings.Contains(page, want) {
			t.Errorf("seed 17's page lacks %q", want)
		}
	}
	if strings.Index(page, "shrunk counterexample") > strings.Index(page, "whole run") {
		t.Error("the shrunk counterexample is not the first tab")
	}
}

// TestTargetRunHTMLDir: run -target -html-dir writes one page per failing
// seed of the sweep, those and no other; -html of a passing seed says it
// wrote nothing.
func TestTargetRunHTMLDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pages", "sub")
	out, stderr, code := cli("run", "-target", "river", "-design", "effect-outside-tx", "-seeds", "1:25", "-json", "-html-dir", dir)
	if code != 1 {
		t.Fatalf("status %d, want 1\n%s%s", code, out, stderr)
	}
	var sum struct {
		Failing []uint64 `json:"failing_seeds"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || len(sum.Failing) == 0 {
		t.Fatalf("summary %q: %v", out, err)
	}
	var want, got []string
	for _, s := range sum.Failing {
		want = append(want, fmt.Sprintf("seed-%d.html", s))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("pages %v, want %v (the failing seeds')", got, want)
	}
	if page := read(t, filepath.Join(dir, want[0])); !strings.Contains(page, "target-effect-once") || !strings.Contains(page, "shrunk counterexample") {
		t.Errorf("%s does not show the shrunk violation", want[0])
	}
	passing := filepath.Join(t.TempDir(), "pass.html")
	if _, stderr, code := cli("run", "-target", "river", "-seed", "7", "-html", passing); code != 0 || !strings.Contains(stderr, "not written") {
		t.Errorf("a passing seed: status %d, stderr %q; want 0 and a note", code, stderr)
	}
	if _, err := os.Stat(passing); err == nil {
		t.Error("a page was written for a passing seed")
	}
}

// TestTargetHTMLBadPaths: a target run's output path that cannot be
// written is a one-line error, status 2, before the run (nothing on
// stdout: no trace, no summary).
func TestTargetHTMLBadPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", "-target", "river", "-seed", "7", "-html", filepath.Join(dir, "missing", "t.html")},
		{"replay", "-target", "river", "-seed", "7", "-html", dir},
		{"replay", "-target", "river", "-seed", "7", "-html", filepath.Join(file, "t.html")},
		{"run", "-target", "river", "-seed", "7", "-html", filepath.Join(dir, "missing", "t.html")},
		{"run", "-target", "river", "-seeds", "1:3", "-html", filepath.Join(dir, "t.html")},
		{"run", "-target", "river", "-seed", "7", "-html", filepath.Join(dir, "t.html"), "-html-dir", dir},
		{"run", "-target", "river", "-seeds", "1:3", "-html-dir", filepath.Join(file, "sub")},
		{"shrink", "-target", "river", "-seed", "7", "-html", filepath.Join(dir, "t.html")},
	} {
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
	}
}
