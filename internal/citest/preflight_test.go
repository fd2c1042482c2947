package citest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tools are what the preflight looks for on PATH; each is linked into a
// PATH of the test's own unless the case leaves it out.
var tools = []string{"make", "rsvg-convert", "chromium", "redis-server", "jq", "initdb", "postgres"}

// pathWith is a directory holding the shell tools the script itself
// uses and those of tools not in without (each a link to the machine's
// own, or a stand-in where the machine lacks it).
func pathWith(t *testing.T, without ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range append([]string{"bash", "dirname", "id"}, tools...) {
		if slicesContains(without, name) {
			continue
		}
		target, err := exec.LookPath(name)
		if err != nil {
			target = "/bin/true" // a stand-in: only its presence is checked
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// preflight runs make test's preflight with PATH set to path and returns
// its output, exit status and how long it took.
func preflight(t *testing.T, path string) (string, int, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bash, "../../.ci/install-deps", "--check")
	cmd.Env = []string{"PATH=" + path, "HOME=" + os.Getenv("HOME")} // no DURASIM_PG_URL, no DURASIM_CHROMIUM
	start := time.Now()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode(), time.Since(start)
	case err != nil:
		t.Fatalf("preflight: %v", err)
	}
	return string(out), 0, time.Since(start)
}

// A machine that lacks chromium and redis-server: the preflight fails at
// once, naming both and the command that installs them.
func TestPreflightNamesWhatIsMissing(t *testing.T) {
	out, code, took := preflight(t, pathWith(t, "chromium", "redis-server"))
	if code != 1 || took > 30*time.Second {
		t.Fatalf("exit %d after %v, want 1 within 30 s:\n%s", code, took, out)
	}
	for _, want := range []string{"chromium", "redis-server", "install them with: sudo bash .ci/install-deps", "fonts-liberation"} {
		if !strings.Contains(out, want) {
			t.Errorf("the preflight does not say %q:\n%s", want, out)
		}
	}
	for _, present := range []string{"rsvg-convert", "PostgreSQL", "  - make"} {
		if strings.Contains(out, present) {
			t.Errorf("the preflight names %q, which is there:\n%s", present, out)
		}
	}
}

// With every tool there, the preflight passes and says nothing.
func TestPreflightPassesWithEverything(t *testing.T) {
	if out, code, _ := preflight(t, pathWith(t)); code != 0 || out != "" {
		t.Fatalf("exit %d, output %q; want 0 and nothing", code, out)
	}
}
