package mutation

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/types"
	"strings"
	"testing"
)

// TestSchemaRendering pins the rewrite of each kind of site, nested ones
// included, and checks that the result compiles with the added file.
func TestSchemaRendering(t *testing.T) {
	src := "package p\n\nvar n int\nvar ok bool\n\nfunc f(a, b int) bool {\n" +
		"\tn += a * b\n" +
		"\tif a < b && ok {\n\t\tn++\n\t}\n" +
		"\tfor i := 0; i < a; i++ {\n\t}\n" +
		"\treturn true\n}\n"
	want := "package p\n\nvar n int\nvar ok bool\n\nfunc f(a, b int) bool {\n" +
		"\tif A == 1 { _ = a * b } else if A == 2 { n -= a * b } else { n += mutationSchemaMulQuo(3, a, b) }\n" +
		"\tif (A == 6 && (a < b || ok) || A != 6 && ((A == 4 && (a <= b) || A == 5 && (a >= b) || A != 4 && A != 5 && (a < b)) && ok)) {\n" +
		"\t\tif A == 7 {  } else if A == 8 { n-- } else { n++ }\n\t}\n" +
		"\tfor i := 0; (A == 9 && (i <= a) || A == 10 && (i >= a) || A != 9 && A != 10 && (i < a)); i++ {\n\t}\n" +
		"\treturn (A != 11)\n}\n"
	p, info := parsePackage(t, src)
	ms := Enumerate(p, info)
	s := newSchema(p, ms)
	if got := strings.ReplaceAll(string(s.files[0]), schemaActive, "A"); got != want {
		t.Errorf("schema:\n%s\nwant:\n%s", got, want)
	}
	// i++ in the for header cannot be wrapped in an if: built alone.
	for _, m := range ms {
		if _, in := s.ids[m]; in == (m.Original == "i++") {
			t.Errorf("%s: in the schema %v", m.ID(), in)
		}
	}
	fset := p.Fset
	var files []*ast.File
	for name, text := range map[string][]byte{"p.go": s.files[0], "zz.go": s.helper} {
		f, err := parser.ParseFile(fset, name, text, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, files, nil); err != nil {
		t.Errorf("the schema does not type-check: %v", err)
	}
}

// A constant expression stays out of the schema (it may sit where only a
// constant can), and so does a file left with no switchable mutant.
func TestSchemaLeavesConstantsOut(t *testing.T) {
	p, info := parsePackage(t, "package p\n\nfunc f() [2 * 3]int {\n\treturn [2 * 3]int{}\n}\n")
	ms := Enumerate(p, info)
	if len(ms) != 1 { // the result type is not in the body
		t.Fatalf("%d mutants, want the constant product in the body", len(ms))
	}
	if s := newSchema(p, ms); len(s.ids) != 0 || len(s.files) != 0 {
		t.Errorf("schema holds %d mutants in %d files", len(s.ids), len(s.files))
	}
}

// A string literal of SQL becomes a chain of mutationSchemaStr calls, one
// per mutant, that type-checks where the literal stood (a named string
// type included); one in a constant declaration is built alone.
func TestSchemaSQLLiteral(t *testing.T) {
	src := "package p\n\ntype query string\n\nfunc f(id int) (query, string) {\n" +
		"\tconst q = \"SELECT 1 WHERE a > 2\"\n" +
		"\treturn query(\"UPDATE t SET a = 1 WHERE id = $1 AND b <= 2\"), q\n}\n"
	p, info := parsePackage(t, src)
	ms := Enumerate(p, info)
	var in, alone []string
	s := newSchema(p, ms)
	for _, m := range ms {
		if m.Op != SQLLiteral {
			continue
		}
		if _, ok := s.ids[m]; ok {
			in = append(in, m.Mutated)
		} else {
			alone = append(alone, m.Mutated)
		}
	}
	if len(in) != 4 || len(alone) != 2 { // = <>, AND OR, <= < and <= >; the constant's > >= and > <=
		t.Fatalf("in the schema %q, built alone %q", in, alone)
	}
	got := strings.ReplaceAll(string(s.files[0]), schemaActive, "A")
	if !strings.Contains(got, `query(mutationSchemaStr(1, "UPDATE t SET a = 1 WHERE id <> $1 AND b <= 2", mutationSchemaStr(2, `) {
		t.Errorf("schema:\n%s", got)
	}
	fset := p.Fset
	var files []*ast.File
	for name, text := range map[string][]byte{"p.go": s.files[0], "zz.go": s.helper} {
		f, err := parser.ParseFile(fset, name, text, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, files, nil); err != nil {
		t.Errorf("the schema does not type-check: %v", err)
	}
}
