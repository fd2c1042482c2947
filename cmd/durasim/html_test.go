package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReplayHTML: replay -html writes the page of a failing seed, its
// shrunk counterexample first, with the duplicate effect named on top.
func TestReplayHTML(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.html")
	_, stderr, code := cli("replay", "-seed", "5", "-variant", "no-idempotency", "-html", file)
	if code != 1 || !strings.Contains(stderr, "wrote "+file) {
		t.Fatalf("status %d, stderr %q; want 1 and the file written", code, stderr)
	}
	page := read(t, file)
	for _, want := range []string{"Content-Security-Policy", "shrunk counterexample", "whole run", "exactly-once-effect", "committed twice", "durasim replay"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Index(page, "shrunk counterexample") > strings.Index(page, "whole run") {
		t.Error("the shrunk counterexample is not the first tab")
	}
}

// TestRunHTML: run writes the page of its one seed when it fails, and
// -html-dir one page per failing seed of a sweep.
func TestRunHTML(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.html")
	if _, stderr, code := cli("run", "-seed", "5", "-variant", "no-idempotency", "-html", file); code != 1 || !strings.Contains(read(t, file), "exactly-once-effect") {
		t.Fatalf("run -seed 5 -html: status %d, stderr %q", code, stderr)
	}
	passing := filepath.Join(dir, "pass.html")
	if _, stderr, code := cli("run", "-seed", "1", "-html", passing); code != 0 || !strings.Contains(stderr, "not written") {
		t.Errorf("a passing seed: status %d, stderr %q; want 0 and a note", code, stderr)
	}
	if _, err := os.Stat(passing); err == nil {
		t.Error("a page was written for a passing seed")
	}
	pages := filepath.Join(dir, "pages", "sub")
	out, stderr, code := cli("run", "-seeds", "1:10", "-variant", "no-idempotency", "-html-dir", pages)
	if code != 1 {
		t.Fatalf("run -seeds 1:10 -html-dir: status %d\n%s%s", code, out, stderr)
	}
	entries, err := os.ReadDir(pages)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"seed-1.html", "seed-1.repro", "seed-10.html", "seed-10.repro", "seed-3.html", "seed-3.repro", "seed-5.html", "seed-5.repro", "seed-7.html", "seed-7.repro"}; !slices.Equal(names, want) {
		t.Errorf("pages %v, want %v (the failing seeds' pages and repro files)", names, want)
	}
	// Each repro file beside a page replays its seed: it fails the same way.
	if _, stderr, code := cli("replay", "-repro", filepath.Join(pages, "seed-3.repro")); code != 1 || !strings.Contains(stderr, "violation: ") {
		t.Errorf("replay -repro seed-3.repro: status %d, stderr %q; want 1 and the violation", code, stderr)
	}
}

// TestHTMLBadPaths: a path that cannot be written is a one-line error,
// status 2, before anything runs.
func TestHTMLBadPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", "-seed", "1", "-html", filepath.Join(dir, "missing", "t.html")},
		{"replay", "-seed", "1", "-html", dir},
		{"replay", "-seed", "1", "-html", filepath.Join(file, "t.html")},
		{"run", "-seed", "1", "-html", filepath.Join(dir, "missing", "t.html")},
		{"run", "-seeds", "1:3", "-html", filepath.Join(dir, "t.html")},
		{"run", "-seed", "1", "-html", filepath.Join(dir, "t.html"), "-html-dir", dir},
		{"run", "-seeds", "1:3", "-html-dir", filepath.Join(file, "sub")},
	} {
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
