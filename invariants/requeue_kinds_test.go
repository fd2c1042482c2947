package invariants

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/durasim/durasim/model"
)

// Record calls requeue only for requeueKinds (and a job that just
// ended): the constant must name exactly the kinds requeue's switch acts
// on, or a kind added there would never reach it.
func TestRequeueKindsMatchRequeue(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "order.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	byName := kindConstants(t)
	var got uint64 // requeue's kinds
	var cases int
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "requeue" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			for _, x := range cc.List {
				sel, ok := x.(*ast.SelectorExpr)
				if !ok {
					t.Fatalf("requeue: a case that is not model.Ev...: %T", x)
				}
				k, ok := byName[sel.Sel.Name]
				if !ok {
					t.Fatalf("requeue: case %s names no event kind", sel.Sel.Name)
				}
				got |= k.Bit()
				cases++
			}
			return true
		})
		return false
	})
	if cases == 0 {
		t.Fatal("requeue's switch not found in order.go")
	}
	if got != requeueKinds {
		t.Errorf("requeue's switch acts on kinds %b, requeueKinds is %b", got, uint64(requeueKinds))
	}
}

// kindConstants maps model's EventKind constants (model/event.go's iota
// block, EvNone first) to their values.
func kindConstants(t *testing.T) map[string]model.EventKind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../model/event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]model.EventKind{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || len(g.Specs) == 0 || g.Specs[0].(*ast.ValueSpec).Names[0].Name != "EvNone" {
			continue
		}
		for i, sp := range g.Specs {
			out[sp.(*ast.ValueSpec).Names[0].Name] = model.EventKind(i)
		}
	}
	if out["EvEnqueue"] != model.EvEnqueue || out["EvRedrive"] != model.EvRedrive {
		t.Fatalf("model/event.go's kinds not read as declared: %v", out)
	}
	return out
}
