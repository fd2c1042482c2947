package ownqueue_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/durasim/durasim/simtest"
)

// bugRoot is the root the planted-bug sweeps derive their seeds from:
// fixed, so the test does not depend on a random draw.
const bugRoot = "1"

// The sweep passes on the queue as it is, and fails on each planted bug
// (built with its tag) with a shrunk counterexample whose printed
// reproduce command, run as printed from the repository root, fails with
// the same invariant. It runs go test in a child process, once per tag.
func TestPlantedBugsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package three times")
	}
	if simtest.BuildTags() != "" {
		t.Skip("built with tags " + simtest.BuildTags() + ": the child sweeps choose their own")
	}
	root := moduleRoot(t)
	sweep := []string{"test", "-count=1", "./examples/ownqueue", "-run", "^TestSweep$", "-sim.root=" + bugRoot}
	if out, err := goCmd(root, sweep...); err != nil {
		t.Fatalf("the sweep without a planted bug failed: %v\n%s", err, out)
	}
	for _, bug := range []struct{ tag, inv string }{
		{"ownqueue_bug_early_redelivery", "target-retry-timing"},
		{"ownqueue_bug_ack_wrong_receipt", "target-consistency"},
	} {
		tag, inv := bug.tag, bug.inv
		t.Run(tag, func(t *testing.T) {
			saved := filepath.Join(root, "examples", "ownqueue", "testdata", "sim-failures", "TestSweep")
			if _, err := os.Stat(saved); err == nil {
				t.Fatalf("%s exists before the sweep: a saved failing seed would run first", saved)
			}
			t.Cleanup(func() { // the seed file, then its folders if that left them empty
				for p := saved; p != root; p = filepath.Dir(p) {
					if os.Remove(p) != nil {
						break
					}
				}
			})
			out, err := goCmd(root, append([]string{"test", "-tags", tag}, sweep[1:]...)...)
			if err == nil {
				t.Fatalf("the sweep passed with %s:\n%s", tag, out)
			}
			got, cmd := failure(t, out)
			if b, err := os.ReadFile(saved); err != nil || !strings.Contains(string(b), fmt.Sprint(seedOf(t, out))) {
				t.Fatalf("the failing seed was not saved in %s (%v): %q", saved, err, b)
			}
			if got != inv {
				t.Fatalf("with %s the sweep failed %s, want %s:\n%s", tag, got, inv, out)
			}
			if !strings.Contains(out, "shrunk after ") || !strings.Contains(out, "    > #") {
				t.Fatalf("no shrunk counterexample:\n%s", out)
			}
			c := exec.Command("sh", "-c", cmd)
			c.Dir = root
			again, err := c.CombinedOutput()
			if err == nil {
				t.Fatalf("the reproduce command passed: %s\n%s", cmd, again)
			}
			if got2, _ := failure(t, string(again)); got2 != inv {
				t.Fatalf("the reproduce command failed %s, want %s: %s\n%s", got2, inv, cmd, again)
			}
			readmeQuotes(t, root, tag, out)
		})
	}
}

// readmeQuotes checks that the README's quoted output of the sweep with
// tag, if it quotes one, is what the sweep printed, line for line.
func readmeQuotes(t *testing.T, root, tag, out string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := "$ go test -tags " + tag + " ./examples/ownqueue -run '^TestSweep$' -sim.root=" + bugRoot + "\n"
	_, quote, found := strings.Cut(string(b), cmd)
	if !found {
		return
	}
	quote, _, _ = strings.Cut(quote, "```")
	for _, line := range strings.Split(strings.TrimSpace(quote), "\n") {
		if !strings.Contains(out, strings.TrimSpace(line)) {
			t.Errorf("README quotes a line the sweep did not print:\n%s\nthe sweep printed:\n%s", line, out)
		}
	}
}

var (
	failLine      = regexp.MustCompile(`FAIL seed (\d+) \([^)]*\)\n\s*violation: (target-[a-z-]+):`)
	reproduceLine = regexp.MustCompile(`(?m)reproduce:\n\s*(go test .*)$`)
)

// seedOf is the failing seed a sweep's output names.
func seedOf(t *testing.T, out string) string {
	t.Helper()
	m := failLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no failing seed in:\n%s", out)
	}
	return m[1]
}

// failure is the invariant a sweep's output failed first and the
// reproduce command it printed.
func failure(t *testing.T, out string) (inv, cmd string) {
	t.Helper()
	m, r := failLine.FindStringSubmatch(out), reproduceLine.FindStringSubmatch(out)
	if m == nil || r == nil {
		t.Fatalf("no failing seed and reproduce command in:\n%s", out)
	}
	return m[2], r[1]
}

func goCmd(dir string, args ...string) (string, error) {
	c := exec.Command("go", args...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	return string(out), err
}

// moduleRoot is the directory of go.mod above the test's.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test")
		}
	}
}
