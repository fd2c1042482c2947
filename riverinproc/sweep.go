package riverinproc

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/internal/bubble"
)

// Failure is a failing seed: its first run's report, and how often it
// failed again when run Reruns more times.
type Failure struct {
	Seed       uint64
	Report     *workload.Report
	Reproduced int // failing reruns
	Reruns     int
	Command    string // the command that runs the seed again
	// Deterministic is the search for a deterministic targetsim plan
	// that fails the same check: its Shrunk is nil when none did.
	Deterministic *Shrinking
}

// Result is a sweep's outcome.
type Result struct {
	Seeds    int
	Reports  []*workload.Report // each seed's first run
	Failures []Failure
	Real     time.Duration // the machine's time
}

// Sweep runs c's seeds in bubbles of r, one at a time, writing a line per
// seed to w; a failing seed's report is written whole, then the seed is
// run Reruns more times (the seed picks durasim's choices, Go's
// scheduler still interleaves River's goroutines: a failure may not come
// back every time) and its line says how often it did, with the command
// that runs it again (cli: how the user runs durasim).
func Sweep(r *bubble.Runner, c Config, w io.Writer, cli string) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	lo, hi, _ := c.SeedRange()
	res := &Result{}
	t0 := time.Now()
	for seed := lo; seed <= hi; seed++ {
		o, err := runSeed(r, c, seed)
		if err != nil {
			return res, fmt.Errorf("seed %d: %w (rerun: %s)", seed, err, c.Command(cli, seed))
		}
		rep := o.rep
		res.Seeds++
		res.Reports = append(res.Reports, rep)
		if rep.OK() {
			fmt.Fprintf(w, "seed %d: ok (kills %d, freezes %d, takeovers %d, jobs %d; River's time %v, %v real)\n", seed, rep.TotalKills(),
				rep.Pauses, rep.Takeovers, rep.Inserts-rep.Skipped, (rep.KillPhase + rep.DrainPhase).Round(time.Millisecond), rep.Elapsed.Round(time.Millisecond))
			continue
		}
		f := Failure{Seed: seed, Report: rep, Reruns: c.Reruns, Command: c.Command(cli, seed)}
		fmt.Fprintf(w, "seed %d: FAILED: %s\n", seed, violated(rep))
		rep.Print(w)
		for range c.Reruns {
			again, err := RunSeed(r, c, seed)
			if err != nil {
				return res, fmt.Errorf("seed %d, rerun: %w", seed, err)
			}
			if !again.OK() {
				f.Reproduced++
			}
		}
		sg, err := deterministic(context.Background(), c, seed, o, cli)
		if err != nil {
			return res, fmt.Errorf("seed %d, shrinking: %w", seed, err)
		}
		f.Deterministic = sg
		res.Failures = append(res.Failures, f)
		fmt.Fprintf(w, "seed %d: reproduced %d of %d reruns; run it again: %s\n", seed, f.Reproduced, f.Reruns, f.Command)
		fmt.Fprintf(w, "seed %d: %s\n\n", seed, sg.Line())
	}
	res.Real = time.Since(t0)
	fmt.Fprintf(w, "river in-process: %d seeds, %d failed (%v real)\n", res.Seeds, len(res.Failures), res.Real.Round(time.Millisecond))
	for _, f := range res.Failures {
		fmt.Fprintf(w, "  seed %d: %s; reproduced %d of %d: %s\n", f.Seed, violated(f.Report), f.Reproduced, f.Reruns, f.Command)
		fmt.Fprintf(w, "    %s\n", f.Deterministic.Line())
	}
	return res, nil
}

// violated names the checks a report failed.
func violated(rep *workload.Report) string {
	var names []string
	for _, v := range rep.Violations {
		if len(names) == 0 || names[len(names)-1] != v.Invariant {
			names = append(names, v.Invariant)
		}
	}
	for _, v := range rep.Checks {
		if v.Failed != "" {
			names = append(names, v.Check)
		}
	}
	return strings.Join(names, ", ")
}

// Line says what the search found: the shrunk plan's command, or that
// no candidate failed the same check.
func (s *Shrinking) Line() string {
	if s.Shrunk == nil {
		return fmt.Sprintf("no deterministic plan reproduces %s (%d candidate plan(s) from the run's record tried on the deterministic mode, %v)",
			s.Check, s.Tried, s.Real.Round(time.Millisecond))
	}
	return fmt.Sprintf("shrunk to a deterministic plan failing %s (%d candidate(s), %d shrinking runs, %v): %s",
		s.Check, s.Tried, s.Shrunk.Runs, s.Real.Round(time.Millisecond), s.Shrunk.Command)
}
