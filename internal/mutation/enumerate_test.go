package mutation

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"
)

// parsePackage builds a Package from one file's source, with its types.
func parsePackage(t *testing.T, src string) (*Package, *types.Info) {
	t.Helper()
	p := &Package{ImportPath: "example.com/p", Dir: "/nonexistent/p", Fset: token.NewFileSet(), Names: []string{"p.go"}}
	f, err := parser.ParseFile(p.Fset, p.Path(0), src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	p.Files, p.Src = []*ast.File{f}, [][]byte{[]byte(src)}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{}).Check(p.ImportPath, p.Fset, p.Files, info); err != nil {
		t.Fatal(err)
	}
	return p, info
}

// mutatedLine applies m and returns the changed line of the body (the
// test sources keep one statement per line).
func mutatedLine(p *Package, m *Mutant) string {
	lines := strings.Split(string(m.Apply(p.Src[0])), "\n")
	return strings.TrimSpace(lines[m.Line-1])
}

func TestOperators(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string // operator: mutated line, in enumeration order
	}{
		{"return a < b", []string{"conditionals-boundary: return a <= b", "conditionals-negation: return a >= b"}},
		{"return a <= b", []string{"conditionals-boundary: return a < b", "conditionals-negation: return a > b"}},
		{"return a > b", []string{"conditionals-boundary: return a >= b", "conditionals-negation: return a <= b"}},
		{"return a >= b", []string{"conditionals-boundary: return a > b", "conditionals-negation: return a < b"}},
		{"return a == b", []string{"conditionals-negation: return a != b"}},
		{"return a != b", []string{"conditionals-negation: return a == b"}},
		{"return ok && a == b", []string{"logical: return ok || a == b", "conditionals-negation: return ok && a != b"}},
		{"return ok || ok", []string{"logical: return ok && ok"}},
		{"return true", []string{"boolean-literal: return false"}},
		{"ok = false", []string{"statement-removal: _ = false", "boolean-literal: ok = true"}},
		{"var v = true; _ = v", []string{"boolean-literal: var v = false; _ = v"}},
		{"n = a + b", []string{"statement-removal: _ = a + b", "arithmetic: n = a - b"}},
		{"n = a - b", []string{"statement-removal: _ = a - b", "arithmetic: n = a + b"}},
		{"n = a * b", []string{"statement-removal: _ = a * b", "arithmetic: n = a / b"}},
		{"n = a / b", []string{"statement-removal: _ = a / b", "arithmetic: n = a * b"}},
		{"n = a % b", []string{"statement-removal: _ = a % b", "arithmetic: n = a * b"}},
		{"n += a", []string{"statement-removal: _ = a", "arithmetic: n -= a"}},
		{"n -= a", []string{"statement-removal: _ = a", "arithmetic: n += a"}},
		{"n *= a", []string{"statement-removal: _ = a", "arithmetic: n /= a"}},
		{"n /= a", []string{"statement-removal: _ = a", "arithmetic: n *= a"}},
		{"n %= a", []string{"statement-removal: _ = a", "arithmetic: n *= a"}},
		{"n++", []string{"statement-removal: ", "increment-decrement: n--"}},
		{"n--", []string{"statement-removal: ", "increment-decrement: n++"}},
		{"n, m = f()", []string{"statement-removal: _, _ = f()"}},
		{"f()", []string{"statement-removal: "}},
		{"x := a; _ = x", nil},                                      // a definition stays, and so does a discard
		{`s = s + "x"`, []string{`statement-removal: _ = s + "x"`}}, // no - on strings
		{`s += "x"`, []string{`statement-removal: _ = "x"`}},
		{`panic("at " + string(rune(a+1)))`, []string{"statement-removal: "}}, // nothing in a panic's text
		{"for i := 0; i < a; i++ {\n}", []string{
			"conditionals-boundary: for i := 0; i <= a; i++ {", "conditionals-negation: for i := 0; i >= a; i++ {",
			"increment-decrement: for i := 0; i < a; i-- {", // the post statement is not removed
		}},
	} {
		src := "package p\n\nvar ok bool\nvar n, m, a, b int\nvar s string\n\nfunc f() (int, int) { return 0, 0 }\n\nfunc g() bool {\n\t" +
			tc.body + "\n\treturn ok\n}\n"
		p, info := parsePackage(t, src)
		var got []string
		for _, m := range Enumerate(p, info) {
			if m.Func == "g" && m.Line == 10 {
				got = append(got, m.Op.String()+": "+mutatedLine(p, m))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.body, got, tc.want)
		}
	}
}

// TestIDsStableUnderLineShifts: code added above a function moves its
// mutants' lines, not their IDs.
func TestIDsStableUnderLineShifts(t *testing.T) {
	body := "func (c *C) Less(a, b int) bool {\n\tif a < b {\n\t\tc.n++\n\t}\n\treturn a < b && c.n > 0\n}\n"
	before := "package p\n\ntype C struct{ n int }\n\n" + body
	after := "package p\n\n// A comment.\n\ntype C struct{ n int }\n\nfunc other(x int) int { return x + 1 }\n\n" + body
	p1, i1 := parsePackage(t, before)
	p2, i2 := parsePackage(t, after)
	ids := func(p *Package, info *types.Info) (out []string, lines []int) {
		for _, m := range Enumerate(p, info) {
			if m.Func == "(*C).Less" {
				out, lines = append(out, m.ID()), append(lines, m.Line)
			}
		}
		return out, lines
	}
	a, la := ids(p1, i1)
	b, lb := ids(p2, i2)
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("IDs changed under a line shift:\n%q\n%q", a, b)
	}
	if la[0] == lb[0] {
		t.Fatalf("lines did not move (%d): the test is not shifting anything", la[0])
	}
	// The two "a < b" relations are told apart by their occurrence index.
	want := `p.go (*C).Less conditionals-boundary "a < b" -> "a <= b" #1`
	if !slices.Contains(a, want) {
		t.Errorf("no mutant %s among %q", want, a)
	}
}

func TestEnumerationDeterministic(t *testing.T) {
	src := "package p\n\nfunc f(a, b int) (int, bool) {\n\tx := a*b + a%b - 1\n\treturn x, a < b || b >= a && true\n}\n"
	p, info := parsePackage(t, src)
	first := Enumerate(p, info)
	for range 5 {
		again := Enumerate(p, info)
		if len(again) != len(first) {
			t.Fatal("different mutant counts")
		}
		for i := range again {
			if again[i].ID() != first[i].ID() || again[i].Where() != first[i].Where() {
				t.Fatalf("mutant %d: %s then %s", i, first[i].ID(), again[i].ID())
			}
		}
	}
	for i := 1; i < len(first); i++ {
		if first[i].start < first[i-1].start {
			t.Errorf("mutant %d (%s) is listed before an earlier one", i, first[i].Where())
		}
	}
}

// A removed statement that spans lines leaves the rest of the file on the
// same lines.
func TestRemovalKeepsLines(t *testing.T) {
	src := "package p\n\nfunc h(a, b int) {}\n\nfunc f() {\n\th(1,\n\t\t2)\n\th(3, 4)\n}\n"
	p, info := parsePackage(t, src)
	for _, m := range Enumerate(p, info) {
		if m.Op != StmtRemoval || m.Line != 6 {
			continue
		}
		out := string(m.Apply(p.Src[0]))
		if strings.Count(out, "\n") != strings.Count(src, "\n") || strings.Split(out, "\n")[7] != "\th(3, 4)" {
			t.Errorf("removal moved lines:\n%s", out)
		}
		return
	}
	t.Fatal("no removal of the two-line call")
}

func TestSnippetsAbbreviated(t *testing.T) {
	long := strings.Repeat("alpha + ", 20) + "omega"
	src := "package p\n\nvar alpha, omega int\n\nfunc f() int {\n\treturn " + long + " - 1\n}\n"
	p, info := parsePackage(t, src)
	ms := Enumerate(p, info)
	last := ms[len(ms)-1] // the outermost "-", listed after every "+" before it
	if last.Original != "…+ alpha + alpha + alpha + omega - 1" || last.Mutated != "…+ alpha + alpha + alpha + omega + 1" {
		t.Errorf("snippets %q -> %q", last.Original, last.Mutated)
	}
	if got := abbrev(strings.Repeat("x", 100)); !strings.HasPrefix(got, strings.Repeat("x", 64)+"…") || len(got) != 64+len("…")+8 {
		t.Errorf("abbrev: %q", got)
	}
}

// The SQL of a package-level constant is mutated too: named after the
// constant, built alone (not switchable) and run whatever the coverage
// (no statement holds it); a constant holding no SQL gives nothing.
func TestPackageConstantSQL(t *testing.T) {
	src := "package p\n\nconst where = \" WHERE id = $1 AND fence = $2\"\n\nconst name = \"a = b\" + \"!\"\n\nconst n = 3\n"
	p, info := parsePackage(t, src)
	var got []string
	for _, m := range Enumerate(p, info) {
		if !m.outside || m.site == nil || m.site.switchable || m.Op != SQLLiteral {
			t.Errorf("%s: outside=%v op=%v site=%+v", m.ID(), m.outside, m.Op, m.site)
		}
		got = append(got, m.Func+": "+mutatedLine(p, m))
	}
	want := []string{
		`const where: const where = " WHERE id <> $1 AND fence = $2"`,
		`const where: const where = " WHERE id = $1 OR fence = $2"`,
		`const where: const where = " WHERE id = $1 AND fence <> $2"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
