package goqitetarget

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The schema durasim applies is goqite's own file, byte for byte, from
// the module go.mod pins.
func TestSchemaIsGoqites(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-json", modulePath).Output()
	if err != nil {
		t.Skipf("go list -m %s: %v", modulePath, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Skipf("go list -m %s: no module directory (%v)", modulePath, err)
	}
	for _, s := range []struct{ file, copy string }{{schemaFile, goqiteSchemaSQLite}, {schemaFilePostgres, goqiteSchemaPostgres}} {
		if s.file == "" {
			continue // a flavour this release does not have
		}
		want, err := os.ReadFile(filepath.Join(m.Dir, s.file))
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != s.copy {
			t.Fatalf("durasim's copy differs from %s's %s:\n%s", modulePath, s.file, want)
		}
	}
}
