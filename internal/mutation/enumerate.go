package mutation

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Enumerate lists every mutant of pkg's function bodies, and the SQL in
// its package-level constants (Func names the constant): files in name
// order, each file's mutants in source order (and operator order at one
// place). The same source always gives the same list. With the package's
// types (info, from [Checker.Info]), string concatenation is left alone,
// since a minus between strings never compiles; with info nil such
// mutants are listed, and found not viable.
func Enumerate(pkg *Package, info *types.Info) []*Mutant {
	var out []*Mutant
	for i, f := range pkg.Files {
		e := &enumerator{fset: pkg.Fset, info: info, name: pkg.Names[i], src: pkg.Src[i]}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body != nil {
					e.fn = funcName(d)
					ast.PreorderStack(d.Body, nil, e.visit)
				}
			case *ast.GenDecl:
				if d.Tok == token.CONST {
					e.constSQL(d)
				}
			}
		}
		slices.SortStableFunc(e.out, func(a, b *Mutant) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.Op, b.Op))
		})
		out = append(out, e.out...)
	}
	numberOccurrences(out)
	return out
}

// numberOccurrences sets each mutant's Index: how many mutants before it
// share its file, function, operator and snippets.
func numberOccurrences(ms []*Mutant) {
	seen := map[string]int{}
	for _, m := range ms {
		key := m.ID() // Index is still 0: the key is the ID without it
		m.Index = seen[key]
		seen[key]++
	}
}

// enumerator collects the mutants of one file.
type enumerator struct {
	fset  *token.FileSet
	info  *types.Info
	name  string
	src   []byte
	fn    string
	out   []*Mutant
	sites map[[2]int]*site // by byte range
}

func (e *enumerator) visit(n ast.Node, stack []ast.Node) bool {
	switch x := n.(type) {
	case *ast.CallExpr:
		// The arguments of panic are the text of a crash that already
		// fails the run: nothing in them to mutate.
		if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "panic" {
			return false
		}
	case *ast.GenDecl:
		// A constant declared in a function is left alone, as those of
		// the package are: all but their SQL, whose mutants a schema
		// cannot switch (a constant cannot call), so each is built alone.
		if x.Tok == token.CONST {
			ast.Inspect(x, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					e.sqlLiteral(lit, false, stack)
				}
				return true
			})
			return false
		}
	case *ast.BinaryExpr:
		if !e.isString(x) {
			e.swapAll(x.OpPos, x.Op, x, stack)
		}
	case *ast.AssignStmt:
		if len(x.Lhs) != 1 || !e.isString(x.Lhs[0]) {
			e.swapAll(x.TokPos, x.Tok, x, stack)
		}
		e.boolLiterals(x.Rhs, x, stack)
		e.removeAssign(x, stack)
	case *ast.IncDecStmt:
		e.swapAll(x.TokPos, x.Tok, x, stack)
		e.remove(x, "", stack)
	case *ast.ExprStmt:
		if _, ok := x.X.(*ast.CallExpr); ok {
			e.remove(x, "", stack)
		}
	case *ast.ReturnStmt:
		e.boolLiterals(x.Results, x, stack)
	case *ast.ValueSpec:
		e.boolLiterals(x.Values, x, stack)
	case *ast.ImportSpec, *ast.Field:
		return false // an import path or a struct tag is no SQL
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			e.sqlLiteral(x, true, stack)
		}
	}
	return true
}

// sqlLiteral adds a mutant for each change sqlChanges finds in a string
// literal that holds SQL. Its site switches at run time unless the
// literal is part of a constant declaration: elsewhere a string literal
// may be any string expression.
func (e *enumerator) sqlLiteral(lit *ast.BasicLit, switchable bool, stack []ast.Node) {
	changes := sqlChanges(lit.Value)
	if len(changes) == 0 {
		return
	}
	st := e.site(siteStr, lit, switchable)
	for _, c := range changes {
		e.replace(SQLLiteral, lit.Pos()+token.Pos(c.off), c.old, c.new, lit, st, stack)
	}
}

// constSQL adds the SQL mutants of a package-level constant declaration,
// each built alone (a constant cannot call the schema's switch) and run
// whatever the coverage says (no statement holds it).
func (e *enumerator) constSQL(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		vs := spec.(*ast.ValueSpec)
		e.fn = "const " + vs.Names[0].Name
		n := len(e.out)
		for _, v := range vs.Values {
			ast.Inspect(v, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					e.sqlLiteral(lit, false, nil)
				}
				return true
			})
		}
		for _, m := range e.out[n:] {
			m.outside = true
		}
	}
}

// isString reports whether x is known to be a string.
func (e *enumerator) isString(x ast.Expr) bool {
	if e.info == nil || e.info.Types[x].Type == nil {
		return false
	}
	b, ok := e.info.Types[x].Type.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// swapAll adds a mutant for each operator that replaces tok at pos, with
// the snippet taken from node.
func (e *enumerator) swapAll(pos token.Pos, tok token.Token, node ast.Node, stack []ast.Node) {
	for op := range OperatorCount {
		if repl, ok := swaps[op][tok]; ok {
			e.replace(op, pos, tok.String(), repl.String(), node, e.siteOf(op, node, stack), stack)
		}
	}
}

// boolLiterals adds a flip for each true or false among exprs.
func (e *enumerator) boolLiterals(exprs []ast.Expr, node ast.Node, stack []ast.Node) {
	for _, x := range exprs {
		id, ok := x.(*ast.Ident)
		if !ok || id.Name != "true" && id.Name != "false" {
			continue
		}
		flip := map[string]string{"true": "false", "false": "true"}[id.Name]
		e.replace(BoolLiteral, id.Pos(), id.Name, flip, node, e.site(siteLit, id, true), stack)
	}
}

// replace adds the mutant that replaces old at pos by repl; its snippets
// are node's text around the change.
func (e *enumerator) replace(op Operator, pos token.Pos, old, repl string, node ast.Node, st *site, stack []ast.Node) {
	start := e.offset(pos)
	end := start + len(old)
	orig, mutated := around(string(e.src[e.offset(node.Pos()):start]), old, repl, string(e.src[end:e.offset(node.End())]))
	e.add(&Mutant{Op: op, Original: orig, Mutated: mutated, start: start, end: end, repl: repl, site: st}, pos, stack)
}

// removeAssign removes an assignment's stores and keeps its right-hand
// side evaluated (a call in it still runs, and every variable stays used):
// a, b = f() becomes _, _ = f(); a += n becomes _ = n. A definition
// (:=) is not removed: the names it declares are used later.
func (e *enumerator) removeAssign(x *ast.AssignStmt, stack []ast.Node) {
	if x.Tok == token.DEFINE || allBlank(x.Lhs) {
		return
	}
	rhs := string(e.src[e.offset(x.Rhs[0].Pos()):e.offset(x.Rhs[len(x.Rhs)-1].End())])
	lhs := "_"
	if x.Tok == token.ASSIGN {
		lhs = strings.Repeat("_, ", len(x.Lhs)-1) + "_"
	}
	e.remove(x, lhs+" = "+rhs, stack)
}

func allBlank(xs []ast.Expr) bool {
	for _, x := range xs {
		if id, ok := x.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return true
}

// remove adds the mutant that replaces statement s by repl (nothing, or a
// discarding assignment), keeping the file's line count. Not removed: a
// for loop's post statement (a hang only the timeout can kill) and a
// labelled statement (the label would move to the next one).
func (e *enumerator) remove(s ast.Stmt, repl string, stack []ast.Node) {
	if len(stack) > 0 {
		switch p := stack[len(stack)-1].(type) {
		case *ast.ForStmt:
			if p.Post == s {
				return
			}
		case *ast.LabeledStmt:
			return
		}
	}
	start, end := e.offset(s.Pos()), e.offset(s.End())
	text := string(e.src[start:end])
	m := &Mutant{Op: StmtRemoval, Original: abbrev(collapse(text)), Mutated: abbrev(collapse(repl)), start: start, end: end, site: e.siteOf(StmtRemoval, s, stack)}
	m.repl = repl + strings.Repeat("\n", strings.Count(text, "\n")-strings.Count(repl, "\n"))
	e.add(m, s.Pos(), stack)
}

// add completes m with its place and the positions that decide whether the
// sweep reaches it: the change itself, then each enclosing statement (a
// case clause's expression, for one, lies in no coverage block).
func (e *enumerator) add(m *Mutant, pos token.Pos, stack []ast.Node) {
	p := e.fset.Position(pos)
	m.File, m.Func, m.Line, m.Col = e.name, e.fn, p.Line, p.Column
	m.probes = append(m.probes, linecol{p.Line, p.Column})
	for i := len(stack) - 1; i >= 0; i-- {
		if s, ok := stack[i].(ast.Stmt); ok {
			sp := e.fset.Position(s.Pos())
			m.probes = append(m.probes, linecol{sp.Line, sp.Column})
		}
	}
	e.out = append(e.out, m)
}

func (e *enumerator) offset(pos token.Pos) int { return e.fset.Position(pos).Offset }

// siteOf is the site of op's mutants of node: a statement (removal, or
// the swap of its assignment or inc/dec token), an arithmetic expression
// or a boolean one. Whether a schema can switch it at run time (see
// schema.go): a statement when it sits in a statement list (not in an if,
// for or switch header), an expression when it is not a constant.
func (e *enumerator) siteOf(op Operator, node ast.Node, stack []ast.Node) *site {
	if _, ok := node.(ast.Stmt); ok {
		inList := false
		if len(stack) > 0 {
			switch stack[len(stack)-1].(type) {
			case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
				inList = true
			}
		}
		return e.site(siteStmt, node, inList)
	}
	x := node.(*ast.BinaryExpr)
	variable := e.info != nil && e.info.Types[x].Value == nil
	if op == Arithmetic {
		st := e.site(siteArith, node, variable)
		st.x, st.y = [2]int{e.offset(x.X.Pos()), e.offset(x.X.End())}, [2]int{e.offset(x.Y.Pos()), e.offset(x.Y.End())}
		return st
	}
	return e.site(siteBool, node, variable)
}

// site returns the site of node, made once.
func (e *enumerator) site(kind siteKind, node ast.Node, switchable bool) *site {
	key := [2]int{e.offset(node.Pos()), e.offset(node.End())}
	if st, ok := e.sites[key]; ok {
		return st
	}
	if e.sites == nil {
		e.sites = map[[2]int]*site{}
	}
	st := &site{kind: kind, start: key[0], end: key[1], switchable: switchable}
	e.sites[key] = st
	return st
}

// EnumerateTyped enumerates pkg's mutants with its types (see Enumerate);
// env is extra environment for the go command that builds the export
// data of pkg's dependencies.
func EnumerateTyped(pkg *Package, env []string) ([]*Mutant, error) {
	c, err := NewChecker(pkg, env)
	if err != nil {
		return nil, err
	}
	info, err := c.Info()
	if err != nil {
		return nil, err
	}
	return Enumerate(pkg, info), nil
}
