package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/sim"
)

// cli runs the command line and returns stdout, stderr and the status.
func cli(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// oneLineError fails unless the run was a usage error: status 2, nothing
// on stdout, one line on stderr.
func oneLineError(t *testing.T, args []string, out, stderr string, code int) {
	t.Helper()
	if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "durasim: ") {
		t.Errorf("%q: status %d, stdout %q, stderr %q; want 2 and one line", args, code, out, stderr)
	}
}

func TestUnknownCommandListsEveryCommand(t *testing.T) {
	out, stderr, code := cli("bogus")
	oneLineError(t, []string{"bogus"}, out, stderr, code)
	for _, c := range commands() {
		if !strings.Contains(stderr, " "+c.name) {
			t.Errorf("the error does not list %s: %s", c.name, stderr)
		}
	}
	usage, _, code := cli("-h")
	for _, c := range commands() {
		if code != 0 || !strings.Contains(usage, "\n  "+c.name+" ") {
			t.Errorf("durasim -h (status %d) does not list %s:\n%s", code, c.name, usage)
		}
	}
}

// Every command's -h (and `durasim help NAME`) starts with its usage line
// and its summary, and exits 0.
func TestEveryCommandHasAUsageLine(t *testing.T) {
	for _, c := range commands() {
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}} {
			_, stderr, code := cli(args...)
			head := "usage: durasim " + c.name
			if code != 0 || !strings.HasPrefix(stderr, head) || !strings.Contains(stderr, "\n"+c.summary+"\n") {
				t.Errorf("%q: status %d, want 0 and %q then the summary:\n%s", args, code, head, stderr)
			}
		}
	}
}

var helpFlag = regexp.MustCompile(`(?m)^  -(\S+)(?: (\w+))?$`)

// flagsOf lists a command's flags and their types from its -h.
func flagsOf(t *testing.T, name string) map[string]string {
	t.Helper()
	_, help, _ := cli(name, "-h")
	flags := map[string]string{}
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		flags[m[1]] = m[2] // "" for a boolean
	}
	if len(flags) == 0 && name != "scenarios" {
		t.Fatalf("%s -h lists no flags:\n%s", name, help)
	}
	return flags
}

// A value that does not parse, for any flag of any command, is a one-line
// error saying what the flag wants.
func TestBadValuesSayWhatIsWanted(t *testing.T) {
	want := map[string]string{
		"duration": "want a Go duration such as 30s",
		"int":      "want an integer",
		"uint":     "want an unsigned integer",
		"":         "want true or false",
	}
	for _, c := range commands() {
		for name, typ := range flagsOf(t, c.name) {
			if typ == "string" {
				continue // anything parses; each command checks its own
			}
			args := []string{c.name, "-" + name, "banana"}
			if typ == "" {
				args = []string{c.name, "-" + name + "=banana"}
			}
			out, stderr, code := cli(args...)
			oneLineError(t, args, out, stderr, code)
			if !strings.Contains(stderr, want[typ]) || !strings.Contains(stderr, "-"+name) {
				t.Errorf("%q: %q does not say %q", args, stderr, want[typ])
			}
		}
	}
}

// Sizes past their bounds are refused before the run allocates anything.
func TestSizesPastTheirBoundsAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-seed", "1", "-workers", "100000000", "-docs", "10"},
		{"run", "-seed", "1", "-workers", "2000000000"},
		{"run", "-seed", "1", "-workers", "5000000000"},
		{"run", "-seed", "1", "-docs", "2000000000"},
		{"run", "-seed", "1", "-docs", "1000001", "-arrival-gap", "1ms"},
		{"run", "-seed", "1", "-arrival-gap", "2000000h"},
		{"run", "-seed", "1", "-heartbeat", "1ns"},
		{"run", "-seed", "1", "-lease", "2h"},
		{"run", "-seed", "1", "-max-attempts", "5000000000"},
		{"run", "-seeds", "1:100000000"},
		{"run", "-seeds", "0:18446744073709551615"},
		{"run", "-seeds", "1:10", "-parallel", "1000000000"},
		{"run", "-seeds", "1:100", "-docs", "1000000", "-parallel", "64"},
		{"run", "-seed", "1", "-plan", "delay nth=1 for=9223372036854775807ns"},
		{"run", "-seed", "1", "-plan-file", "/dev/zero"},
		{"run", "-exhaustive", "-workers", "100"},
		{"replay", "-seed", "1", "-workers", "100001"},
		{"shrink", "-seed", "1", "-docs", "9223372036854775807"},
		{"mutants", "-seeds", "1:20000000"},
		{"mutants", "-seeds", "18446744073709551000:18446744073709551615", "-trials", "3"},
		{"bench", "-seeds", "2000000"},
		{"bench", "-mock-seeds", "1000"},
		{"chaos", "-db", "x", "-jobs", "1000000"},
		{"chaos", "-db", "x", "-kills", "1000000"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, stderr, code := cli(args...)
		runtime.ReadMemStats(&after)
		oneLineError(t, args, out, stderr, code)
		// A few MB at most (reading a 1 MiB plan file, the race detector's
		// own): a run of any of these sizes would allocate gigabytes.
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
			t.Errorf("%q: allocated %d bytes before refusing", args, n)
		}
	}
}

// Extreme values of every number and duration flag of a run: the run
// goes ahead or is refused in one line, it never crashes.
func TestExtremeValuesNeverCrash(t *testing.T) {
	values := []string{"-1", "0", "1ns", "-1ns", "2562047h", "9223372036854775807", "-9223372036854775808"}
	for name, typ := range flagsOf(t, "run") {
		if typ != "int" && typ != "duration" {
			continue
		}
		for _, v := range values {
			args := []string{"run", "-seeds", "1:2", "-" + name, v}
			out, stderr, code := cli(args...)
			switch code {
			case 0, 1:
			case 2:
				oneLineError(t, args, out, stderr, code)
			default:
				t.Errorf("%q: status %d", args, code)
			}
		}
	}
}

// Without -parallel, a sweep of big seeds runs as many at once as fit in
// memory, and says so; with it, it is refused (above).
func TestDefaultParallelFitsInMemory(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Docs, cfg.ArrivalGap = sim.MaxDocs, 1
	sw := &sweepFlags{parallel: maxParallel}
	var stderr bytes.Buffer
	seeds, err := sw.seeds(seedRange{1, 100}, cfg, false, &stderr)
	fit := int(maxSweepBytes / seedBytes(cfg))
	if err != nil || len(seeds) != 100 || sw.parallel != fit || fit < 1 || !strings.Contains(stderr.String(), "seeds at once") {
		t.Fatalf("err %v, %d seeds, parallel %d (want %d), stderr %q", err, len(seeds), sw.parallel, fit, stderr.String())
	}
	if _, err := sw.seeds(seedRange{1, 100}, cfg, true, io.Discard); err != nil {
		t.Fatalf("the fitted -parallel %d refused: %v", sw.parallel, err)
	}
}

// A shard lists only its seeds, so a range too long for one process
// runs when split.
func TestSeedRangeList(t *testing.T) {
	for _, tc := range []struct {
		r    seedRange
		i, n uint64
		want []uint64
	}{
		{seedRange{5, 9}, 0, 1, []uint64{5, 6, 7, 8, 9}},
		{seedRange{5, 9}, 1, 2, []uint64{6, 8}},
		{seedRange{5, 9}, 4, 7, []uint64{9}},
		{seedRange{5, 9}, 5, 7, nil},
		{seedRange{^uint64(0) - 2, ^uint64(0)}, 0, 1, []uint64{^uint64(0) - 2, ^uint64(0) - 1, ^uint64(0)}},
		{seedRange{0, ^uint64(0)}, 3, 1 << 62, []uint64{3, 3 + 1<<62, 3 + 2<<62, 3 + 3<<62}},
	} {
		got, err := tc.r.list(tc.i, tc.n)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%v.list(%d, %d) = %v, %v; want %v", tc.r, tc.i, tc.n, got, err, tc.want)
		}
	}
}

// The README's list of the flags run, replay and shrink share names each
// of them (replay has exactly those).
func TestREADMEListsEverySharedFlag(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "Flags shared by `run`, `replay` and `shrink`")
	if i < 0 {
		t.Fatal("README has no list of the shared flags")
	}
	list := s[i : i+strings.Index(s[i:], "\n\n")]
	for name := range flagsOf(t, "replay") {
		if !strings.Contains(list, "`-"+name) {
			t.Errorf("README's shared flags do not list -%s", name)
		}
	}
}

// TestRunErrExitStatus: a run's panic or a lenient edge is a failure found
// (status 1), any other error a configuration the run refused (status 2).
func TestRunErrExitStatus(t *testing.T) {
	for err, want := range map[error]int{
		&sim.PanicError{Seed: 3, Value: "boom", Replay: "go run ./cmd/durasim replay -seed 3"}: 1,
		&sim.EdgeError{Seed: 4, Edge: "lease 0", Says: "lease must be positive"}:               1,
		errors.New("lease must be positive"):                                                   2,
	} {
		var ee *exitError
		if !errors.As(runErr(err), &ee) || ee.code != want {
			t.Errorf("runErr(%v) = %v, want status %d", err, runErr(err), want)
		}
	}
}
