package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/reports"
	"github.com/durasim/durasim/scenarios"
)

// TestReportTwice writes every report twice, in parallel builds, into two
// directories: the trees must be byte-identical, the site included.
func TestReportTwice(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		var out bytes.Buffer
		if code := run([]string{"report", "-out", dir}, &out, io.Discard); code != 0 {
			t.Fatalf("report -out %s: status %d\n%s", dir, code, out.String())
		}
	}
	ta, tb := tree(t, a), tree(t, b)
	if len(ta) == 0 || len(ta) != len(tb) {
		t.Fatalf("%d files then %d", len(ta), len(tb))
	}
	for path, data := range ta {
		if !bytes.Equal(data, tb[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
	for _, name := range []string{"index.md", "site/index.html", "site/pt-BR/opening-incident.html", "site/en/opening-incident.html"} {
		if _, ok := ta[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
}

func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestReportSelective(t *testing.T) {
	dir := t.TempDir()
	if code := run([]string{"report", "-out", dir, "-lang", "en", "-scenario", "dual-write"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("status %d", code)
	}
	got := tree(t, dir)
	_, md := got["en/dual-write.md"]
	_, page := got["site/en/dual-write.html"]
	if !md || !page || len(got) != 3 {
		t.Fatalf("files: %v, want en/dual-write.md, its chart and its page of the site (no index)", keys(got))
	}
	var stderr bytes.Buffer
	if code := run([]string{"report", "-lang", "fr"}, io.Discard, &stderr); code != 2 {
		t.Errorf("-lang fr: status %d, want 2", code)
	}
	if code := run([]string{"report", "-scenario", "nope"}, io.Discard, &stderr); code != 2 {
		t.Errorf("-scenario nope: status %d, want 2", code)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRunScenario(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"run", "-scenario", "opening-incident"}, &out, io.Discard); code != 0 {
		t.Fatalf("status %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "✓ violates exactly-once-effect") || !strings.Contains(out.String(), "PASS opening-incident") {
		t.Errorf("output:\n%s", out.String())
	}
	var stderr bytes.Buffer
	if code := run([]string{"run", "-scenario", "nope"}, io.Discard, &stderr); code != 2 {
		t.Errorf("unknown scenario: status %d, want 2", code)
	}
	if msg := stderr.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "sqlite-lab") {
		t.Errorf("unknown scenario: want one line listing the names, got %q", msg)
	}
	if code := run([]string{"run", "-scenario", "dual-write", "-seed", "3"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("-scenario with another flag: status %d, want 2", code)
	}
}

// TestArmCommandsReplay checks that the replay commands a report prints for
// each arm parse back, through the CLI's flags, to the arm's config.
func TestArmCommandsReplay(t *testing.T) {
	n := 0
	for _, s := range scenarios.All() {
		if !s.Simulated() {
			continue
		}
		for _, a := range s.Arms {
			cfg := s.ArmConfig(a)
			if !reports.Replayable(cfg) {
				continue
			}
			n++
			f := newSimFlags("replay", io.Discard)
			args := append([]string{"-seed", strconv.FormatUint(s.Seed, 10)}, cfg.Flags()...)
			if err := f.parse(args); err != nil {
				t.Fatalf("%s/%s: %v", s.Name, a.Name(), err)
			}
			got, err := f.config()
			if err != nil {
				t.Fatalf("%s/%s: %v", s.Name, a.Name(), err)
			}
			got.KeepTrace = cfg.KeepTrace
			if !reflect.DeepEqual(got, cfg) {
				t.Errorf("%s/%s: flags %q rebuild\n%+v\nwant\n%+v", s.Name, a.Name(), cfg.Flags(), got, cfg)
			}
		}
	}
	if n == 0 {
		t.Fatal("no replayable arm")
	}
}
