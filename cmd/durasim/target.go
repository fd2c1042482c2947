package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// targetOf reports the value of a -target flag among args, if any.
func targetOf(args []string) (string, bool) {
	for i, a := range args {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "target" {
			continue
		}
		if hasVal {
			return val, true
		}
		if i+1 < len(args) {
			return args[i+1], true
		}
		return "", true
	}
	return "", false
}

// targetSystems lists the systems -target names, with what each is.
func targetSystems() string {
	var out []string
	for _, name := range target.Systems() {
		sys, _ := target.Lookup(name)
		out = append(out, name+" ("+sys.About()+")")
	}
	return strings.Join(out, ", ")
}

// targetReproducer prints a target failure's commands as the user runs
// durasim where they are.
func targetReproducer() *targetsim.Reproducer {
	cli := repro.SelfCLI(sim.CLIProg)
	return &targetsim.Reproducer{CLI: cli.Command, Install: cli.Install}
}

// targetFlags are the flags of a run against a target (-target river).
// The settings every system shares are the CLI's (-backend, -db,
// -scratch-db); the system registers its own (target.CLISystem.Flags).
type targetFlags struct {
	fs          *flag.FlagSet
	stderr      io.Writer
	target      string
	sys         target.CLISystem // nil: -target names no system the CLI opens
	opener      target.Opener
	seed, seeds string
	design      string
	workers     int
	docs        int
	tenants     int
	maxAttempts int
	plan        string
	planFile    string
	swarm       bool
	swarmClocks bool
	races       bool
	only        string
	backend     string
	db          string
	scratchDB   bool
	jsonOut     bool
	reach       bool
	check       bool
	parallel    int
	shard       string
	trials      int          // mutants
	pages       *targetPages // html_target.go
}

// cliSystem is the system the CLI opens as -target name (nil: none).
func cliSystem(name string) target.CLISystem {
	sys, _ := target.Lookup(name)
	cs, _ := sys.(target.CLISystem)
	return cs
}

// newTargetFlags are the flags of verb against the system named system
// (the -target value among the command's arguments): the run's, and the
// system's own.
func newTargetFlags(verb string, stderr io.Writer, system string) *targetFlags {
	d := targetsim.DefaultConfig()
	f := &targetFlags{fs: flag.NewFlagSet("durasim "+verb, flag.ContinueOnError), stderr: stderr, sys: cliSystem(system)}
	fs := f.fs
	fs.StringVar(&f.target, "target", "", "the queue to test: "+targetSystems())
	fs.StringVar(&f.seed, "seed", "", "seed to run (an unsigned 64-bit integer)")
	var designs []string
	for _, d := range targetsim.Designs() {
		designs = append(designs, d.String())
	}
	fs.StringVar(&f.design, "design", d.Design.String(), "handler design: "+strings.Join(designs, ", "))
	fs.IntVar(&f.workers, "workers", d.Workers, fmt.Sprintf("worker clients, 1 to %d", targetsim.MaxWorkers))
	fs.IntVar(&f.docs, "docs", d.Docs, fmt.Sprintf("documents the clients insert, 1 to %d", targetsim.MaxDocs))
	fs.IntVar(&f.tenants, "tenants", d.Tenants, fmt.Sprintf("tenants (their documents share names), 1 to %d", targetsim.MaxTenants))
	fs.IntVar(&f.maxAttempts, "max-attempts", d.MaxAttempts, fmt.Sprintf("each job's max_attempts, 1 to %d", targetsim.MaxMaxAttempts))
	fs.StringVar(&f.plan, "plan", "", "explicit fault plan, in the model's form, faults separated by newlines or ';' (crash after_effect nth=1 worker=w1; pause after_fetch nth=1 worker=* for=15s; crash rescuer_after_stuck nth=1; slow doc=3 attempt=1 for=14s; transient doc=2 attempt=*; cancel doc=4 attempt=1; snooze doc=5 attempt=1 for=3s; resubmit doc=1 at=2s; redrive doc=2; few-attempts doc=3 max=1)")
	fs.StringVar(&f.planFile, "plan-file", "", "file holding an explicit fault plan (at most 1 MiB)")
	fs.BoolVar(&f.swarm, "swarm", true, "add the seed's random faults (swarm testing) to the plan")
	fs.BoolVar(&f.swarmClocks, "swarm-clocks", true, "let the swarm draw the clock faults (clock-ahead, clock-behind, zone, dst) the target's clocks take")
	fs.BoolVar(&f.races, "races", false, "races mode (-backend postgres): each actor on a connection of its own, calls overlapping inside the database on its row locks, the handler's transaction a call per step with seed-drawn gaps")
	fs.StringVar(&f.only, "only", "", "keep only these documents (comma-separated 1-based indices), as the shrinker prints")
	backends, def := []string{backendSQLite, backendPostgres}, ""
	if f.sys != nil {
		backends = f.sys.Backends()
		def = backends[0]
	}
	fs.StringVar(&f.backend, "backend", def, "the target's database: "+backendsText(backends))
	fs.StringVar(&f.db, "db", "", "postgres: the database URL (default $"+pgURLEnv+")")
	fs.BoolVar(&f.scratchDB, "scratch-db", false, "postgres: run in a new database made on -db's server and dropped at the end")
	if f.sys != nil {
		f.opener = f.sys.Flags(fs)
	}
	if verb == "run" || verb == "mutants" {
		fs.StringVar(&f.seeds, "seeds", "", "seed range A:B (inclusive); mutants: 1:200 unless given")
	}
	f.pages = addTargetPageFlags(fs, verb)
	if verb == "mutants" {
		addTargetMutantsFlags(f) // target_mutants.go: -trials, -json
	}
	if verb == "run" {
		fs.BoolVar(&f.jsonOut, "json", false, "print the summary as JSON (its reach table among it)")
		fs.BoolVar(&f.reach, "reach", false, "print the reach table after the summary: per feature, the seeds that reached it")
		fs.BoolVar(&f.check, "check-determinism", false, "run every seed twice and compare the traces")
		fs.IntVar(&f.parallel, "parallel", runtime.GOMAXPROCS(0), fmt.Sprintf("seeds run at once, 1 to %d, each on a database of its own (postgres: with -scratch-db); results are folded in seed order, so the output does not depend on it", maxParallel))
		fs.StringVar(&f.shard, "shard", "", shardUsage)
	}
	return f
}

// The databases the CLI knows how to give a target: an in-memory SQLite
// database, or a PostgreSQL one by URL (-db, -scratch-db).
const (
	backendSQLite   = "sqlite"
	backendPostgres = "postgres"
)

// backendsText says what each backend is, for -backend's help.
func backendsText(backends []string) string {
	var out []string
	for _, b := range backends {
		if b == backendSQLite {
			b += " (in memory)"
		}
		out = append(out, b)
	}
	return strings.Join(out, " or ")
}

// isTargetFlag reports whether -name is a flag of verb against some
// system the CLI opens.
func isTargetFlag(verb, name string) bool {
	for _, s := range target.Systems() {
		if newTargetFlags(verb, io.Discard, s).fs.Lookup(name) != nil {
			return true
		}
	}
	return newTargetFlags(verb, io.Discard, "").fs.Lookup(name) != nil
}

// config builds the run's configuration from the flags.
func (f *targetFlags) config() (targetsim.Config, error) {
	c := targetsim.DefaultConfig()
	if f.sys == nil || f.sys.Name() != f.target {
		var names []string
		for _, s := range target.Systems() {
			if cliSystem(s) != nil {
				names = append(names, s)
			}
		}
		return c, usageErr("unknown -target %q: want %s", f.target, strings.Join(names, " or "))
	}
	d, err := targetsim.LookupDesign(f.design)
	if err != nil {
		return c, usageErr("%v", err)
	}
	c.Design, c.Workers, c.Docs, c.Tenants, c.MaxAttempts, c.Swarm, c.SwarmClocks = d, f.workers, f.docs, f.tenants, f.maxAttempts, f.swarm, f.swarmClocks
	c.Races = f.races
	if c.Plan, err = readPlan(targetsim.Vocabulary(f.target), f.plan, f.planFile); err != nil {
		return c, err
	}
	if f.only != "" {
		for _, s := range strings.Split(f.only, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return c, usageErr("invalid -only %q: want comma-separated document numbers", f.only)
			}
			c.Only = append(c.Only, n)
		}
	}
	if err := c.Validate(); err != nil {
		return c, usageErr("%v", err)
	}
	return c, nil
}

// open opens the system's queue on the chosen database: the flags every
// system shares are checked against the backends it declares, its own
// are its opener's.
func (f *targetFlags) open() (target.Queue, func(), error) {
	backends := f.sys.Backends()
	if !slices.Contains(backends, f.backend) {
		return nil, nil, usageErr("invalid -backend %q for -target %s: want %s", f.backend, f.target, strings.Join(backends, " or "))
	}
	url, drop := "", func() error { return nil }
	switch f.backend {
	case backendPostgres:
		if url = f.db; url == "" {
			url = os.Getenv(pgURLEnv)
		}
		if url == "" {
			return nil, nil, usageErr("-backend postgres needs -db URL or $%s", pgURLEnv)
		}
		if f.scratchDB {
			scratch, d, err := pgtest.Scratch(url)
			if err != nil {
				return nil, nil, usageErr("-scratch-db: %v", err)
			}
			url, drop = scratch, d
		}
	default:
		if f.db != "" || f.scratchDB {
			return nil, nil, usageErr("-db and -scratch-db are for -backend postgres (%s runs in memory)", f.backend)
		}
	}
	q, err := f.opener(context.Background(), f.backend, url)
	if err != nil {
		_ = drop()
		return nil, nil, usageErr("%v", err)
	}
	return q, func() { _ = q.Close(); _ = drop() }, nil
}

// setup parses a target command's flags and opens the queue.
func setupTarget(verb string, args []string, stderr io.Writer) (*targetFlags, targetsim.Config, target.Queue, func(), error) {
	name, _ := targetOf(args)
	f := newTargetFlags(verb, stderr, name)
	if err := parseFlags(f.fs, args, stderr); err != nil {
		return nil, targetsim.Config{}, nil, nil, err
	}
	cfg, err := f.config()
	if err != nil {
		return nil, cfg, nil, nil, err
	}
	q, closeQ, err := f.open()
	if err != nil {
		return nil, cfg, nil, nil, err
	}
	if err := targetsim.PrepareRaces(q, cfg); err != nil {
		closeQ()
		return nil, cfg, nil, nil, usageErr("%v", err)
	}
	return f, cfg, q, closeQ, nil
}

// cmdTarget runs run, replay, shrink or mutants against a target.
func cmdTarget(verb string, args []string, stdout, stderr io.Writer) error {
	f, cfg, q, closeQ, err := setupTarget(verb, args, stderr)
	if err != nil {
		return err
	}
	defer closeQ()
	ctx := context.Background()
	switch verb {
	case "replay":
		seed, err := f.oneSeed()
		if err != nil {
			return err
		}
		if err := f.pages.check(1); err != nil {
			return err
		}
		return replayTarget(ctx, q, cfg, seed, f, stdout, stderr)
	case "shrink":
		seed, err := f.oneSeed()
		if err != nil {
			return err
		}
		return shrinkTarget(ctx, q, cfg, seed, f.target, f.backend, stdout)
	case "mutants":
		rng, err := f.seedList(1, 200)
		if err != nil {
			return err
		}
		return targetMutants(ctx, q, cfg, rng, f, stdout)
	}
	seeds, err := f.seedList(1, 1)
	if err != nil {
		return err
	}
	if err := f.pages.check(int(seeds.hi - seeds.lo + 1)); err != nil {
		return err
	}
	if f.check {
		if f.pages != nil && (f.pages.html != "" || f.pages.htmlDir != "") {
			return usageErr("-check-determinism compares traces and writes no page: drop -html and -html-dir")
		}
		return checkTargetDeterminism(ctx, q, cfg, seeds, stdout)
	}
	list, runners, closeAll, err := f.sweepRunners(ctx, q, cfg, seeds)
	if err != nil {
		return err
	}
	defer closeAll()
	return sweepTarget(ctx, q, cfg, seeds, list, runners, f, stdout, stderr)
}

// sweepRunners lists the shard's seeds and opens the queues that run them
// at once: q, and one more per -parallel goroutine, each on a database of
// its own.
func (f *targetFlags) sweepRunners(ctx context.Context, q target.Queue, cfg targetsim.Config, r seedRange) ([]uint64, []seedRunner[*targetsim.Result], func(), error) {
	if f.parallel < 1 || f.parallel > maxParallel {
		return nil, nil, nil, usageErr("invalid -parallel %d: want 1 to %d", f.parallel, maxParallel)
	}
	i, n := uint64(0), uint64(1)
	if f.shard != "" {
		var err error
		if i, n, err = parseShard(f.shard, os.LookupEnv); err != nil {
			return nil, nil, nil, err
		}
	}
	seeds, err := r.list(i, n)
	if err != nil {
		return nil, nil, nil, err
	}
	at := max(1, min(f.parallel, len(seeds)))
	if f.backend == backendPostgres && !f.scratchDB && at > 1 {
		if explicit(f.fs, "parallel") {
			return nil, nil, nil, usageErr("invalid -parallel %d: -backend postgres without -scratch-db has one database; give -scratch-db (a database per seed at once) or -parallel 1", f.parallel)
		}
		at = 1
	}
	queues := []target.Queue{q}
	closers := []func(){}
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	for len(queues) < at {
		more, closeMore, err := f.open()
		if err != nil {
			closeAll()
			return nil, nil, nil, err
		}
		queues, closers = append(queues, more), append(closers, closeMore)
	}
	runners := make([]seedRunner[*targetsim.Result], len(queues))
	for k, qk := range queues {
		runners[k] = func(seed uint64) (*targetsim.Result, error) { return targetsim.Run(ctx, qk, cfg, seed) }
	}
	return seeds, runners, closeAll, nil
}

func (f *targetFlags) oneSeed() (uint64, error) {
	if f.seed == "" {
		return 0, usageErr("give -seed N")
	}
	return parseSeed(f.seed)
}

// seedList is -seed N, -seeds A:B, or lo:hi.
func (f *targetFlags) seedList(lo, hi uint64) (seedRange, error) {
	switch {
	case f.seed != "" && f.seeds != "":
		return seedRange{}, usageErr("give -seed or -seeds, not both")
	case f.seeds != "":
		r, err := parseRange(f.seeds)
		if err == nil && r.hi-r.lo >= maxSeeds {
			err = usageErr("-seeds %s: at most %d seeds", f.seeds, maxSeeds)
		}
		return r, err
	case f.seed != "":
		s, err := parseSeed(f.seed)
		return seedRange{s, s}, err
	}
	return seedRange{lo, hi}, nil
}

// sweepTarget runs the seeds on the runners (runSeeds, as the model's
// sweep: results folded in seed order whatever -parallel is), prints the
// summary (text or JSON) and, for the first failing seed, its shrunk
// counterexample and the commands that reproduce it. SIGINT or SIGTERM
// stops it starting seeds: it prints the summary of the seeds that ran,
// marked interrupted, with the failure they found, and exits 130.
func sweepTarget(ctx context.Context, q target.Queue, cfg targetsim.Config, rng seedRange, seeds []uint64, runners []seedRunner[*targetsim.Result], f *targetFlags, stdout, stderr io.Writer) error {
	defer sweepGC(len(seeds))() // as the model's sweep: River's calls allocate about 1.2 MB a seed
	sum := targetsim.NewSummary()
	sum.Planned = len(seeds)
	var first *targetsim.Result
	bar := newProgress(stderr, len(seeds))
	intr := onInterrupt()
	err := runSeeds(intr.ctx, seeds, runners, func(res *targetsim.Result) {
		sum.Add(res)
		if res.Failed() && first == nil {
			first = res
		}
		bar.add()
	})
	bar.finish()
	if sig := intr.stop(); sig != "" {
		sum.Interrupted = sig
		fmt.Fprintf(stderr, "durasim: interrupted by %s after %d of %d seeds: finishing the summary of those (%s again stops at once)\n", sig, sum.Seeds, len(seeds), sig)
	}
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		sum.Print(stdout)
		if f.reach {
			sum.PrintReach(stdout)
		}
	}
	if first != nil && !f.jsonOut {
		if err := explainTargetFailure(ctx, q, cfg, first, f.target, f.backend, stdout); err != nil {
			return err
		}
	}
	pageErr := f.pages.swept(ctx, q, cfg, rng, sum.Failing, f.stderr)
	switch {
	case sum.Interrupted != "":
		if pageErr != nil {
			fmt.Fprintf(stderr, "durasim: %s\n", oneLine(pageErr.Error()))
		}
		return &exitError{code: exitInterrupted, err: errors.New("")}
	case pageErr != nil:
		return pageErr
	case first != nil:
		return errViolation
	}
	return nil
}

// explainTargetFailure prints a failing seed's story (targetsim.WriteFailure)
// with the commands that replay the seed and its shrunk counterexample
// against the system of the queue that ran (system and backend: what the
// command line opened it with, kept for the callers' pages).
func explainTargetFailure(ctx context.Context, q target.Queue, cfg targetsim.Config, res *targetsim.Result, system, backend string, w io.Writer) error {
	fmt.Fprintln(w)
	targetsim.WriteFailure(ctx, w, q, cfg, res, func(sh *targetsim.Shrunk) []string {
		return targetReproducer().Lines(q, cfg, res.Seed, sh)
	})
	return nil
}

func docsOf(c targetsim.Config) int {
	if c.Only != nil {
		return len(c.Only)
	}
	return c.Docs
}

func planText(p faults.Plan) string {
	if len(p.Faults) == 0 {
		return "(no fault)"
	}
	return p.OneLine()
}

func replayTarget(ctx context.Context, q target.Queue, cfg targetsim.Config, seed uint64, f *targetFlags, stdout, stderr io.Writer) error {
	cfg.KeepTrace = true
	res, err := targetsim.Run(ctx, q, cfg, seed)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	for _, line := range res.Trace {
		fmt.Fprintln(stdout, line)
	}
	for _, v := range res.Violations {
		fmt.Fprintf(stderr, "violation: %s\n", v)
	}
	if n := len(res.Exposures); n > 0 {
		fmt.Fprintf(stderr, "exposure: %d overlap(s) of two workers on one job\n", n)
	}
	fmt.Fprintf(stdout, "hash %s\n", res.HashHex())
	if res.Failed() {
		for _, line := range targetReproducer().Lines(q, cfg, seed, nil) {
			fmt.Fprintf(stderr, "reproduce: %s\n", line)
		}
	}
	if err := f.pages.replayed(ctx, q, cfg, res, stderr); err != nil {
		return err
	}
	if res.Failed() {
		return errViolation
	}
	return nil
}

func shrinkTarget(ctx context.Context, q target.Queue, cfg targetsim.Config, seed uint64, system, backend string, stdout io.Writer) error {
	res, err := targetsim.Run(ctx, q, cfg, seed)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if !res.Failed() {
		fmt.Fprintf(stdout, "seed %d violates no check: nothing to shrink\n", seed)
		return nil
	}
	if err := explainTargetFailure(ctx, q, cfg, res, system, backend, stdout); err != nil {
		return err
	}
	return errViolation
}

func checkTargetDeterminism(ctx context.Context, q target.Queue, cfg targetsim.Config, seeds seedRange, stdout io.Writer) error {
	cfg.KeepTrace = true
	for seed := seeds.lo; ; seed++ {
		a, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		b, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		if a.Hash != b.Hash {
			for i := range min(len(a.Trace), len(b.Trace)) {
				if a.Trace[i] != b.Trace[i] {
					fmt.Fprintf(stdout, "seed %d is NOT deterministic: first diverging line %d\n  run 1: %s\n  run 2: %s\n", seed, i+1, a.Trace[i], b.Trace[i])
					return errViolation
				}
			}
			fmt.Fprintf(stdout, "seed %d is NOT deterministic: %d lines against %d\n", seed, len(a.Trace), len(b.Trace))
			return errViolation
		}
		fmt.Fprintf(stdout, "seed %d deterministic: two runs, hash %s\n", seed, a.HashHex())
		if seed == seeds.hi {
			return nil
		}
	}
}
