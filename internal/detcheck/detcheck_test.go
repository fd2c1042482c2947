package detcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// coreDirs are the packages ARCHITECTURE.md's determinism rule 3 covers;
// timeline is not core but renders byte-stable pages from a history, and
// mirror replays a seed onto the SQL store in the scheduler's order (a
// map walked unsorted there would reorder its comparisons): they keep the
// same rules, as do target (the seam to a queue durasim does not own, and
// River's adapter below it) and targetsim (the actors that drive a target
// on the scheduler), and examples (a user's own queue, driven on the
// scheduler as River is). The drivers below are not scanned: database/sql and
// River run goroutines of their own, and their callers wait for every call.
var coreDirs = []string{"../../boundary", "../../scheduler", "../../model", "../../faults", "../../invariants", "../../sim", "../../workflow", "../../timeline", "../../mirror", "../../target", "../../targetsim", "../../examples"}

func TestCoreIsDeterministic(t *testing.T) {
	scanned := 0
	for _, dir := range coreDirs {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue // not written yet
		}
		scanned++
		findings, err := Scan(dir)
		if err != nil {
			t.Errorf("Scan(%s): %v", dir, err)
			continue
		}
		for _, f := range findings {
			t.Errorf("%s", f)
		}
	}
	if scanned == 0 {
		t.Fatal("none of the core packages was found: wrong working directory?")
	}
}

// expectation is one finding a fixture announces with a "// want rule"
// comment at the end of its line.
type expectation struct {
	file string
	line int
	rule Rule
}

// wants reads the "// want rule..." comments of the non-test Go files
// directly in dir and below (except skipped directories, which Scan must
// not enter, so their files carry no wants).
func wants(t *testing.T, dir string) []expectation {
	t.Helper()
	var out []expectation
	pkgs, err := packageDirs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, path := range p.files {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, group := range f.Comments {
				for _, c := range group.List {
					rest, ok := strings.CutPrefix(c.Text, "// want ")
					if !ok {
						continue
					}
					for _, rule := range strings.Fields(rest) {
						out = append(out, expectation{path, fset.Position(c.Pos()).Line, Rule(rule)})
					}
				}
			}
		}
	}
	return out
}

func got(findings []Finding) []expectation {
	out := make([]expectation, len(findings))
	for i, f := range findings {
		out[i] = expectation{f.File, f.Line, f.Rule}
	}
	return out
}

func sortExpectations(es []expectation) {
	slices.SortFunc(es, func(a, b expectation) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		if a.line != b.line {
			return a.line - b.line
		}
		return strings.Compare(string(a.rule), string(b.rule))
	})
}

// Each fixture under testdata announces its findings with "// want"
// comments; Scan must report exactly those: every rule caught, nothing
// else flagged (the clean fixture announces none).
func TestFixtures(t *testing.T) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[Rule]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join("testdata", e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			findings, err := Scan(dir)
			if err != nil {
				t.Fatal(err)
			}
			want, have := wants(t, dir), got(findings)
			sortExpectations(want)
			if !slices.Equal(want, have) {
				t.Errorf("findings differ from the fixture's // want comments")
				for _, w := range want {
					if !slices.Contains(have, w) {
						t.Errorf("missed   %s:%d: %s", w.file, w.line, w.rule)
					}
				}
				for _, f := range findings {
					if !slices.Contains(want, expectation{f.File, f.Line, f.Rule}) {
						t.Errorf("spurious %s", f)
					}
				}
			}
			for _, f := range findings {
				covered[f.Rule] = true
			}
		})
	}
	for _, r := range Rules() {
		if !covered[r] {
			t.Errorf("no fixture proves rule %s is caught", r)
		}
	}
}

func TestCleanFixtureIsClean(t *testing.T) {
	findings, err := Scan("testdata/clean")
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 0 {
		t.Fatalf("clean code flagged: %v", findings)
	}
}

// Without type information (a dependency that does not compile) the map
// rule still catches what syntax alone shows: literals, make(map...), and
// names this file declares with a map type.
func TestMapRangeSyntacticFallback(t *testing.T) {
	path := "testdata/maprange/maprange.go"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	empty := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	var lines []string
	for _, fd := range (&walker{fset: fset, info: empty, file: f}).walk() {
		if fd.Rule != RuleMapRange {
			t.Errorf("unexpected %s", fd)
		}
		lines = append(lines, fd.Text)
	}
	// url.Values and table() need types: the syntax cannot see them. The
	// fallback matches names, not scopes, so Generic's m is flagged because
	// Uses declares an m as a map: it errs on the side of flagging.
	want := []string{
		"range m",                     // m := map[string]int{...}
		"range s",                     // s set, a map type declared here
		"range h.byID",                // a field declared map[int]int
		"range map[int]bool{1: true}", // a literal
		"range make(map[int]int)",     // make
		"range maps.Keys(m)",          // iterators of package maps
		"range maps.All(m)",
		"range m", // the marker separated by a blank line
		"range m", // Generic's m
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("fallback found\n%q\nwant\n%q", lines, want)
	}
}

func TestSortedMarkerIsExact(t *testing.T) {
	src := `package p

func f(m map[int]int) {
	//det:sorted because the keys are summed
	for range m {
	}
	// det:sorted (a space: not the marker)
	for range m {
	}
	/* //det:sorted */
	for range m {
	}
}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	findings, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, f := range findings {
		lines = append(lines, f.Line)
	}
	if !slices.Equal(lines, []int{8, 11}) {
		t.Fatalf("map ranges flagged on lines %v, want [8 11]", lines)
	}
}

func TestScanErrors(t *testing.T) {
	if _, err := Scan("testdata/does-not-exist"); err == nil {
		t.Error("Scan of a missing directory succeeded")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte("package p\nfunc {"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(dir); err == nil {
		t.Error("Scan of a file that does not parse succeeded")
	}
}

func TestFindingString(t *testing.T) {
	f := Finding{File: "model/queue.go", Line: 12, Rule: RuleMapRange, Text: "range s.byKey"}
	if got, want := f.String(), "model/queue.go:12: map-range: range s.byKey"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}

func TestImportName(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"time"`, "time"},
		{`"math/rand/v2"`, "rand"},
		{`r "math/rand/v2"`, "r"},
		{`"crypto/rand"`, "rand"},
		{`"github.com/benbjohnson/clock"`, "clock"},
		{`"example.com/mod/v3"`, "mod"},
		{`"gopkg.in/yaml.v3"`, "yaml.v3"},
	}
	for _, tt := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\nimport "+tt.src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		if got := importName(f.Imports[0]); got != tt.want {
			t.Errorf("importName(%s) = %q, want %q", tt.src, got, tt.want)
		}
	}
}
