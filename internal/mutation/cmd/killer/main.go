package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	cfg, lo, hi, cat, err := parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "killer: %v\n", err)
		return 2
	}
	// A seed's live heap is about 1 MB: the CLI's sweep raises GOGC for
	// the same reason (see cmd/durasim/sweep.go). It changes no result.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	design, _ := model.LookupDesign(cfg.Variant)
	sum := sim.NewSummary(design.Name)
	rn := sim.NewRunner()
	picked := sim.SweepRoundTrip() // the seeds replayed at the end, as the CLI's sweep does
	for seed := lo; ; seed++ {
		res, err := rn.Run(cfg, seed)
		if err != nil {
			fmt.Fprintf(stderr, "killer: %v\n", err)
			return 2
		}
		if res.Failed() {
			fmt.Fprintf(stdout, "violation seed %d: %s\n", seed, res.Violations[0])
			return 1
		}
		picked.Add(res)
		sum.Add(res)
		if seed == hi {
			break
		}
	}
	// As the CLI's sweep: the picked seeds again with their traces kept
	// (each line read back into its event) and from their printed replay
	// commands, the same hashes.
	if err := picked.Verify(cfg); err != nil {
		fmt.Fprintf(stdout, "replicate: %v\n", err)
		return 1
	}
	sum.Write(stdout, design)
	fmt.Fprintf(stdout, "replayed    %s\n", picked)
	if cat.hi == 0 {
		return 0
	}
	return catalogue(rn, cfg, cat, stdout, stderr)
}

// seedRange is an inclusive range of seeds; hi 0 is none.
type seedRange struct{ lo, hi uint64 }

// catalogue checks that every naive variant fails some seed of r, as
// `durasim mutants` does, and prints how many were caught.
func catalogue(rn *sim.Runner, cfg sim.Config, r seedRange, stdout, stderr io.Writer) int {
	names := model.VariantNames()
	if len(names) == 0 { // a sweep of nothing would pass whatever the oracles do
		fmt.Fprintln(stdout, "catalogue: no naive variants registered")
		return 1
	}
	for _, name := range names {
		// The sweep must run the design it was asked for.
		if d, err := model.LookupDesign(name); err != nil || d.Name != name {
			fmt.Fprintf(stdout, "catalogue: variant %s is not the design looked up by its name (%v)\n", name, err)
			return 1
		}
		cfg.Variant = name
		caught := false
		for seed := r.lo; ; seed++ {
			res, err := rn.Run(cfg, seed)
			if err != nil {
				fmt.Fprintf(stderr, "killer: %v\n", err)
				return 2
			}
			if caught = res.Failed(); caught || seed == r.hi {
				break
			}
		}
		if !caught {
			fmt.Fprintf(stdout, "catalogue: variant %s not caught in seeds %d:%d\n", name, r.lo, r.hi)
			return 1
		}
	}
	fmt.Fprintf(stdout, "catalogue   all %d naive variants caught in seeds %d:%d\n", len(names), r.lo, r.hi)
	return 0
}

// parse reads the flags into the CLI's configuration for `run -seeds`.
func parse(args []string) (cfg sim.Config, lo, hi uint64, cat seedRange, err error) {
	fs := flag.NewFlagSet("killer", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seeds := fs.String("seeds", "1:2000", "seed range A:B (inclusive)")
	variant := fs.String("variant", "correct", "design: correct or a naive variant")
	catSeeds := fs.String("catalogue", "", "seed range A:B: also check every naive variant is caught in it")
	if err = fs.Parse(args); err != nil {
		return cfg, 0, 0, cat, err
	}
	if fs.NArg() > 0 {
		return cfg, 0, 0, cat, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if lo, hi, err = parseRange("-seeds", *seeds); err != nil {
		return cfg, 0, 0, cat, err
	}
	if *catSeeds != "" {
		if cat.lo, cat.hi, err = parseRange("-catalogue", *catSeeds); err != nil {
			return cfg, 0, 0, cat, err
		}
		if cat.lo == 0 {
			return cfg, 0, 0, cat, fmt.Errorf("invalid -catalogue %q: seeds start at 1", *catSeeds)
		}
	}
	cfg = sim.DefaultConfig()
	cfg.Variant = *variant
	cfg.StopOnViolation = true // as the CLI's sweep sets it
	if err = cfg.Validate(); err != nil {
		return cfg, 0, 0, cat, errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return cfg, lo, hi, cat, nil
}

func parseRange(flag, s string) (lo, hi uint64, err error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.ParseUint(a, 10, 64)
	hi, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || hi < lo {
		return 0, 0, fmt.Errorf("invalid %s %q: want A:B with A <= B", flag, s)
	}
	return lo, hi, nil
}
