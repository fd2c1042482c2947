package mutation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// CoverOptions say what to measure and how to run it.
type CoverOptions struct {
	Main string   // the main package to build and run, e.g. ./cmd/durasim
	Args []string // its arguments, e.g. run -seeds 1:2000; a lone ";" separates runs (their coverage adds up)
	Pkgs []string // the measured packages (patterns the go command accepts)
	Dir  string   // a scratch directory for the binary and the counters
	Env  []string // extra environment for the go command (e.g. GOCACHE=...)
	// AllRuns runs every run even after one exits non-zero (a sweep that
	// finds a failing seed exits 1: its coverage still counts); ExitCode
	// is then the first non-zero one.
	AllRuns bool
}

// CoverRun is one coverage run: the profile of the measured packages and
// how the program ended.
type CoverRun struct {
	Profile  *Profile
	Pkgs     []string // import paths of the measured packages
	ExitCode int
	Output   string   // the program's standard output and error (the last run's)
	Rarest   []string // every run's "rarest" line: the sweep's rarest conjunctions (sim/pairs.go)
	Elapsed  time.Duration
}

// Cover builds o.Main with coverage over o.Pkgs, runs it once and reads
// the counters of the measured packages back. The main package is
// instrumented too (without it Go writes no counters at exit) and left
// out of the profile. A program that exits non-zero still yields a
// profile: Go writes the counters in os.Exit.
func Cover(o CoverOptions) (*CoverRun, error) {
	paths, err := importPaths(append(append([]string{}, o.Pkgs...), o.Main))
	if err != nil {
		return nil, err
	}
	pkgs, mainPath := paths[:len(paths)-1], paths[len(paths)-1]
	bin := filepath.Join(o.Dir, "covered")
	if err := goRun(o.Env, "build", "-buildvcs=false", "-cover", "-covermode=set",
		"-coverpkg="+strings.Join(append(append([]string{}, pkgs...), mainPath), ","), "-o", bin, o.Main); err != nil {
		return nil, err
	}
	counters := filepath.Join(o.Dir, "covdata")
	if err := os.RemoveAll(counters); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(counters, 0o755); err != nil {
		return nil, err
	}
	run := &CoverRun{Pkgs: pkgs}
	for _, args := range SplitRuns(o.Args) {
		failed := run.ExitCode
		if err := runCovered(run, bin, args, counters); err != nil {
			return nil, err
		}
		if failed != 0 {
			run.ExitCode = failed // the first run that failed is the one to report
		}
		if run.ExitCode != 0 && !o.AllRuns {
			break
		}
	}
	text := filepath.Join(o.Dir, "cover.txt")
	if err := goRun(o.Env, "tool", "covdata", "textfmt", "-i="+counters, "-o="+text, "-pkg="+strings.Join(pkgs, ",")); err != nil {
		return nil, err
	}
	f, err := os.Open(text)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	run.Profile, err = ParseProfile(f)
	return run, err
}

// SplitRuns splits arguments at each lone ";" into the arguments of
// several runs of one program.
func SplitRuns(args []string) [][]string {
	var runs [][]string
	start := 0
	for i, a := range args {
		if a == ";" {
			runs = append(runs, args[start:i])
			start = i + 1
		}
	}
	return append(runs, args[start:])
}

// runCovered runs the covered program once more into the counters; its
// time adds to run's, its output replaces run's.
func runCovered(run *CoverRun, bin string, args []string, counters string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOCOVERDIR="+counters)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	run.Elapsed, run.Output = run.Elapsed+time.Since(start), string(out)
	for _, line := range strings.Split(run.Output, "\n") {
		if strings.HasPrefix(line, "rarest ") { // a sweep's rarest conjunctions (sim/pairs.go)
			run.Rarest = append(run.Rarest, line)
		}
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		run.ExitCode = exit.ExitCode()
	case err != nil:
		return err
	}
	return nil
}

// ImportPath resolves a package pattern that names one package.
func ImportPath(pattern string) (string, error) {
	paths, err := importPaths([]string{pattern})
	if err != nil {
		return "", err
	}
	return paths[0], nil
}

// importPaths resolves package patterns to import paths, one each.
func importPaths(patterns []string) ([]string, error) {
	var out []string
	for _, p := range patterns {
		s, err := goOutput("list", "-f", "{{.ImportPath}}", p)
		if err != nil {
			return nil, err
		}
		f := strings.Fields(s)
		if len(f) != 1 {
			return nil, fmt.Errorf("%s: want exactly one package, got %d", p, len(f))
		}
		out = append(out, f[0])
	}
	return out, nil
}

// goRun runs the go command with extra environment; a failure carries the
// first line of its standard error.
func goRun(env []string, args ...string) error {
	return goRunContext(context.Background(), env, args...)
}

// goRunContext is goRun, stopped when ctx is done.
func goRunContext(ctx context.Context, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, goTool(), args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v: %s", args[0], err, firstLine(string(out)))
	}
	return nil
}
