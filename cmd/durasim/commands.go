package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

func cmdRun(args []string, stdout, stderr io.Writer) error {
	if _, ok := targetOf(args); ok {
		return cmdTarget("run", args, stdout, stderr) // target.go
	}
	if hasScenarioFlag(args) && !hasHelpFlag(args) {
		return runScenario(args, stdout) // report.go
	}
	f := newSimFlags("run", stderr)
	f.withSeeds()
	check := f.fs.Bool("check-determinism", false, "run every seed twice and compare the traces")
	sw := addSweepFlags(f.fs) // sweep.go: -parallel, -json, -shard
	exhaustive := f.fs.Bool("exhaustive", false, "every single-fault plan and every pair, on a small workload (2 tenants, 3 docs, 2 workers)")
	f.fs.String("scenario", "", "run a course scenario (or all): every arm, every check; takes no other flag")
	if err := f.parse(args); err != nil {
		return err
	}
	if *exhaustive {
		if f.backend != "memory" {
			return usageErr("-exhaustive runs on the model only: drop -backend")
		}
		seed, err := f.seedRange(1)
		if err != nil {
			return err
		}
		if seed.lo != seed.hi {
			return usageErr("-exhaustive runs one seed: give -seed, not -seeds")
		}
		if extra := setFlagsBut(f.fs, "exhaustive", "variant", "seed", "seeds", "backend"); extra != "" {
			return usageErr("-exhaustive runs its own workload (2 tenants, 3 docs, 2 workers) and plans: drop %s", extra)
		}
		return runExhaustive(f.variant, seed.lo, stdout) // exhaustive.go
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	defer closeBackend(cfg)
	if cfg.Backend != nil && sw.parallel > 1 {
		// One store, one scheduler: a SQL backend runs its seeds in order.
		if explicit(f.fs, "parallel") {
			fmt.Fprintf(stderr, "durasim: -backend %s runs seeds one at a time: -parallel %d ignored\n", cfg.Backend.Name(), sw.parallel)
		}
		sw.parallel = 1
	}
	rng, err := f.seedRange(1)
	if err != nil {
		return err
	}
	if !f.seedGiven() {
		// A user who typed `durasim run` alone should know what ran.
		fmt.Fprintln(stderr, "durasim: no -seed or -seeds: running seed 1 (-seeds 1:1000 sweeps a thousand)")
	}
	seeds, err := sw.seeds(rng, cfg, explicit(f.fs, "parallel"), stderr)
	if err != nil {
		return err
	}
	if *check {
		return checkDeterminism(cfg, seeds, sw.json, f.reproducer(""), stdout)
	}
	return sw.sweep(cfg, seeds, f.reproducer(sw.htmlDir), stdout, stderr)
}

// determinismLine is the JSON line of run -check-determinism -json for
// one seed.
type determinismLine struct {
	Type          string `json:"type"` // "determinism"
	Seed          uint64 `json:"seed"`
	Deterministic bool   `json:"deterministic"`
	Hash          string `json:"hash"`
	Line          int    `json:"line,omitempty"`   // the first trace line that differs
	First         string `json:"first,omitempty"`  // that line in the first run
	Second        string `json:"second,omitempty"` // and in the second
	Diff          string `json:"diff,omitempty"`
	Reproduce     string `json:"reproduce,omitempty"`
}

func checkDeterminism(cfg sim.Config, seeds []uint64, asJSON bool, rp *sim.Reproducer, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	for _, seed := range seeds {
		hash, div, err := sim.CheckDeterminism(cfg, seed)
		if err != nil {
			return runErrAt(err, rp)
		}
		l := determinismLine{Type: "determinism", Seed: seed, Deterministic: div == nil, Hash: fmt.Sprintf("%016x", hash)}
		if div != nil {
			l.Line, l.First, l.Second, l.Diff = div.Line, div.First, div.Second, div.Diff
			l.Reproduce, _ = rp.Line("run", "", cfg, seed)
			if l.Reproduce != "" {
				l.Reproduce += " -check-determinism"
			}
		}
		switch {
		case asJSON:
			if err := enc.Encode(l); err != nil {
				return err
			}
		case div != nil:
			fmt.Fprintf(stdout, "seed %d is NOT deterministic: first diverging line %d\n  run 1: %s\n  run 2: %s\n%s",
				seed, div.Line, div.First, div.Second, div.Diff)
		default:
			fmt.Fprintf(stdout, "seed %d deterministic: two runs, hash %016x\n", seed, hash)
		}
		if div != nil {
			return errViolation
		}
	}
	return nil
}

func cmdReplay(args []string, stdout, stderr io.Writer) error {
	if _, ok := targetOf(args); ok {
		return cmdTarget("replay", args, stdout, stderr)
	}
	var html string
	f, cfg, seed, err := oneSeed("replay", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&html, "html", "", "also write the run as an interactive timeline to this HTML file (a failing run: its shrunk counterexample first)")
	})
	if err != nil {
		return err
	}
	defer closeBackend(cfg)
	if err := checkHTMLFile(html); err != nil {
		return err
	}
	rp := f.reproducer("")
	cfg.KeepTrace = true
	res, err := sim.Run(cfg, seed)
	if err != nil {
		return runErrAt(err, rp)
	}
	for _, line := range res.Trace {
		fmt.Fprintln(stdout, line)
	}
	for _, v := range res.Violations {
		fmt.Fprintf(stderr, "violation: %s\n", v)
	}
	fmt.Fprintf(stdout, "hash %s\n", res.HashHex())
	if html != "" {
		if err := replayPage(html, cfg, res, rp, stderr); err != nil {
			return afterRun(err, res.Failed(), stderr)
		}
	}
	if res.Failed() {
		return errViolation
	}
	return nil
}

func cmdShrink(args []string, stdout, stderr io.Writer) error {
	if _, ok := targetOf(args); ok {
		return cmdTarget("shrink", args, stdout, stderr)
	}
	f, cfg, seed, err := oneSeed("shrink", args, stderr)
	if err != nil {
		return err
	}
	defer closeBackend(cfg)
	res, err := sim.Run(cfg, seed)
	if err != nil {
		return runErrAt(err, f.reproducer(""))
	}
	if !res.Failed() {
		fmt.Fprintf(stdout, "seed %d violates no invariant: nothing to shrink\n", seed)
		return nil
	}
	sh, err := sim.Shrink(cfg, seed, res, 0)
	if err != nil {
		return err
	}
	sim.WriteFailure(stdout, cfg, res, sh, f.reproducer(""))
	return errViolation
}

func cmdScenarios(args []string, stdout, stderr io.Writer) error {
	if err := parseFlags(flag.NewFlagSet("durasim scenarios", flag.ContinueOnError), args, stderr); err != nil {
		return err
	}
	for _, s := range scenarios.All() {
		fmt.Fprintf(stdout, "%-22s %s\n", s.Name, s.Title.En)
	}
	return nil
}

// hasHelpFlag reports whether args ask for -h.
func hasHelpFlag(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

// setFlagsBut lists the flags the command line set, except those named.
func setFlagsBut(fs *flag.FlagSet, except ...string) string {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(except, f.Name) {
			set = append(set, "-"+f.Name)
		}
	})
	return strings.Join(set, " ")
}

// explicit reports whether the command line set flag name.
func explicit(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// oneSeed parses the flags of a single-seed command (replay, shrink);
// extra adds the command's own flags.
func oneSeed(name string, args []string, stderr io.Writer, extra ...func(*flag.FlagSet)) (*simFlags, sim.Config, uint64, error) {
	f := newSimFlags(name, stderr)
	for _, add := range extra {
		add(f.fs)
	}
	if err := f.parse(args); err != nil {
		return f, sim.Config{}, 0, err
	}
	cfg, err := f.config()
	if err != nil {
		return f, cfg, 0, err
	}
	seed, err := f.requireSeed()
	if err != nil {
		closeBackend(cfg)
	}
	return f, cfg, seed, err
}

// afterRun is the status of a command whose run is over when err (writing
// its output) happened: a violation found is still status 1, with the
// error said on stderr; otherwise err stands.
func afterRun(err error, violated bool, stderr io.Writer) error {
	if !violated {
		return err
	}
	fmt.Fprintf(stderr, "durasim: %s\n", oneLine(err.Error()))
	return errViolation
}
