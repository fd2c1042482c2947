package reports

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current reports")

const goldenDir = "testdata/golden"

var (
	genOnce    sync.Once
	genFiles   []File
	genReports []Report // every report, in index order
	genBuilt   []*Built // the scenarios among them
	genRiver   *River   // the River report
	genSide    *Side    // the side-by-side report
	genErr     error
)

// generated is every report and chart, built once per test binary.
func generated(t *testing.T) []File {
	t.Helper()
	genOnce.Do(func() {
		genFiles, genReports, genErr = Generate(context.Background(), scenarios.All(), true, Langs(), true)
		for _, r := range genReports {
			switch r := r.(type) {
			case *Built:
				genBuilt = append(genBuilt, r)
			case *River:
				genRiver = r
			case *Side:
				genSide = r
			}
		}
	})
	if genErr != nil {
		t.Fatal(genErr)
	}
	return genFiles
}

// golden reports whether a generated file has a golden copy: every
// Markdown report and chart, and the site's index; the site's pages (5 MB
// of inline SVG and timeline data) are held to their Markdown, to byte
// stability and to a browser instead (site_test.go).
func golden(path string) bool {
	return !strings.HasPrefix(path, "site/") || path == "site/index.html"
}

// TestGolden regenerates every report and compares it byte for byte with
// testdata/golden (go test ./reports -update rewrites it).
func TestGolden(t *testing.T) {
	var files []File
	for _, f := range generated(t) {
		if golden(f.Path) {
			files = append(files, f)
		}
	}
	if *update {
		if err := os.RemoveAll(goldenDir); err != nil {
			t.Fatal(err)
		}
		if err := Write(goldenDir, files); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.Path] = true
		got, err := os.ReadFile(filepath.Join(goldenDir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("%s: %v (run go test ./reports -update)", f.Path, err)
			continue
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s differs from the golden copy at line %d (run go test ./reports -update and review the diff)", f.Path, firstDiffLine(got, f.Data))
		}
	}
	err := filepath.WalkDir(goldenDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(goldenDir, path)
		if !want[filepath.ToSlash(rel)] {
			t.Errorf("%s is in the golden copy but no longer generated (run go test ./reports -update)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// TestSVGWellFormed decodes every chart as XML to its end.
func TestSVGWellFormed(t *testing.T) {
	n := 0
	for _, f := range generated(t) {
		if !strings.HasSuffix(f.Path, ".svg") {
			continue
		}
		n++
		d := xml.NewDecoder(bytes.NewReader(f.Data))
		root := ""
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: not well-formed XML: %v", f.Path, err)
			}
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		if root != "svg" {
			t.Errorf("%s: root element %q, want svg", f.Path, root)
		}
	}
	if n == 0 {
		t.Fatal("no chart generated")
	}
}

// TestEveryReport checks the list: at least 17 scenario reports
// per language (and the River report), each linking at least one chart that exists, and the
// sections every report has.
func TestEveryReport(t *testing.T) {
	files := generated(t)
	paths := map[string]bool{}
	for _, f := range files {
		paths[f.Path] = true
	}
	for _, l := range Langs() {
		reports := 0
		for _, f := range files {
			if !strings.HasPrefix(f.Path, string(l)+"/") || !strings.HasSuffix(f.Path, ".md") {
				continue
			}
			reports++
			text := string(f.Data)
			charts := 0
			for _, line := range strings.Split(text, "\n") {
				if _, rest, ok := strings.Cut(line, "](charts/"); ok && strings.HasPrefix(line, "![") {
					charts++
					name := strings.TrimSuffix(rest, ")")
					if !paths[string(l)+"/charts/"+name] {
						t.Errorf("%s links charts/%s, which was not generated", f.Path, name)
					}
				}
			}
			if charts == 0 {
				t.Errorf("%s has no chart", f.Path)
			}
			command, wants := "go run ./cmd/durasim run -scenario ", []string{"```mermaid\nsequenceDiagram"}
			switch f.Path {
			case string(l) + "/" + RiverName + ".md":
				command = "go run ./cmd/durasim mutants -target river "
			case string(l) + "/" + SideName + ".md":
				// Three libraries side by side: each finding's trace is
				// its replay's (and the River report's diagram).
				command, wants = "go run ./cmd/durasim mutants -target goqite ", nil
			}
			for _, want := range append(wants, command) {
				if !strings.Contains(text, want) {
					t.Errorf("%s lacks %q", f.Path, want)
				}
			}
		}
		if reports < 18 {
			t.Errorf("%s: %d reports, want at least 17 scenarios and the River report", l, reports)
		}
	}
}

// TestNoLeaks checks that reports hold no absolute path, no document text
// (the workload's CPF numbers and e-mail addresses) and no wall-clock date.
func TestNoLeaks(t *testing.T) {
	wd, _ := os.Getwd()
	cpf := regexp.MustCompile(`\d{3}\.\d{3}\.\d{3}-\d{2}`)
	for _, f := range generated(t) {
		text := string(f.Data)
		for _, bad := range []string{wd, "@example.com", "Fatura "} {
			if bad != "" && strings.Contains(text, bad) {
				t.Errorf("%s contains %q", f.Path, bad)
			}
		}
		if m := cpf.FindString(text); m != "" {
			t.Errorf("%s contains a CPF number", f.Path)
		}
	}
}

// TestFilesSorted keeps the file list in a fixed order: index first, then
// language by language, scenario by scenario, then the site.
func TestFilesSorted(t *testing.T) {
	files := generated(t)
	if files[0].Path != "index.md" {
		t.Fatalf("first file %s, want index.md", files[0].Path)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Path] {
			t.Fatalf("%s generated twice", f.Path)
		}
		seen[f.Path] = true
	}
	langs := []string{}
	for _, f := range files[1:] {
		if strings.HasPrefix(f.Path, "site/") {
			break
		}
		l, _, _ := strings.Cut(f.Path, "/")
		if len(langs) == 0 || langs[len(langs)-1] != l {
			langs = append(langs, l)
		}
	}
	if !sort.SliceIsSorted(langs, func(i, j int) bool { return langs[i] > langs[j] }) || len(langs) != 2 {
		t.Fatalf("languages in order %v, want pt-BR then en", langs)
	}
	site := slices.IndexFunc(files, func(f File) bool { return strings.HasPrefix(f.Path, "site/") })
	if site < 0 || files[site].Path != "site/index.html" {
		t.Fatalf("the site does not follow the reports, index first")
	}
	for _, f := range files[site:] {
		if !strings.HasPrefix(f.Path, "site/") {
			t.Fatalf("%s comes after the site", f.Path)
		}
	}
}

func TestFormatting(t *testing.T) {
	ms := model.Millisecond
	for _, c := range []struct {
		l    Lang
		t    model.Time
		want string
	}{
		{En, 0, "0 ms"}, {En, 250 * ms, "250 ms"}, {PtBR, 1500 * ms, "1,5 s"}, {En, 1500 * ms, "1.5 s"},
		{En, 30_000 * ms, "30 s"}, {En, 15 * 60_000 * ms, "15 min"}, {PtBR, 90_000 * ms, "90 s"},
		{En, 2500 * ms / 1000, "2.5 ms"}, {En, -250 * ms, "-250 ms"},
	} {
		if got := c.l.dur(c.t); got != c.want {
			t.Errorf("%s dur(%d) = %q, want %q", c.l, c.t, got, c.want)
		}
	}
	if got := PtBR.num(1234567); got != "1.234.567" {
		t.Errorf("pt-BR num = %q", got)
	}
	if got := En.num(-1234); got != "-1,234" {
		t.Errorf("en num = %q", got)
	}
	if seq, ok := traceSeq("t=12.5ms #7 lease w1 j3"); !ok || seq != 7 {
		t.Errorf("traceSeq = %d, %v", seq, ok)
	}
	if got := mermaidText("a; b #3"); got != "a, b n°3" {
		t.Errorf("mermaidText = %q", got)
	}
	for _, c := range []struct {
		t      ticker
		lo, hi float64
		want   string
	}{
		{ticker{l: PtBR}, 0, 1.6, "0 0,5 1 1,5"},
		{ticker{l: En}, 0, 1.6, "0 0.5 1 1.5"},
		{ticker{l: En, integer: true}, 0, 1.08, "0 1"},
		{ticker{l: En}, 0, 265, "0 50 100 150 200 250"},
		{ticker{l: PtBR, integer: true}, 0, 3.2, "0 1 2 3"},
	} {
		var labels []string
		for _, tk := range c.t.Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("%s ticks(%g, %g) = %q, want %q", c.t.l, c.lo, c.hi, got, c.want)
		}
	}
	if got := En.list([]string{"a", "b", "c"}); got != "a, b and c" {
		t.Errorf("list = %q", got)
	}
	if got := PtBR.count(1, "falha", "falhas", "fault", "faults") + ", " + PtBR.count(2, "falha", "falhas", "fault", "faults"); got != "1 falha, 2 falhas" {
		t.Errorf("count = %q", got)
	}
	if _, err := ParseLang("fr"); err == nil {
		t.Error("ParseLang(fr) accepted")
	}
}
