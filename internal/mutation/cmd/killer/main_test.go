package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The killer must run what `durasim run -seeds A:B` runs: same summary
// (its traces line folds every seed's trace hash in seed order), and on a
// failing design the same first failing seed with the same violation.

func TestSameSweepAsCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	var got, stderr bytes.Buffer
	if code := run([]string{"-seeds", "1:200"}, &got, &stderr); code != 0 {
		t.Fatalf("killer exit %d: %s%s", code, got.String(), stderr.String())
	}
	want := durasim(t, "run", "-seeds", "1:200")
	if got.String() != want {
		t.Errorf("killer and CLI differ:\n--- killer\n%s--- durasim run -seeds 1:200\n%s", got.String(), want)
	}
	if !strings.Contains(got.String(), "\ntraces ") {
		t.Errorf("no traces line in\n%s", got.String())
	}
}

func TestSameFirstViolationAsCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	const variant = "no-fencing"
	var got, stderr bytes.Buffer
	if code := run([]string{"-seeds", "1:200", "-variant", variant}, &got, &stderr); code != 1 {
		t.Fatalf("killer exit %d, want 1: %s%s", code, got.String(), stderr.String())
	}
	var first struct {
		Seed       uint64   `json:"seed"`
		Violations []string `json:"violations"`
	}
	line, _, _ := strings.Cut(durasim(t, "run", "-seeds", "1:200", "-variant", variant, "-json"), "\n")
	if err := json.Unmarshal([]byte(line), &first); err != nil || len(first.Violations) == 0 {
		t.Fatalf("CLI's first JSON line %q: %v", line, err)
	}
	want := "violation seed " + strconv.FormatUint(first.Seed, 10) + ": " + first.Violations[0] + "\n"
	if got.String() != want {
		t.Errorf("killer: %qCLI's first failing seed: %q", got.String(), want)
	}
}

// durasim runs the CLI from the module root and returns its standard
// output (exit status 1, a violation, is expected of failing designs).
func durasim(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", "./cmd/durasim"}, args...)...)
	cmd.Dir = filepath.Join("..", "..", "..", "..")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("durasim %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
