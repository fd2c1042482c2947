package mutation

import (
	"slices"
	"strings"
	"testing"
)

const sampleProfile = `mode: set
example.com/p/a.go:3.20,5.10 2 1
example.com/p/a.go:5.10,7.3 1 0
example.com/p/a.go:8.2,8.14 1 1
example.com/p/a.go:5.10,7.3 1 1
example.com/p/b.go:1.1,2.2 4 0
example.com/q/c.go:1.1,2.2 9 1
`

func TestParseProfile(t *testing.T) {
	p, err := ParseProfile(strings.NewReader(sampleProfile))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Files("example.com/p"); strings.Join(got, ",") != "a.go,b.go" {
		t.Errorf("files %q", got)
	}
	// The repeated block 5.10,7.3 is merged: it ran in one of the runs.
	if bs := p.Blocks("example.com/p", "a.go"); len(bs) != 3 || bs[1].Count != 1 {
		t.Errorf("a.go blocks %+v", bs)
	}
	if reached, total := p.Statements("example.com/p"); reached != 4 || total != 8 {
		t.Errorf("statements %d of %d, want 4 of 8", reached, total)
	}
	for _, tc := range []struct {
		file           string
		line, col      int
		reached, found bool
	}{
		{"a.go", 4, 1, true, true},
		{"a.go", 5, 10, true, true}, // a block's start belongs to it, its end to the next
		{"a.go", 7, 3, false, false},
		{"b.go", 1, 5, false, true},
		{"b.go", 9, 1, false, false},
	} {
		reached, found := p.Reached("example.com/p", tc.file, tc.line, tc.col)
		if reached != tc.reached || found != tc.found {
			t.Errorf("%s:%d:%d: reached %v found %v, want %v %v", tc.file, tc.line, tc.col, reached, found, tc.reached, tc.found)
		}
	}
}

func TestReachedInnermostBlock(t *testing.T) {
	p, err := ParseProfile(strings.NewReader("mode: set\nm/x.go:1.1,10.2 5 1\nm/x.go:3.5,4.9 1 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if reached, _ := p.Reached("m", "x.go", 3, 6); reached {
		t.Error("3:6 lies in the unreached inner block")
	}
	if reached, _ := p.Reached("m", "x.go", 5, 1); !reached {
		t.Error("5:1 lies in the reached outer block only")
	}
}

func TestParseProfileErrors(t *testing.T) {
	for _, bad := range []string{"", "x.go:1.1,2.2 1 1\n", "mode: set\nx.go:1.1,2.2 1\n", "mode: set\nx.go:1.1-2.2 1 1\n", "mode: set\nx.go:1.a,2.2 1 1\n"} {
		if _, err := ParseProfile(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestBlockText(t *testing.T) {
	lines, first, last := blockLines(stripBraces("{\n\t\tx := 1\n\n\t\treturn x\n\t}"), 10)
	if strings.Join(lines, "|") != "x := 1|return x" || first != 11 || last != 13 {
		t.Errorf("got %q %d-%d", lines, first, last)
	}
	lines, first, last = blockLines(stripBraces("{ return s.state }"), 4)
	if strings.Join(lines, "|") != "return s.state" || first != 4 || last != 4 {
		t.Errorf("got %q %d-%d", lines, first, last)
	}
	lines, _, _ = blockLines(stripBraces("n := 0\n\tif n > 0"), 1)
	if strings.Join(lines, "|") != "n := 0|if n > 0" {
		t.Errorf("got %q", lines)
	}
}

func TestWriteCoverage(t *testing.T) {
	src := "package p\n\nfunc f(a int) int {\n\tif a > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n\nfunc (s *S) g() { s.n++ }\n\ntype S struct{ n int }\n"
	p, _ := parsePackage(t, src)
	prof, err := ParseProfile(strings.NewReader("mode: set\n" +
		"example.com/p/p.go:3.21,4.11 1 1\n" +
		"example.com/p/p.go:4.11,6.3 1 0\n" +
		"example.com/p/p.go:7.2,7.10 1 1\n" +
		"example.com/p/p.go:10.17,10.26 1 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteCoverage(&b, []*Package{p}, &CoverRun{Profile: prof}, "`sweep`", 95)
	want := "example.com/p                             50.0%  2 of 4 statements reached\n" +
		"coverage    50.0% (2 of 4 statements) reached by `sweep`\n" +
		"target      >= 95%: NOT met\n" +
		"\nunreached   2 blocks, 2 statements, by function:\n" +
		"\np.go  f\n" +
		"  /nonexistent/p/p.go:5-5  return 1\n" +
		"\np.go  (*S).g\n" +
		"  /nonexistent/p/p.go:10-10  s.n++\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestSplitRuns: a lone ";" separates the runs whose coverage adds up.
func TestSplitRuns(t *testing.T) {
	got := SplitRuns([]string{"run", "-seeds", "1:2", ";", "mutants", "-seeds", "1:3"})
	want := [][]string{{"run", "-seeds", "1:2"}, {"mutants", "-seeds", "1:3"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("SplitRuns = %q, want %q", got, want)
	}
	if got := SplitRuns([]string{"run"}); len(got) != 1 || !slices.Equal(got[0], []string{"run"}) {
		t.Errorf("one run: %q", got)
	}
}
