package simtest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/simtest"
	"github.com/durasim/durasim/targetsim"
)

// helperEnv makes TestHelperProcess run a sweep as a user's test would.
const helperEnv = "SIMTEST_HELPER"

// naive is the no-idempotency variant under the standard swarm: some
// seeds fail, others pass.
func naive() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Variant = "no-idempotency"
	return cfg
}

// TestHelperProcess is not a test of its own: the tests below run the
// test binary, or go test, again with SIMTEST_HELPER set, and this is the
// test that runs there.
func TestHelperProcess(t *testing.T) {
	switch mode := os.Getenv(helperEnv); mode {
	case "":
		t.Skip("helper of TestSavedSeedsRunFirst and TestSweepIsNotCached; runs only when they start it")
	case "correct":
		simtest.Sweep(t, sim.DefaultConfig(), 5)
	case "naive":
		simtest.Sweep(t, naive(), 5)
	case "deadline":
		simtest.Sweep(t, sim.DefaultConfig(), 10_000_000)
	case "lossy-target":
		sweepOpened(t, openLossy, smallTarget(targetsim.TxChecked))
	case "river-naive":
		sweepOpened(t, openRiver, crashAfterEffect())
	case "no-sweep":
		t.Log("a test that reads nothing go test tracks")
	default:
		t.Fatalf("%s=%q: unknown mode", helperEnv, mode)
	}
}

// helper runs TestHelperProcess in mode from the test binary, in dir, and
// returns its output and exit status.
func helper(t *testing.T, dir, mode string, args ...string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^TestHelperProcess$", "-test.v"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	return exitOf(t, cmd)
}

// exitOf runs cmd and returns its output and exit status.
func exitOf(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", cmd, err)
	}
	return string(out), 0
}

// firstSeeds finds, among seeds 1..200 of cfg, a failing and a passing
// seed.
func firstSeeds(t *testing.T, cfg sim.Config) (failing, passing uint64) {
	t.Helper()
	for seed := uint64(1); seed <= 200 && (failing == 0 || passing == 0); seed++ {
		res, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() && failing == 0 {
			failing = seed
		} else if !res.Failed() && passing == 0 {
			passing = seed
		}
	}
	if failing == 0 || passing == 0 {
		t.Fatalf("seeds 1..200 of %s: failing %d, passing %d; want one of each", cfg.Variant, failing, passing)
	}
	return failing, passing
}

// A saved failing seed runs first even when -sim.seed names another seed,
// and the test fails on it: `go test -run '^TestX$' -sim.seed=N` of a
// test with a saved failure stays red.
func TestSavedSeedsRunFirst(t *testing.T) {
	failing, passing := firstSeeds(t, naive())
	dir := t.TempDir()
	flagSeed := "-sim.seed=" + strconv.FormatUint(passing, 10)
	if out, code := helper(t, dir, "naive", flagSeed); code != 0 {
		t.Fatalf("seed %d alone: exit %d, want 0 (it passes)\n%s", passing, code, out)
	}
	saved := filepath.Join(dir, "testdata", "sim-failures", "TestHelperProcess")
	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, []byte("# saved by an earlier run\n"+strconv.FormatUint(failing, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := helper(t, dir, "naive", flagSeed)
	for _, want := range []string{
		"1 saved failing seed(s) from testdata/sim-failures/TestHelperProcess first, then seed " + strconv.FormatUint(passing, 10) + " (-sim.seed)",
		"FAIL seed " + strconv.FormatUint(failing, 10) + " ",
		"--- FAIL: TestHelperProcess",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != 1 || t.Failed() {
		t.Fatalf("with seed %d saved and -sim.seed=%d: exit %d, want 1\n%s", failing, passing, code, out)
	}
}

var rootLine = regexp.MustCompile(`simtest: TestHelperProcess: 5 seeds from random root (\d+) \(repeat with -sim.root=(\d+)\)`)

// goTest runs `go test -v` of TestHelperProcess in this package, as a user
// would (a package list, -v: both leave go test's cache on), and returns
// the output.
func goTest(t *testing.T, mode string) string {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	cmd := exec.Command(gotool, "test", "-v", "-run", "^TestHelperProcess$", ".")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") { // -count=1 there would hide what this checks
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, helperEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test (%s): %v\n%s", mode, err, out)
	}
	return string(out)
}

// A second plain `go test` of a sweep runs it again from a new random
// root: go test does not replay the first run from its cache. The control,
// a test without a sweep, is replayed from the cache on its second run.
func TestSweepIsNotCached(t *testing.T) {
	goTest(t, "no-sweep")
	if out := goTest(t, "no-sweep"); !strings.Contains(out, "(cached)") {
		t.Fatalf("control: the second run of a test without a sweep was not cached, so this test proves nothing:\n%s", out)
	}
	var roots []string
	for range 2 {
		out := goTest(t, "correct")
		m := rootLine.FindStringSubmatch(out)
		if strings.Contains(out, "(cached)") || m == nil || m[1] != m[2] {
			t.Fatalf("a sweep's run was cached or printed no root line:\n%s", out)
		}
		roots = append(roots, m[1])
		path := filepath.Join("testdata", "sim-runs", "TestHelperProcess")
		record, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(record), "\nroot "+m[1]+"\n") ||
			!strings.Contains(string(record), "-sim.root="+m[1]+" -sim.seeds=5\n") {
			t.Fatalf("the run record does not hold root %s (%v):\n%s", m[1], err, record)
		}
		// Dated ahead: a sweep followed by minutes of other tests is not
		// cached either (go test caches only inputs 2 s old or older).
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if time.Until(fi.ModTime()) < time.Hour {
			t.Fatalf("run record dated %v, want a day ahead", fi.ModTime())
		}
	}
	if roots[0] == roots[1] {
		t.Fatalf("two runs drew the same root %s", roots[0])
	}
}

// A failure saves its seed once, with a header; the file then lists it.
func TestFailSavesTheSeedOnce(t *testing.T) {
	dir := t.TempDir()
	failing, _ := firstSeeds(t, naive())
	arg := "-sim.seed=" + strconv.FormatUint(failing, 10)
	for range 2 {
		if out, code := helper(t, dir, "naive", arg); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "testdata", "sim-failures", "TestHelperProcess"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Failing seeds of TestHelperProcess, saved by simtest; each runs first on every run of the test.\n" +
		strconv.FormatUint(failing, 10) + "\n"
	if string(b) != want {
		t.Fatalf("saved file:\n%s\nwant:\n%s", b, want)
	}
}

// A sweep longer than go test's -timeout stops before the deadline and
// fails saying how many seeds ran, instead of go test killing the binary
// with a stack dump and no result.
func TestSweepHonoursTheDeadline(t *testing.T) {
	start := time.Now()
	out, code := helper(t, t.TempDir(), "deadline", "-test.timeout=5s")
	if code != 1 || strings.Contains(out, "test timed out") || !regexp.MustCompile(`stopped by the test's deadline \(go test -timeout\) after \d+ of 10000000 seeds, none failing`).MatchString(out) ||
		!strings.Contains(out, "interrupted by the test's deadline") {
		t.Fatalf("exit %d after %v:\n%s", code, time.Since(start), out)
	}
}
