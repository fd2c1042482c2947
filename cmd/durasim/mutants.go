package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/durasim/durasim/internal/catchtime"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// mutantRow is one variant's line of the mutants table (and JSON).
type mutantRow struct {
	Name         string    `json:"name"`
	Source       string    `json:"source"`
	Caught       bool      `json:"caught"`
	CaughtTrials int       `json:"caught_trials"`
	Invariants   []string  `json:"invariants"`
	FirstSeed    uint64    `json:"first_seed,omitempty"`
	Seeds        statBlock `json:"seeds_to_first_catch"`
	WallMS       statBlock `json:"wall_ms_to_first_catch"`
	// TimeToCatch is the headline: seeds to catch times the seconds a
	// seed of this variant's search costs, the median over trials.
	TimeToCatch catchtime.Figure `json:"time_to_catch"`
	Shrunk      *sizeJSON        `json:"shrunk,omitempty"`
	Reproduce   string           `json:"reproduce,omitempty"`
	Exposing    []string         `json:"exposing_boundaries,omitempty"`
}

type statBlock struct {
	Median float64   `json:"median"`
	Worst  float64   `json:"worst"`
	Trials []float64 `json:"trials"`
}

type sizeJSON struct {
	Faults  int    `json:"faults"`
	Jobs    int32  `json:"jobs"`
	Workers int32  `json:"workers"`
	Events  uint64 `json:"events"`
	Plan    string `json:"plan"`
}

type mutantsReport struct {
	Seeds    string      `json:"seeds"`
	Trials   int         `json:"trials"`
	Correct  correctJSON `json:"correct"`
	Variants []mutantRow `json:"variants"`
}

type correctJSON struct {
	Seeds      int      `json:"seeds"`
	Violations int      `json:"violations"`
	Failed     []uint64 `json:"failed_seeds,omitempty"`
}

// search is the outcome of one (variant, trial) search for a first catch.
type search struct {
	res   *sim.Result
	tried int
	wall  time.Duration
}

func cmdMutants(args []string, stdout, stderr io.Writer) error {
	if t, ok := targetOf(args); ok && t == "asynq" {
		return cmdMutantsAsynq(args, stdout, stderr) // chaos_asynq.go
	}
	if _, ok := targetOf(args); ok {
		return cmdTarget("mutants", args, stdout, stderr) // target_mutants.go
	}
	fs := flag.NewFlagSet("durasim mutants", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seeds := fs.String("seeds", "1:1000", fmt.Sprintf("seed range A:B searched for each variant (and run over the correct design), at most %d seeds", maxSeeds))
	trials := fs.Int("trials", 1, "repeat the search from this many disjoint seed ranges of the same length, 1 to 1000")
	asJSON := fs.Bool("json", false, "print one JSON object")
	exhaustive := fs.Bool("exhaustive", false, "list, per variant, the boundaries whose single faults expose it (small workload)")
	which := fs.String("variants", "", "comma-separated subset of variants (default: all)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	names, err := variantList(*which)
	if err != nil {
		return err
	}
	if *exhaustive {
		if extra := setFlagsBut(fs, "exhaustive", "variants", "json"); extra != "" {
			return usageErr("-exhaustive runs its own workload and plans: drop %s", extra)
		}
		return mutantsExhaustive(names, *asJSON, stdout)
	}
	if *trials < 1 || *trials > 1000 {
		return usageErr("-trials must be between 1 and 1000 (got %d)", *trials)
	}
	list, err := trialSeeds(*seeds, *trials)
	if err != nil {
		return err
	}
	rep := mutantsSweep(names, list, *trials)
	rep.Seeds = *seeds
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		writeMutants(stdout, rep)
	}
	if rep.Correct.Violations > 0 {
		return errViolation
	}
	for _, r := range rep.Variants {
		if !r.Caught {
			return errViolation
		}
	}
	return nil
}

func variantList(which string) ([]string, error) {
	all := model.VariantNames()
	if len(all) == 0 { // "all caught" of nothing would say nothing
		return nil, errors.New("no naive variants are registered: nothing to check")
	}
	if which == "" {
		return all, nil
	}
	var out []string
	for _, name := range strings.Split(which, ",") {
		if !slices.Contains(all, name) {
			return nil, usageErr("unknown variant %q (known: %s)", name, strings.Join(all, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// mutantsSweep searches every (variant, trial) in parallel — each seed is
// still one single-threaded deterministic run — shrinks the first catch of
// trial 0, and runs the first range over the correct design.
func mutantsSweep(names []string, seeds []uint64, trials int) *mutantsReport {
	results := make([][]search, len(names))
	for i := range results {
		results[i] = make([]search, trials)
	}
	parallelDo(len(names)*trials, func(k int) {
		v, t := k/trials, k%trials
		results[v][t] = firstCatch(names[v], shifted(seeds, t))
	})
	rep := &mutantsReport{Trials: trials, Variants: make([]mutantRow, len(names))}
	parallelDo(len(names), func(v int) { rep.Variants[v] = mutantRowOf(names[v], results[v]) })
	rep.Correct = correctSweep(seeds)
	return rep
}

// trialSeeds lists the range A:B of -seeds, checking that its -trials
// shifted copies stay within uint64.
func trialSeeds(text string, trials int) ([]uint64, error) {
	r, err := parseRange(text)
	if err != nil {
		return nil, err
	}
	list, err := r.list(0, 1)
	if err != nil {
		return nil, err
	}
	if n := uint64(len(list)); (math.MaxUint64-r.hi)/n < uint64(trials-1) {
		return nil, usageErr("invalid -seeds %s with -trials %d: the last trial's seeds would pass %d", text, trials, uint64(math.MaxUint64))
	}
	return list, nil
}

// shifted is the t-th disjoint range of the same length as seeds.
func shifted(seeds []uint64, t int) []uint64 {
	out := make([]uint64, len(seeds))
	for i, s := range seeds {
		out[i] = s + uint64(t*len(seeds))
	}
	return out
}

func firstCatch(variant string, seeds []uint64) search {
	cfg := sim.DefaultConfig()
	cfg.Variant, cfg.StopOnViolation = variant, true
	start := time.Now()
	rn := sim.NewRunner()
	for i, seed := range seeds {
		res, err := rn.Run(cfg, seed)
		if err == nil && res.Failed() {
			return search{res: res, tried: i + 1, wall: time.Since(start)}
		}
	}
	return search{tried: len(seeds), wall: time.Since(start)}
}

func mutantRowOf(name string, trials []search) mutantRow {
	d, _ := model.LookupDesign(name)
	row := mutantRow{Name: name, Source: d.Source}
	var wall time.Duration
	ran := 0
	for _, s := range trials {
		row.Seeds.Trials = append(row.Seeds.Trials, float64(s.tried))
		row.WallMS.Trials = append(row.WallMS.Trials, float64(s.wall.Microseconds())/1000)
		wall, ran = wall+s.wall, ran+s.tried
		if s.res != nil {
			row.CaughtTrials++
		}
	}
	row.Seeds.Median, row.Seeds.Worst = catchtime.MedianWorst(row.Seeds.Trials)
	row.WallMS.Median, row.WallMS.Worst = catchtime.MedianWorst(row.WallMS.Trials)
	row.TimeToCatch = catchtime.Of(row.Seeds.Trials, wall, ran)
	first := trials[0].res
	if first == nil {
		return row
	}
	row.Caught, row.FirstSeed = true, first.Seed
	for _, v := range first.Violations {
		if !slices.Contains(row.Invariants, v.Invariant) {
			row.Invariants = append(row.Invariants, v.Invariant)
		}
	}
	cfg := sim.DefaultConfig()
	cfg.Variant = name
	if sh, err := sim.Shrink(cfg, first.Seed, first, 0); err == nil {
		c := sh.Config
		row.Shrunk = &sizeJSON{Faults: c.Plan.Len(), Jobs: c.DocCount(), Workers: c.Workers, Events: sh.Result.Events, Plan: c.Plan.OneLine()}
		row.Reproduce, _ = (*simFlags)(nil).reproducer("").Line("replay", "", c, sh.Seed)
	}
	return row
}

func correctSweep(seeds []uint64) correctJSON {
	cfg := sim.DefaultConfig()
	cfg.StopOnViolation = true
	failed := make([]bool, len(seeds))
	parallelDo(len(seeds), func(i int) {
		res, err := sim.Run(cfg, seeds[i])
		failed[i] = err != nil || res.Failed()
	})
	out := correctJSON{Seeds: len(seeds)}
	for i, f := range failed {
		if f {
			out.Violations++
			out.Failed = append(out.Failed, seeds[i])
		}
	}
	return out
}

// parallelDo runs f(0..n-1) on as many goroutines as there are CPUs.
func parallelDo(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.NumCPU(), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func writeMutants(w io.Writer, rep *mutantsReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\tcaught\tinvariant(s)\tseeds to catch\twall to catch\ttime to catch\tshrunk faults/jobs/workers/events\n")
	for _, r := range rep.Variants {
		caught := "NO"
		if r.Caught {
			caught = fmt.Sprintf("yes %d/%d", r.CaughtTrials, rep.Trials)
		}
		seeds, wall := fmt.Sprintf("%.0f", r.Seeds.Trials[0]), fmt.Sprintf("%.1fms", r.WallMS.Trials[0])
		ttc := fmt.Sprintf("%.1fms", 1000*r.TimeToCatch.Trials[0])
		if rep.Trials > 1 {
			seeds = fmt.Sprintf("median %.0f, worst %.0f", r.Seeds.Median, r.Seeds.Worst)
			wall = fmt.Sprintf("median %.1fms", r.WallMS.Median)
			ttc = fmt.Sprintf("median %.1fms", 1000*r.TimeToCatch.MedianSeconds)
		}
		size := "-"
		if s := r.Shrunk; s != nil {
			size = fmt.Sprintf("%d/%d/%d/%d", s.Faults, s.Jobs, s.Workers, s.Events)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, caught, strings.Join(r.Invariants, ","), seeds, wall, ttc, size)
	}
	tw.Flush()
	fmt.Fprintf(w, "\ncorrect design over seeds %s: %d seeds, %d with a violation\n", rep.Seeds, rep.Correct.Seeds, rep.Correct.Violations)
	for _, r := range rep.Variants {
		if r.Shrunk != nil {
			fmt.Fprintf(w, "  %-22s %s\n", r.Name, r.Reproduce)
		}
	}
}
