package mutation

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A schema holds many mutants in one build (mutant schemata, Untch et al.
// 1993): each switchable site is rewritten to run its original code unless
// the variable that $DURASIM_MUTANT sets at start-up names one of its
// mutants, and then to run exactly that mutant's code. Building the killer
// once instead of once per mutant is what makes a full run take minutes:
// a per-mutant build recompiles the package and everything above it (sim,
// invariants, faults) and links, several seconds each, while the sweep
// itself takes about one.
//
// The rewrite keeps evaluation what it was. With no mutant on, every site
// runs its original text: a comparison or logical expression becomes
//
//	(A == k1 && (mutated1) || A == k2 && (mutated2) || A != k1 && A != k2 && (original))
//
// where only the chosen operand is evaluated (|| and && short-circuit), an
// arithmetic expression x + y becomes a call addSub(k, x, y) that evaluates
// x and y once, in order, a statement becomes if A == k { mutated } else
// { original }, and a boolean literal becomes (A != k) or (A == k), which
// are untyped like the literal. With mutant k on, only k's site differs
// from the original, and it runs k's text exactly (the other sites inside
// it are printed unmutated in k's branch). Sites that cannot be switched
// this way — constant expressions, statements in an if, for or switch
// header — and files whose schema does not type-check are built one
// mutant at a time. Run checks that the schema with no mutant on prints
// the same summary, trace hash included, as the unmutated killer.

// schemaEnv is the environment variable that switches a mutant on.
const schemaEnv = "DURASIM_MUTANT"

// schemaActive is the package variable the rewritten sites compare with.
const schemaActive = "mutationSchemaActive"

// schema is the rewritten files of a package.
type schema struct {
	files  map[int][]byte    // file index → rewritten source
	ids    map[*Mutant]int32 // the number that switches each mutant on (from 1)
	helper []byte            // the added file: schemaActive and the arithmetic helpers
	path   string            // where the added file goes
}

// newSchema rewrites the files of pkg for the switchable mutants of ms.
func newSchema(pkg *Package, ms []*Mutant) *schema {
	s := &schema{files: map[int][]byte{}, ids: map[*Mutant]int32{}, path: filepath.Join(pkg.Dir, "zz_mutation_schema.go")}
	byFile := map[int][]*Mutant{}
	for _, m := range ms {
		if m.site != nil && m.site.switchable {
			s.ids[m] = int32(len(s.ids) + 1)
			i := pkg.index(m.File)
			byFile[i] = append(byFile[i], m)
		}
	}
	for i := range pkg.Names {
		if len(byFile[i]) > 0 {
			s.files[i] = render(pkg.Src[i], byFile[i], s.ids)
		}
	}
	s.helper = schemaHelper(pkg.Files[0].Name.Name)
	return s
}

// drop removes file i from the schema: its mutants are built one by one.
func (s *schema) drop(pkg *Package, i int) {
	delete(s.files, i)
	for m := range s.ids {
		if m.File == pkg.Names[i] {
			delete(s.ids, m)
		}
	}
}

// renderer rewrites one file.
type renderer struct {
	src    []byte
	sites  []*site // sorted by start, outer first
	bySite map[*site][]*Mutant
	ids    map[*Mutant]int32
}

func render(src []byte, ms []*Mutant, ids map[*Mutant]int32) []byte {
	r := &renderer{src: src, bySite: map[*site][]*Mutant{}, ids: ids}
	for _, m := range ms {
		if len(r.bySite[m.site]) == 0 {
			r.sites = append(r.sites, m.site)
		}
		r.bySite[m.site] = append(r.bySite[m.site], m)
	}
	slices.SortFunc(r.sites, func(a, b *site) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	return []byte(r.text(0, len(src), r.sites))
}

// text is src[lo:hi] with every site in it rewritten; sites holds the
// candidates, sorted (those outside [lo, hi) are passed over).
func (r *renderer) text(lo, hi int, sites []*site) string {
	var b strings.Builder
	pos := lo
	for i, st := range sites {
		if st.start < pos || st.end > hi {
			continue // inside a site already written, or outside the range
		}
		b.Write(r.src[pos:st.start])
		b.WriteString(r.site(st, sites[i+1:]))
		pos = st.end
	}
	b.Write(r.src[pos:hi])
	return b.String()
}

// alt is site st's text with mutant m's change and nothing else.
func (r *renderer) alt(st *site, m *Mutant) string {
	return string(r.src[st.start:m.start]) + m.repl + string(r.src[m.end:st.end])
}

func (r *renderer) site(st *site, inner []*site) string {
	ms := r.bySite[st]
	id := func(m *Mutant) string { return strconv.Itoa(int(r.ids[m])) }
	switch st.kind {
	case siteLit:
		if ms[0].repl == "false" { // the literal is true
			return "(" + schemaActive + " != " + id(ms[0]) + ")"
		}
		return "(" + schemaActive + " == " + id(ms[0]) + ")"
	case siteStr:
		// mutationSchemaStr(id1, alt1, mutationSchemaStr(id2, alt2, orig))
		text := string(r.src[st.start:st.end])
		for i := len(ms) - 1; i >= 0; i-- {
			text = fmt.Sprintf("mutationSchemaStr(%s, %s, %s)", id(ms[i]), r.alt(st, ms[i]), text)
		}
		return text
	case siteArith:
		x, y := r.text(st.x[0], st.x[1], inner), r.text(st.y[0], st.y[1], inner)
		return fmt.Sprintf("%s(%s, %s, %s)", arithHelper(r.src[ms[0].start:ms[0].end], ms[0].repl), id(ms[0]), x, y)
	case siteBool:
		var alts, none []string
		for _, m := range ms {
			alts = append(alts, fmt.Sprintf("%s == %s && (%s)", schemaActive, id(m), r.alt(st, m)))
			none = append(none, schemaActive+" != "+id(m))
		}
		def := strings.Join(none, " && ") + " && (" + r.text(st.start, st.end, inner) + ")"
		return "(" + strings.Join(append(alts, def), " || ") + ")"
	}
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "if %s == %s { %s } else ", schemaActive, id(m), r.alt(st, m))
	}
	fmt.Fprintf(&b, "{ %s }", r.text(st.start, st.end, inner))
	return b.String()
}

// arithHelpers name the helper for each arithmetic swap (see
// schemaHelper): the original operator, then the mutated one.
var arithHelpers = map[[2]string]string{
	{"+", "-"}: "mutationSchemaAddSub", {"-", "+"}: "mutationSchemaSubAdd",
	{"*", "/"}: "mutationSchemaMulQuo", {"/", "*"}: "mutationSchemaQuoMul", {"%", "*"}: "mutationSchemaRemMul",
}

func arithHelper(orig []byte, repl string) string { return arithHelpers[[2]string{string(orig), repl}] }

// schemaHelper is the file the schema adds to package name.
func schemaHelper(name string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `// Code generated by internal/mutation for a mutant schema. DO NOT EDIT.

package %s

import (
	"os"
	"strconv"
)

var %s = func() int32 {
	v, _ := strconv.ParseInt(os.Getenv(%q), 10, 32)
	return int32(v)
}()

type mutationSchemaInteger interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

type mutationSchemaNumber interface {
	mutationSchemaInteger | ~float32 | ~float64
}

// mutationSchemaStr is alt when mutant k is on, orig otherwise: a string
// literal of SQL with its mutants (untyped, so a named string type takes it).
func mutationSchemaStr(k int32, alt, orig string) string {
	if %s == k {
		return alt
	}
	return orig
}
`, name, schemaActive, schemaEnv, schemaActive)
	for _, h := range []struct{ name, typ, op, repl string }{
		{"mutationSchemaAddSub", "mutationSchemaNumber", "+", "-"},
		{"mutationSchemaSubAdd", "mutationSchemaNumber", "-", "+"},
		{"mutationSchemaMulQuo", "mutationSchemaNumber", "*", "/"},
		{"mutationSchemaQuoMul", "mutationSchemaNumber", "/", "*"},
		{"mutationSchemaRemMul", "mutationSchemaInteger", "%", "*"},
	} {
		fmt.Fprintf(&b, "\nfunc %s[T %s](k int32, x, y T) T {\n\tif %s == k {\n\t\treturn x %s y\n\t}\n\treturn x %s y\n}\n",
			h.name, h.typ, schemaActive, h.repl, h.op)
	}
	return []byte(b.String())
}
