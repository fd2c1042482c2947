package simtest_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/durasim/durasim/sim"
)

// theirTest is the test of a user's own module: a sweep that sets a
// setting no flag of the CLI has (MaxFaults), and one on a store of the
// user's own, which the CLI cannot open.
const theirTest = `package mine

import (
	"errors"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/simtest"
)

func TestMine(t *testing.T) {
	t.Run("few faults", func(t *testing.T) {
		cfg := sim.DefaultConfig()
		cfg.Variant = %q
		cfg.MaxFaults = 2 // no flag sets it
		simtest.Sweep(t, cfg, 20)
	})
	t.Run("own store", func(t *testing.T) {
		cfg := sim.DefaultConfig()
		cfg.Backend = store{}
		simtest.Sweep(t, cfg, 20)
	})
}

// store is the user's own: it disagrees with every final state.
type store struct{}

func (store) Name() string                      { return "inbox" }
func (store) Begin(uint64, *model.System) error { return nil }
func (store) Observe(*model.Event) error        { return nil }
func (store) End(*model.System) error           { return errors.New("inbox holds nothing") }
`

// notReplayedByFlags finds a variant and seed that fail with MaxFaults 2
// and pass at the default ceiling: a command that drops MaxFaults passes.
func notReplayedByFlags(t *testing.T) (variant string, seed uint64, invariant string) {
	t.Helper()
	for _, v := range []string{"no-fencing", "no-heartbeat", "unbounded-retry", "redrive-fresh-key"} {
		for s := uint64(1); s <= 400; s++ {
			c := sim.DefaultConfig()
			c.Variant, c.StopOnViolation = v, true
			whole, err := sim.Run(c, s)
			if err != nil {
				t.Fatal(err)
			}
			c.MaxFaults = 2
			few, err := sim.Run(c, s)
			if err != nil {
				t.Fatal(err)
			}
			if few.Failed() && !whole.Failed() {
				return v, s, few.Violations[0].Invariant
			}
		}
	}
	t.Fatal("no seed fails with MaxFaults 2 and passes without it: this test proves nothing")
	return "", 0, ""
}

// sh runs line as a shell runs it in dir, with env, and returns its
// output and exit status.
func sh(t *testing.T, dir string, env []string, line string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	return exitOf(t, cmd)
}

// reproduceLines are the lines under "reproduce:" of a failure.
func reproduceLines(out string) []string {
	_, after, ok := strings.Cut(out, "  reproduce:\n")
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "        ") { // go test indents a test's log by four
			break
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	return lines
}

// TestReproduceFromAUsersModule is a module of a user's own, outside the
// repository, that uses durasim through a replace: its sweep sets a
// setting no flag has and fails; each command the failure prints, run as
// printed from that module (the CLI installed as the failure says), fails
// the same way — exit 1, the same invariant — while the command that
// drops the setting passes. A sweep on the user's own store prints the
// go test line only.
func TestReproduceFromAUsersModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs the CLI in a module of its own")
	}
	variant, seed, invariant := notReplayedByFlags(t)
	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	bin := t.TempDir()
	gomod := "module example.com/mine\n\ngo 1.26.0\n\nrequire github.com/durasim/durasim v0.0.0-00010101000000-000000000000\n\nreplace github.com/durasim/durasim => " + checkout + "\n"
	sum, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": gomod, "go.sum": string(sum), "mine_test.go": fmt.Sprintf(theirTest, variant)} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GOFLAGS=-mod=mod")
	if out, code := sh(t, mod, env, "go mod tidy"); code != 0 {
		t.Fatalf("go mod tidy: exit %d\n%s", code, out)
	}

	out, code := sh(t, mod, env, fmt.Sprintf("go test -run '^TestMine$/^few_faults$' -sim.seed=%d .", seed))
	t.Logf("the user's failing sweep:\n%s", out)
	lines := reproduceLines(out)
	if code != 1 || len(lines) < 4 {
		t.Fatalf("the user's sweep: exit %d, reproduce lines %q; want 1 and the go test, run, replay and install lines\n%s", code, lines, out)
	}
	wantTest := fmt.Sprintf("go test . -run '^TestMine$/^few_faults$' -sim.seed=%d", seed)
	repro := fmt.Sprintf("testdata/sim-failures/TestMine_few_faults.seed-%d.repro", seed)
	if lines[0] != wantTest || lines[1] != "durasim run -repro "+repro || !strings.HasPrefix(lines[2], "durasim replay -repro "+repro+" ") {
		t.Fatalf("reproduce lines %q; want %q, durasim run and replay of %s", lines, wantTest, repro)
	}
	install := lines[len(lines)-1]
	_, installCmd, ok := strings.Cut(strings.TrimSuffix(install, ")"), "): ")
	if !ok || !strings.Contains(installCmd, "go -C "+checkout+" install ./cmd/durasim") {
		t.Fatalf("install line %q: want go -C %s install ./cmd/durasim", install, checkout)
	}
	if out, code := sh(t, mod, env, installCmd); code != 0 {
		t.Fatalf("%s: exit %d\n%s", installCmd, code, out)
	}
	for _, line := range lines[:3] {
		out, code := sh(t, mod, env, line)
		if code != 1 || !strings.Contains(out, invariant+":") {
			t.Errorf("%s: exit %d, want 1 and %s\n%s", line, code, invariant, out)
		}
	}
	// The command a flag list alone would print (no MaxFaults) passes:
	// the repro file is what reproduces the failure.
	if out, code := sh(t, mod, env, fmt.Sprintf("durasim run -seed %d -variant %s", seed, variant)); code != 0 {
		t.Errorf("without MaxFaults, seed %d: exit %d, want 0 (else this test proves nothing)\n%s", seed, code, out)
	}

	out, code = sh(t, mod, env, "go test -run '^TestMine$/^own_store$' -sim.seed=1 .")
	lines = reproduceLines(out)
	if code != 1 || len(lines) != 2 || lines[0] != "go test . -run '^TestMine$/^own_store$' -sim.seed=1" || !strings.Contains(lines[1], "your own type") {
		t.Fatalf("the user's store: exit %d, reproduce lines %q; want the go test line and why there is no other\n%s", code, lines, out)
	}
	if out, code := sh(t, mod, env, lines[0]); code != 1 || !strings.Contains(out, sim.DivergenceInvariant+":") {
		t.Errorf("%s: exit %d, want 1 and %s\n%s", lines[0], code, sim.DivergenceInvariant, out)
	}
	if b, err := os.ReadFile(filepath.Join(mod, repro)); err != nil || !bytes.Contains(b, []byte("\nMaxFaults 2\n")) {
		t.Errorf("repro file %s (%v):\n%s", repro, err, b)
	}
}
