package mutation

import (
	"os"
	"path/filepath"
	"testing"
)

// The equivalents files checked in (internal/mutation/equivalent/<pkg>.txt)
// parse, and every entry names a mutant the package has today: an entry
// left behind by an edit would otherwise argue about code that is gone,
// and make mutation(-sql) only reports it after a run of hours.
func TestCheckedInEquivalentsNameMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks model/, sqlstore/ and workflow/ with their dependencies")
	}
	for _, pkg := range []string{"model", "sqlstore", "workflow"} {
		t.Run(pkg, func(t *testing.T) {
			f, err := os.Open(filepath.Join("equivalent", pkg+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			argued, err := ParseEquivalents(f)
			if err != nil {
				t.Fatal(err)
			}
			p, err := LoadPackage("../../" + pkg)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := EnumerateTyped(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for _, m := range ms {
				ids[m.ID()] = true
			}
			for _, a := range argued {
				if !ids[a.ID] {
					t.Errorf("equivalent/%s.txt:%d names no mutant of %s: %s", pkg, a.Line, pkg, a.ID)
				}
			}
		})
	}
}
