package goqiterepro

import (
	"encoding/json"
	"os/exec"
	"testing"
)

// goqiteDir is goqite's module directory, as go.mod pins it.
func goqiteDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", "maragu.dev/goqite").Output()
	if err != nil {
		t.Fatalf("go list -m maragu.dev/goqite: %v", err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go list -m maragu.dev/goqite: no directory (%v)", err)
	}
	return m.Dir
}
