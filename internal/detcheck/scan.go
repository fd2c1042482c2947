package detcheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Rule names a kind of nondeterminism.
type Rule string

// The rules Scan enforces (see the package documentation).
const (
	RuleWallClock  Rule = "wall-clock"
	RuleGoroutine  Rule = "goroutine"
	RuleChannel    Rule = "channel"
	RuleSelect     Rule = "select"
	RuleMathRand   Rule = "math-rand"
	RuleCryptoRand Rule = "crypto-rand"
	RuleGlobalRand Rule = "global-rand"
	RuleMapRange   Rule = "map-range"
)

// Rules lists every rule, in a stable order.
func Rules() []Rule {
	return []Rule{RuleWallClock, RuleGoroutine, RuleChannel, RuleSelect, RuleMathRand, RuleCryptoRand, RuleGlobalRand, RuleMapRange}
}

// SortedMarker is the comment that, on the line above a for statement,
// allows a range over a map.
const SortedMarker = "//det:sorted"

// Finding is one construct that breaks a determinism rule.
type Finding struct {
	File string // path as reached from the scanned directory
	Line int
	Rule Rule
	Text string // the offending source, abbreviated
}

func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Rule, f.Text) }

// wallClock are the functions of package time that read or wait on the
// real clock.
var wallClock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick"}

// allowedRandV2 are the only math/rand/v2 names the core may use.
var allowedRandV2 = []string{"PCG", "NewPCG"}

// mapIterators are the functions of package maps that iterate in map order.
var mapIterators = []string{"Keys", "Values", "All"}

// Scan reports every finding in the non-test Go files under dir, sorted by
// file and line. Directories named testdata or vendor, and those starting
// with "." or "_", are skipped below dir, as the go tool does.
func Scan(dir string) ([]Finding, error) {
	pkgs, err := packageDirs(dir)
	if err != nil {
		return nil, err
	}
	var out []Finding
	imp := newLoader()
	for _, p := range pkgs {
		found, err := scanPackage(imp, p.dir, p.files)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	slices.SortFunc(out, func(a, b Finding) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(string(a.Rule), string(b.Rule))
	})
	return out, nil
}

type pkgDir struct {
	dir   string
	files []string
}

// packageDirs lists the directories under root holding non-test Go files,
// in lexical order, each with its files.
func packageDirs(root string) ([]pkgDir, error) {
	var out []pkgDir
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		dir := filepath.Dir(path)
		if len(out) == 0 || out[len(out)-1].dir != dir {
			out = append(out, pkgDir{dir: dir})
		}
		out[len(out)-1].files = append(out[len(out)-1].files, path)
		return nil
	})
	return out, err
}

// scanPackage parses and type-checks one directory's files (grouped by
// package clause) and walks them.
func scanPackage(imp types.ImporterFrom, dir string, paths []string) ([]Finding, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	var out []Finding
	for _, group := range byPackage(files) {
		info := typeCheck(imp, fset, dir, group)
		for _, f := range group {
			out = append(out, (&walker{fset: fset, info: info, file: f}).walk()...)
		}
	}
	return out, nil
}

// byPackage groups files by package name, keeping the first-seen order.
func byPackage(files []*ast.File) [][]*ast.File {
	var names []string
	var groups [][]*ast.File
	for _, f := range files {
		i := slices.Index(names, f.Name.Name)
		if i < 0 {
			names = append(names, f.Name.Name)
			groups = append(groups, nil)
			i = len(groups) - 1
		}
		groups[i] = append(groups[i], f)
	}
	return groups
}

// typeCheck returns what go/types could learn. Type errors (a package
// another author is still writing, a missing dependency) are tolerated:
// the walker falls back to syntax where a type is unknown.
func typeCheck(imp types.ImporterFrom, fset *token.FileSet, dir string, files []*ast.File) *types.Info {
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Uses:  map[*ast.Ident]types.Object{},
		Defs:  map[*ast.Ident]types.Object{},
	}
	conf := types.Config{Importer: imp, Error: func(error) {}, FakeImportC: true}
	_, _ = conf.Check(dir, fset, files, info)
	return info
}

// loader resolves standard packages from the toolchain's export data and
// everything else (this module, its dependencies) from source.
type loader struct {
	src types.ImporterFrom
}

// std is shared: standard packages do not change under a test run, and
// loading them is the slow part.
var std struct {
	sync.Mutex
	imp types.Importer
}

func newLoader() *loader {
	src := importer.ForCompiler(token.NewFileSet(), "source", nil).(types.ImporterFrom)
	return &loader{src: src}
}

func (i *loader) Import(path string) (*types.Package, error) { return i.ImportFrom(path, "", 0) }

func (i *loader) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if first, _, _ := strings.Cut(path, "/"); !strings.Contains(first, ".") {
		std.Lock()
		if std.imp == nil {
			std.imp = importer.Default()
		}
		pkg, err := std.imp.Import(path)
		std.Unlock()
		if err == nil {
			return pkg, nil
		}
	}
	return i.src.ImportFrom(path, dir, mode)
}

// walker finds the rule violations in one file.
type walker struct {
	fset   *token.FileSet
	info   *types.Info
	file   *ast.File
	out    []Finding
	sorted []int    // lines holding the SortedMarker
	maps   []string // names declared as maps, for the syntactic fallback
}

func (w *walker) walk() []Finding {
	for _, group := range w.file.Comments {
		for _, c := range group.List {
			if c.Text == SortedMarker || strings.HasPrefix(c.Text, SortedMarker+" ") {
				w.sorted = append(w.sorted, w.fset.Position(c.Pos()).Line)
			}
		}
	}
	for _, spec := range w.file.Imports {
		switch importPath(spec) {
		case "math/rand":
			w.report(spec, RuleMathRand)
		case "crypto/rand":
			w.report(spec, RuleCryptoRand)
		}
	}
	ast.Inspect(w.file, w.visit)
	return w.out
}

func (w *walker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.GoStmt:
		w.report(n, RuleGoroutine)
	case *ast.SelectStmt:
		w.report(n, RuleSelect)
	case *ast.ChanType, *ast.SendStmt:
		w.report(n, RuleChannel)
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			w.report(n, RuleChannel)
		}
	case *ast.RangeStmt:
		w.rangeStmt(n)
	case *ast.SelectorExpr:
		if pkg, ok := w.packageOf(n.X); ok {
			w.packageMember(n, pkg, n.Sel.Name)
			return false
		}
	case *ast.Ident:
		// A dot-imported function: resolved through the type checker only.
		if obj := w.info.Uses[n]; obj != nil && obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope() && obj.Pkg() != w.pkg() {
			w.packageMember(n, obj.Pkg().Path(), n.Name)
		}
	}
	return true
}

// pkg is the package being checked, if the type checker got that far.
func (w *walker) pkg() *types.Package {
	if obj := w.info.Defs[w.file.Name]; obj != nil {
		return obj.Pkg()
	}
	return nil
}

// packageOf reports the import path x names when x is a package
// identifier: from the type checker, or failing that from the file's
// imports (x is then a name no declaration in the package shadows).
func (w *walker) packageOf(x ast.Expr) (string, bool) {
	id, ok := x.(*ast.Ident)
	if !ok {
		return "", false
	}
	if obj, ok := w.info.Uses[id]; ok {
		if pn, ok := obj.(*types.PkgName); ok {
			return pn.Imported().Path(), true
		}
		return "", false
	}
	for _, spec := range w.file.Imports {
		if importName(spec) == id.Name {
			return importPath(spec), true
		}
	}
	return "", false
}

// packageMember checks a use of name from the package at path.
func (w *walker) packageMember(n ast.Node, path, name string) {
	switch {
	case path == "time" && slices.Contains(wallClock, name):
		w.report(n, RuleWallClock)
	case path == "math/rand/v2" && !slices.Contains(allowedRandV2, name):
		w.report(n, RuleGlobalRand)
	}
}

func (w *walker) rangeStmt(n *ast.RangeStmt) {
	switch w.rangeKind(n.X) {
	case rangeChan:
		w.report(n.X, RuleChannel)
	case rangeMap:
		if !slices.Contains(w.sorted, w.fset.Position(n.For).Line-1) {
			w.reportText(n, RuleMapRange, "range "+w.text(n.X))
		}
	}
}

type rangeKind uint8

const (
	rangeOther rangeKind = iota
	rangeMap
	rangeChan
)

// rangeKind classifies a range expression by its type, or by its syntax
// when the type checker could not type it.
func (w *walker) rangeKind(x ast.Expr) rangeKind {
	if call, ok := ast.Unparen(x).(*ast.CallExpr); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := w.packageOf(sel.X); ok && pkg == "maps" && slices.Contains(mapIterators, sel.Sel.Name) {
				return rangeMap
			}
		}
	}
	if tv, ok := w.info.Types[x]; ok && tv.Type != nil && tv.Type != types.Typ[types.Invalid] {
		return kindOfType(tv.Type)
	}
	if w.syntacticMap(x) {
		return rangeMap
	}
	return rangeOther
}

func kindOfType(t types.Type) rangeKind {
	switch t.Underlying().(type) {
	case *types.Map:
		return rangeMap
	case *types.Chan:
		return rangeChan
	case *types.Pointer:
		return rangeOther
	case *types.Interface:
		// A type parameter: a map if every term of its constraint is one.
		tp, ok := t.(*types.TypeParam)
		if !ok {
			return rangeOther
		}
		return kindOfConstraint(tp.Constraint())
	}
	return rangeOther
}

func kindOfConstraint(c types.Type) rangeKind {
	iface, ok := c.Underlying().(*types.Interface)
	if !ok {
		return rangeOther
	}
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			if e.Len() > 0 {
				k := kindOfType(e.Term(0).Type())
				for j := 1; j < e.Len(); j++ {
					if kindOfType(e.Term(j).Type()) != k {
						return rangeOther
					}
				}
				return k
			}
		default:
			if k := kindOfType(e); k != rangeOther {
				return k
			}
		}
	}
	return rangeOther
}

// syntacticMap is the fallback when x has no type: a map literal,
// make(map...), or a name this file declares as a map (see mapNames).
func (w *walker) syntacticMap(x ast.Expr) bool {
	if w.mapExpr(x) {
		return true
	}
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return slices.Contains(w.mapNames(), x.Name)
	case *ast.SelectorExpr:
		return slices.Contains(w.mapNames(), x.Sel.Name)
	}
	return false
}

// mapNames are the variables, fields and parameters this file declares
// with a map type: a map type expression, a map type declared in the file,
// or (for :=) a map literal or make(map...). Computed once per file.
func (w *walker) mapNames() []string {
	if w.maps != nil {
		return w.maps
	}
	var types []string
	ast.Inspect(w.file, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if _, ok := ts.Type.(*ast.MapType); ok {
				types = append(types, ts.Name.Name)
			}
		}
		return true
	})
	isMap := func(typ ast.Expr) bool {
		if id, ok := typ.(*ast.Ident); ok {
			return slices.Contains(types, id.Name)
		}
		_, ok := typ.(*ast.MapType)
		return ok
	}
	names := []string{}
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			names = append(names, id.Name)
		}
	}
	ast.Inspect(w.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if isMap(n.Type) {
				add(n.Names...)
			}
		case *ast.Field:
			if isMap(n.Type) {
				add(n.Names...)
			}
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, rhs := range n.Rhs {
				if id, ok := n.Lhs[i].(*ast.Ident); ok && w.mapExpr(rhs) {
					add(id)
				}
			}
		}
		return true
	})
	w.maps = names
	return names
}

// mapExpr reports whether x is a map literal or make(map...).
func (w *walker) mapExpr(x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.CompositeLit:
		_, ok := x.Type.(*ast.MapType)
		return ok
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "make" && len(x.Args) > 0 {
			_, ok := x.Args[0].(*ast.MapType)
			return ok
		}
	}
	return false
}

func (w *walker) report(n ast.Node, rule Rule) { w.reportText(n, rule, w.text(n)) }

func (w *walker) reportText(n ast.Node, rule Rule, text string) {
	pos := w.fset.Position(n.Pos())
	w.out = append(w.out, Finding{File: pos.Filename, Line: pos.Line, Rule: rule, Text: text})
}

// text is n's source on one line, abbreviated.
func (w *walker) text(n ast.Node) string {
	if spec, ok := n.(*ast.ImportSpec); ok {
		return "import " + spec.Path.Value
	}
	if _, ok := n.(*ast.SelectStmt); ok {
		return "select"
	}
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, w.fset, n); err != nil {
		return fmt.Sprintf("%T", n)
	}
	s, _, cut := strings.Cut(buf.String(), "\n")
	if cut {
		s += " …"
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func importPath(spec *ast.ImportSpec) string {
	p, err := strconv.Unquote(spec.Path.Value)
	if err != nil {
		return ""
	}
	return p
}

// importName is the name a file uses for an import: its alias, or the last
// path element with a /vN suffix skipped (math/rand/v2 is rand).
func importName(spec *ast.ImportSpec) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	parts := strings.Split(importPath(spec), "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		return parts[len(parts)-2]
	}
	return last
}
