package simtest

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/sim"
)

var (
	flagSeed  = flag.String("sim.seed", "", "run only this seed (after the saved failing seeds)")
	flagSeeds = flag.Int("sim.seeds", 0, "number of seeds to run (0: the test's default)")
	flagRoot  = flag.String("sim.root", "", "root the seeds are derived from (default: random, printed)")
)

// TB is the part of testing.TB that simtest uses: *testing.T, *testing.B
// and *testing.F satisfy it. Fatalf must end the test, as theirs do; if
// it returns, [Sweep] returns too.
type TB interface {
	Helper()
	Name() string
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Seeds returns the seeds a test should run: first, whatever the flags,
// the failing seeds saved by earlier runs of the test (see [Fail]); then
// the seed of -sim.seed alone, or n seeds (-sim.seeds overrides n)
// derived from -sim.root or from a random root. It prints one line on
// stderr saying which.
func Seeds(t TB, n int) []uint64 {
	t.Helper()
	saved := readFailures(t)
	var fresh []uint64
	var what string
	if *flagSeed != "" {
		s, err := strconv.ParseUint(*flagSeed, 10, 64)
		if err != nil {
			t.Fatalf("-sim.seed=%q: want an unsigned 64-bit integer", *flagSeed)
			return saved
		}
		fresh, what = []uint64{s}, fmt.Sprintf("seed %d (-sim.seed)", s)
	} else {
		fresh, what = rootSeeds(t, n)
	}
	if len(saved) > 0 {
		what = fmt.Sprintf("%d saved failing seed(s) from %s first, then %s", len(saved), failureFile(t), what)
	}
	fmt.Fprintf(os.Stderr, "simtest: %s: %s\n", t.Name(), what)
	out := slices.Clone(saved)
	for _, s := range fresh {
		if !slices.Contains(saved, s) { // the saved seeds only: a few, while fresh may be millions
			out = append(out, s)
		}
	}
	return out
}

// rootSeeds derives n seeds (-sim.seeds overrides n) from the root and
// says so; a random root is recorded (see [record]).
func rootSeeds(t TB, n int) ([]uint64, string) {
	t.Helper()
	if *flagSeeds < 0 {
		t.Fatalf("-sim.seeds=%d: want a positive number of seeds", *flagSeeds)
	} else if *flagSeeds > 0 {
		n = *flagSeeds
	}
	root, random := rootSeed(t)
	seeds := SeedsFrom(root, n)
	if !random {
		return seeds, fmt.Sprintf("%d seeds from root %d (-sim.root)", n, root)
	}
	what := fmt.Sprintf("%d seeds from random root %d (repeat with -sim.root=%d)", n, root, root)
	if err := record(t, root, n); err != nil {
		what += fmt.Sprintf("; go test may cache this run (use -count=1): %v", err)
	}
	return seeds, what
}

// SeedsFrom returns the n seeds a sweep derives from root: the same on
// every machine, so -sim.root=R repeats a sweep.
func SeedsFrom(root uint64, n int) []uint64 {
	stream := scheduler.NewStream(root)
	seeds := make([]uint64, 0, max(n, 0))
	for range n {
		seeds = append(seeds, stream.Uint64()>>1) // stay readable as int64 too
	}
	return seeds
}

// rootSeed is -sim.root, or a random root (random reports which).
func rootSeed(t TB) (root uint64, random bool) {
	t.Helper()
	if *flagRoot != "" {
		r, err := strconv.ParseUint(*flagRoot, 10, 64)
		if err != nil {
			t.Fatalf("-sim.root=%q: want an unsigned 64-bit integer", *flagRoot)
		}
		return r, false
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("simtest: no entropy for a root seed: %v", err)
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1, true
}

// Sweep runs cfg on the test's seeds ([Seeds]) and fails on the first
// seed that violates an invariant ([Fail]). It honours the test's
// deadline (go test -timeout) as the CLI honours an interrupt: it stops
// starting seeds while there is still time to shrink and report a
// failure, and fails saying how many seeds ran, rather than letting go
// test kill the binary with nothing said.
func Sweep(t TB, cfg sim.Config, n int) *sim.Summary {
	t.Helper()
	cfg.StopOnViolation = true
	sum := sim.NewSummary(cfg.Variant)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("simtest: %v", err)
		return sum
	}
	rn := sim.NewRunner()
	seeds := Seeds(t, n)
	sum.Planned = len(seeds)
	start := time.Now()
	for i, seed := range seeds {
		if i > 0 && nearDeadline(t, time.Since(start)/time.Duration(i)) {
			sum.Stopped = "by the test's deadline (go test -timeout)"
			var b bytes.Buffer
			sum.Write(&b, nil)
			t.Fatalf("simtest: stopped %s after %d of %d seeds, none failing; raise -timeout or lower -sim.seeds:\n%s", sum.Stopped, sum.Seeds, len(seeds), b.String())
			return sum
		}
		res, err := rn.Run(cfg, seed)
		if err != nil {
			runError(t, cfg, seed, err)
			return sum
		}
		sum.Add(res)
		if res.Failed() {
			Fail(t, cfg, res)
			return sum
		}
	}
	return sum
}

// deadlineTB is a TB with a deadline (*testing.T's).
type deadlineTB interface {
	Deadline() (time.Time, bool)
}

// nearDeadline reports whether t's deadline leaves too little time to run
// one more seed and, should it fail, shrink it (at most shrinkRuns runs of
// about perSeed each) and report it.
func nearDeadline(t TB, perSeed time.Duration) bool {
	d, ok := t.(deadlineTB)
	if !ok {
		return false
	}
	end, ok := d.Deadline()
	return ok && time.Until(end) < deadlineMargin+shrinkRuns*perSeed
}

// The time Sweep keeps before the test's deadline: the shrinker's runs
// (its default budget) at the sweep's pace, and a margin for printing.
const (
	shrinkRuns     = 2000
	deadlineMargin = 2 * time.Second
)

// runError fails the test on a seed whose run returned an error: a panic
// or a setting past its edge Validate took is a failure found, saved
// and reproduced like a violation; any other error is the configuration's.
func runError(t TB, cfg sim.Config, seed uint64, err error) {
	t.Helper()
	pe, isPanic := errors.AsType[*sim.PanicError](err)
	ee, isEdge := errors.AsType[*sim.EdgeError](err)
	if !isPanic && !isEdge {
		t.Fatalf("seed %d: %v", seed, err)
		return
	}
	saveFailure(t, seed)
	rp := reproducer(t, seed)
	line, _ := rp.Line("run", fmt.Sprintf("seed-%d", seed), cfg, seed)
	if isPanic {
		pe.Replay = line
	} else {
		ee.Reproduce = line
	}
	t.Fatalf("\n%v\n  reproduce:\n    %s\n", err, strings.Join(rp.Lines(cfg, seed, nil), "\n    "))
}

// Fail reports a failing result: saves the seed under
// testdata/sim-failures/<test> (commit that file: the seed then runs first
// on every run of the test until the file is deleted), shrinks it, prints
// the counterexample and the commands that reproduce it — a repro file
// beside the saved seed when a setting has no flag — and fails the test.
func Fail(t TB, cfg sim.Config, res *sim.Result) {
	t.Helper()
	saveFailure(t, res.Seed)
	var buf bytes.Buffer
	sh, err := sim.Shrink(cfg, res.Seed, res, 0)
	if err != nil {
		fmt.Fprintf(&buf, "shrinking failed: %v\n", err)
	}
	sim.WriteFailure(&buf, cfg, res, sh, reproducer(t, res.Seed))
	t.Fatalf("\n%s", buf.String())
}

// reproducer prints a failure's commands as from the root of the
// module under test (go test's package paths are relative to it): the go
// test line, and durasim's — go run in durasim's own module, else the
// installed durasim and how to install it at the version the test uses.
// A repro file goes beside the saved seed.
func reproducer(t TB, seed uint64) *sim.Reproducer {
	cli := repro.TestCLI(sim.CLIProg)
	return &sim.Reproducer{CLI: cli.Command, Install: cli.Install, Test: TestCommand(t, seed),
		Save: func(name string, cfg sim.Config, seed uint64) (string, error) {
			return saveRepro(t, name, cfg, seed)
		}}
}

// TestCommand is the go test command that replays seed in this test.
func TestCommand(t TB, seed uint64) string {
	return fmt.Sprintf("%s -sim.seed=%d", goTestRun(t), seed)
}

// goTestRun is the go test command that runs just this test, subtest
// included: -run '^Parent$/^Sub$' (each level anchored, as go test
// splits the pattern at its slashes).
func goTestRun(t TB) string {
	levels := strings.Split(t.Name(), "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	pkg := "./" + packageDir()
	if pkg == "./." {
		pkg = "."
	}
	cmd := "go test "
	if tags := BuildTags(); tags != "" {
		cmd += "-tags " + repro.ShellQuote(tags) + " "
	}
	return cmd + pkg + " -run " + repro.ShellQuote(strings.Join(levels, "/"))
}

// BuildTags are the -tags the test binary was built with: a reproduce
// command without them builds another program (a bug planted behind a
// tag would pass).
func BuildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}

// packageDir is the package's directory relative to the module root.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}

// testFile is the file named after the test under testdata/dir.
func testFile(t TB, dir string) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return filepath.Join("testdata", dir, name)
}
