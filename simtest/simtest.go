package simtest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/sim"
)

var (
	flagSeed  = flag.String("sim.seed", "", "replay only this seed")
	flagSeeds = flag.Int("sim.seeds", 0, "number of seeds to run (0: the test's default)")
	flagRoot  = flag.String("sim.root", "", "root the seeds are derived from (default: random, printed)")
)

// Seeds returns the seeds a test should run: the saved failures first,
// then -sim.seed alone, or n seeds (-sim.seeds overrides n) derived from
// the root.
func Seeds(t testing.TB, n int) []uint64 {
	t.Helper()
	saved := loadFailures(t)
	if *flagSeed != "" {
		s, err := strconv.ParseUint(*flagSeed, 10, 64)
		if err != nil {
			t.Fatalf("-sim.seed=%q: want an unsigned 64-bit integer", *flagSeed)
		}
		t.Logf("sim: replaying seed %d (-sim.seed)", s)
		return []uint64{s}
	}
	if *flagSeeds > 0 {
		n = *flagSeeds
	}
	root := rootSeed(t)
	t.Logf("sim: %d seeds from root %d (repeat with -sim.root=%d)", n, root, root)
	stream := scheduler.NewStream(root)
	seeds := append([]uint64(nil), saved...)
	for range n {
		seeds = append(seeds, stream.Uint64()>>1) // stay readable as int64 too
	}
	return seeds
}

func rootSeed(t testing.TB) uint64 {
	if *flagRoot != "" {
		r, err := strconv.ParseUint(*flagRoot, 10, 64)
		if err != nil {
			t.Fatalf("-sim.root=%q: want an unsigned 64-bit integer", *flagRoot)
		}
		return r
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("sim: no entropy for a root seed: %v", err)
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1
}

// Sweep runs cfg on the test's seeds and fails on the first seed that
// violates an invariant, after shrinking it and saving it under testdata/.
func Sweep(t *testing.T, cfg sim.Config, n int) *sim.Summary {
	t.Helper()
	cfg.StopOnViolation = true
	sum := sim.NewSummary(cfg.Variant)
	rn := sim.NewRunner()
	for _, seed := range Seeds(t, n) {
		res, err := rn.Run(cfg, seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		sum.Add(res)
		if res.Failed() {
			Fail(t, cfg, res)
			return sum
		}
	}
	return sum
}

// Fail reports a failing result: shrinks it, prints the counterexample and
// the commands, saves the seed, and fails the test.
func Fail(t *testing.T, cfg sim.Config, res *sim.Result) {
	t.Helper()
	saveFailure(t, res.Seed)
	var buf bytes.Buffer
	sh, err := sim.Shrink(cfg, res.Seed, res, 0)
	if err != nil {
		fmt.Fprintf(&buf, "shrinking failed: %v\n", err)
	}
	sim.WriteFailure(&buf, cfg, res, sh, TestCommand(t, res.Seed))
	t.Fatal("\n" + buf.String())
}

// TestCommand is the go test command that replays seed in this test.
func TestCommand(t testing.TB, seed uint64) string {
	name := t.Name()
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i]
	}
	return fmt.Sprintf("go test ./%s -run '^%s$' -sim.seed=%d", packageDir(), regexp.QuoteMeta(name), seed)
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

func failureFile(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return filepath.Join("testdata", "sim-failures", name)
}

// loadFailures reads the seeds saved by earlier failing runs of this test.
func loadFailures(t testing.TB) []uint64 {
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
	if len(seeds) > 0 {
		t.Logf("sim: replaying %d saved failing seed(s) from %s first", len(seeds), failureFile(t))
	}
	return seeds
}

func saveFailure(t testing.TB, seed uint64) {
	path := failureFile(t)
	for _, s := range loadFailures(t) {
		if s == seed {
			return
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Logf("sim: cannot save failing seed: %v", err)
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Logf("sim: cannot save failing seed: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%d\n", seed)
	t.Logf("sim: saved seed %d to %s; it will be replayed first next time", seed, path)
}
