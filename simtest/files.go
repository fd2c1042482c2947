package simtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/sim"
)

func failureFile(t TB) string { return testFile(t, "sim-failures") }

// readFailures reads the seeds saved by earlier failing runs of this test.
func readFailures(t TB) []uint64 {
	f, err := os.Open(failureFile(t))
	if err != nil {
		return nil
	}
	defer f.Close()
	var seeds []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if s, err := strconv.ParseUint(line, 10, 64); err == nil {
			seeds = append(seeds, s)
		}
	}
	return seeds
}

func saveFailure(t TB, seed uint64) {
	path := failureFile(t)
	saved := readFailures(t)
	for _, s := range saved {
		if s == seed {
			return
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Logf("simtest: cannot save failing seed: %v", err)
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Logf("simtest: cannot save failing seed: %v", err)
		return
	}
	defer f.Close()
	if len(saved) == 0 {
		fmt.Fprintf(f, "# Failing seeds of %s, saved by simtest; each runs first on every run of the test.\n", t.Name())
	}
	fmt.Fprintf(f, "%d\n", seed)
	t.Logf("simtest: saved seed %d to %s; it runs first from now on", seed, path)
}

// saveRepro writes the repro file of cfg on seed beside the saved
// failures, testdata/sim-failures/<test>.<name>.repro, and returns its
// path from the module's root (where the commands printed are run).
func saveRepro(t TB, name string, cfg sim.Config, seed uint64) (string, error) {
	path := testFile(t, "sim-failures") + "." + name + ".repro"
	var b bytes.Buffer
	notes := []string{
		fmt.Sprintf("durasim repro file: seed %d of %s, written by simtest beside its saved failing seeds", seed, t.Name()),
		"replay it with: durasim replay -repro FILE (from the module's root, FILE is " + filepath.ToSlash(filepath.Join(packageDir(), path)) + ")",
		"go test reruns it with: " + TestCommand(t, seed),
	}
	if err := sim.WriteRepro(&b, cfg, seed, repro.Version(sim.CLIProg.Module), notes...); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return "", err
	}
	return filepath.ToSlash(filepath.Join(packageDir(), path)), nil
}

// recordAhead is how far in the future a run record is dated.
const recordAhead = 24 * time.Hour

// record writes testdata/sim-runs/<test>: the random root of this run and
// the command that repeats it, for a run whose output go test does not
// show (a passing package in `go test ./...` prints only "ok").
//
// It is also what keeps go test from caching a sweep. go test caches a
// passing run and replays its output while the files the test opened are
// unchanged; it does not cache a run that opened a file modified less
// than 2 s before the run ended (cmd/go's modTimeCutoff). The record is
// opened and dated a day ahead, so that holds however long the package's
// other tests take after the sweep: a plain `go test` draws new seeds
// every time.
func record(t TB, root uint64, n int) error {
	path := testFile(t, "sim-runs")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// The records are per machine and per run: keep them out of git.
	ignore := filepath.Join(filepath.Dir(path), ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(ignore, []byte("# run records of simtest, rewritten by every sweep\n*\n"), 0o644); err != nil {
			return err
		}
	}
	text := fmt.Sprintf("# The last sweep of %s from a random root, written by simtest.\n"+
		"# Dated %s ahead so that go test does not cache the run.\nroot %d\nseeds %d\nrepeat %s\n",
		t.Name(), recordAhead, root, n, repeatCommand(t, root, n))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	ahead := time.Now().Add(recordAhead)
	if err := os.Chtimes(path, ahead, ahead); err != nil {
		return err
	}
	back, err := os.ReadFile(path) // the open go test notes
	if err == nil && string(back) != text {
		err = fmt.Errorf("%s: written and read back differ", path)
	}
	return err
}

// repeatCommand is the go test command that repeats a sweep of n seeds
// from root.
func repeatCommand(t TB, root uint64, n int) string {
	return fmt.Sprintf("%s -sim.root=%d -sim.seeds=%d", goTestRun(t), root, n)
}
