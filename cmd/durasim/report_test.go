package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/reports"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/targetsim"
)

// TestReportTwice writes every report twice, in parallel builds, into two
// directories: the trees must be byte-identical, the site included. With
// -short (make race) it leaves the River report out: its SQLite runs take
// about ten minutes under the race detector.
func TestReportTwice(t *testing.T) {
	if testing.Short() {
		defer func(f func(context.Context) (*reports.River, error)) { buildRiver = f }(buildRiver)
		buildRiver = nil
	}
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
	want := []string{"site/pt-BR/opening-incident.html", "site/en/opening-incident.html"}
	if !testing.Short() {
		want = append(want, "index.md", "site/index.html", "en/river-target.md", "site/en/river-target.html", "pt-BR/queues-side-by-side.md", "site/en/queues-side-by-side.html")
	}
	for _, name := range want {
		if _, ok := ta[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
	if testing.Short() {
		if _, ok := ta["index.md"]; ok {
			t.Error("an index without the River report")
		}
		return
	}
	checkRiverReplays(t, string(ta["en/river-target.md"]))
	checkSideReplays(t, string(ta["en/"+reports.SideName+".md"]))
}

// checkSideReplays runs the replay command of every finding of the
// side-by-side report: each exits 1 and prints the check the report's
// row names.
func checkSideReplays(t *testing.T, md string) {
	t.Helper()
	re := regexp.MustCompile("(?m)^\\| (River|goqite) \\| [^|]+ \\| `(target-[a-z-]+)` \\|.*`go run ./cmd/durasim (replay -target [^`]+)` \\|$")
	rows := re.FindAllStringSubmatch(md, -1)
	if len(rows) < 4 {
		t.Fatalf("%d findings with a replay in the side-by-side report, want 4", len(rows))
	}
	for _, m := range rows {
		var stdout, stderr bytes.Buffer
		code := run(repro.ShellWords(m[3]), &stdout, &stderr)
		if code != 1 || !strings.Contains(stdout.String()+stderr.String(), m[2]) {
			t.Errorf("%s (%s): status %d, want 1 and %s:\n%s", m[3], m[1], code, m[2], stderr.String())
		}
	}
}

// checkRiverReplays runs every replay command the River report prints and
// holds it to the report: a naive design's counterexample prints the
// violation the report lists for it (status 1), the documented pattern's
// plan under a correct design prints none (status 0).
func checkRiverReplays(t *testing.T, md string) {
	t.Helper()
	listed := map[string]string{} // design → its shrunk counterexample's violation
	for _, m := range regexp.MustCompile("(?m)^- `([a-z-]+)`: `(target-[^`]+)`$").FindAllStringSubmatch(md, -1) {
		listed[m[1]] = m[2]
	}
	seen, printed := map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile("go run ./cmd/durasim (replay -target river [^`\n#]*[^`\n# ])").FindAllStringSubmatch(md, -1) {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		args := repro.ShellWords(m[1])
		design := targetsim.DefaultConfig().Design.String()
		if i := slices.Index(args, "-design"); i >= 0 {
			design = args[i+1]
		}
		d, err := targetsim.LookupDesign(design)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		switch {
		case d.Correct() && code != 0:
			t.Errorf("%s: status %d for a correct design:\n%s", m[1], code, stderr.String())
		case !d.Correct() && (code != 1 || !strings.Contains(stderr.String(), "violation: "+listed[design]+"\n")):
			t.Errorf("%s: status %d, want 1 and the report's violation %q:\n%s", m[1], code, listed[design], stderr.String())
		case !d.Correct():
			printed[design] = true
		}
	}
	for design := range listed {
		if !printed[design] {
			t.Errorf("no replay of the report prints %s's violation", design)
		}
	}
	if len(listed) == 0 || len(seen) <= len(listed) {
		t.Errorf("%d replays for %d counterexamples: the report lost its commands", len(seen), len(listed))
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
	if code := run([]string{"report", "-scenario", "nope"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "river-target") {
		t.Errorf("-scenario nope: status %d, want 2 and the River report named: %q", code, stderr.String())
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
