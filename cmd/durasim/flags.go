package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"github.com/durasim/durasim/faults"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// simFlags are the flags that describe a simulation, shared by commands.
type simFlags struct {
	fs          *flag.FlagSet
	stderr      io.Writer
	seed        string
	seeds       string
	variant     string
	workers     int
	docs        int
	tenants     int
	only        string
	resubmit    string
	ordered     bool
	probeStatus bool
	tryCanceled bool
	edgeVers    bool
	wfEvery     int
	arrivalGap  time.Duration
	lease       time.Duration
	heartbeat   time.Duration
	maxAttempts int
	retention   time.Duration
	deadline    time.Duration
	tokenBudget int64
	reprocess   int
	backoff     string
	backoffBase time.Duration
	backoffCap  time.Duration
	breaker     string
	swarm       bool
	plan        string
	planFile    string
	backend     string
	db          string
	scratchDB   bool
	repro       string // -repro FILE
	// What -repro's file holds: its configuration (with the backend it
	// names, once opened) and seed; the Reproducer prints commands that
	// read the file and change what differs by flag.
	reproCfg  sim.Config
	reproSeed uint64
}

func newSimFlags(name string, stderr io.Writer) *simFlags {
	d := sim.DefaultConfig()
	f := &simFlags{fs: flag.NewFlagSet("durasim "+name, flag.ContinueOnError), stderr: stderr}
	f.fs.SetOutput(io.Discard) // errors are reported in one line by parse
	f.fs.StringVar(&f.seed, "seed", "", "seed to run (an unsigned 64-bit integer)")
	f.fs.StringVar(&f.variant, "variant", "correct", "design: correct or a naive variant ("+strings.Join(model.VariantNames(), ", ")+")")
	f.fs.IntVar(&f.workers, "workers", int(d.Workers), fmt.Sprintf("virtual workers, 1 to %d", sim.MaxWorkers))
	f.fs.IntVar(&f.docs, "docs", int(d.Docs), fmt.Sprintf("documents in the workload, 1 to %d (and docs × arrival gap at most %s)", sim.MaxDocs, time.Duration(sim.MaxArrivalSpan)))
	f.fs.IntVar(&f.tenants, "tenants", int(d.Tenants), fmt.Sprintf("tenants the documents belong to, 1 to %d (the last ids at the edges of the tenant pattern)", sim.MaxTenants))
	f.fs.StringVar(&f.only, "only", "", "keep only these documents (comma-separated 1-based indices), as the shrinker prints")
	f.fs.StringVar(&f.resubmit, "resubmit", "", "documents (comma-separated 1-based indices) whose client submits them a second time")
	f.fs.DurationVar(&f.arrivalGap, "arrival-gap", time.Duration(d.ArrivalGap), "mean time between document arrivals")
	f.fs.BoolVar(&f.tryCanceled, "try-cancelled", false, "the operator tries every round to bring back a cancelled job (it must be refused)")
	f.fs.BoolVar(&f.edgeVers, "edge-versions", false, "one document in eight comes at the largest operationVersion (2147483647): it has no next version to be reprocessed at")
	f.fs.IntVar(&f.wfEvery, "workflow-every", 0, "the job of every n-th document runs its stages as a durable workflow's activities (package workflow); 0: none")
	f.fs.BoolVar(&f.probeStatus, "probe-status", false, "every client queries the status of its job and of another job id")
	f.fs.BoolVar(&f.ordered, "ordered", false, "strictly ordered (FIFO) queue: only the oldest unfinished job may be leased")
	f.fs.DurationVar(&f.lease, "lease", time.Duration(d.Model.Lease), fmt.Sprintf("lease duration, longer than -heartbeat and at most %s", time.Duration(sim.MaxLease)))
	f.fs.DurationVar(&f.heartbeat, "heartbeat", time.Duration(d.Model.HeartbeatEvery), fmt.Sprintf("heartbeat interval, at least %s and shorter than -lease", time.Duration(sim.MinHeartbeat)))
	f.fs.IntVar(&f.maxAttempts, "max-attempts", int(d.Model.MaxAttempts), "attempt ceiling per job, 1 to 2147483647")
	f.fs.DurationVar(&f.retention, "retention", time.Duration(d.Model.Retention), "outbox retention: published rows older than this are pruned (positive)")
	f.fs.DurationVar(&f.deadline, "deadline", time.Duration(d.Model.Deadline), "time a job has from its enqueue (or redrive) to finish; past it, it is cancelled (positive)")
	f.fs.Int64Var(&f.tokenBudget, "token-budget", d.Model.TokenBudget, "tokens a job may spend over all its attempts (positive)")
	f.fs.IntVar(&f.reprocess, "reprocess-limit", int(d.Model.Reprocess.Capacity), "reprocesses each tenant may make per minute, 1 to 2147483647")
	f.fs.StringVar(&f.backoff, "backoff", d.Model.Retry.Strategy.String(), "backoff strategy: full-jitter, exponential or fixed")
	f.fs.DurationVar(&f.backoffBase, "backoff-base", time.Duration(d.Model.Retry.Base), "the backoff's first bound (positive)")
	f.fs.DurationVar(&f.backoffCap, "backoff-cap", time.Duration(d.Model.Retry.Cap), "the backoff's largest bound (at least -backoff-base)")
	f.fs.StringVar(&f.breaker, "breaker", sim.BreakerSpec(d.Model.Breaker), "circuit breaker: window, min-samples, threshold-ppm, cooldown, canaries (a setting left out keeps its default)")
	f.fs.BoolVar(&f.swarm, "swarm", true, "add the seed's random faults (swarm testing) to the plan")
	f.fs.StringVar(&f.plan, "plan", "", "explicit fault plan (faults separated by newlines or ';')")
	f.fs.StringVar(&f.planFile, "plan-file", "", "file holding an explicit fault plan (at most 1 MiB)")
	f.fs.StringVar(&f.backend, "backend", "memory", "memory, or sqlite or postgres: also run every event against the SQL store in lockstep and fail where it disagrees with the model")
	f.fs.StringVar(&f.db, "db", "", "database of -backend: sqlite default :memory:, postgres default $"+pgURLEnv)
	f.fs.BoolVar(&f.scratchDB, "scratch-db", false, "postgres: run in a new database made on -db's server and dropped at the end, so runs can share a server")
	f.fs.StringVar(&f.repro, "repro", "", "a repro file (written by a failure: its whole configuration and seed); the other flags change settings of it, -seed or -seeds its seed")
	// -target is taken before the flags are parsed (cmdTarget, target.go);
	// it is defined here so that -h lists it.
	f.fs.String("target", "", "test a queue durasim does not own instead of the pipeline model: "+targetSystems()+" (durasim "+name+" -target river -h lists the flags of such a run, -design among them)")
	return f
}

func (f *simFlags) withSeeds() {
	f.fs.StringVar(&f.seeds, "seeds", "", fmt.Sprintf("seed range A:B (inclusive), at most %d seeds per process after -shard", maxSeeds))
}

// parse parses args; a parse error is a usage error (status 2). A flag
// only a -target run has (-design, -rescue-after) says so.
func (f *simFlags) parse(args []string) error {
	err := parseFlags(f.fs, args, f.stderr)
	const undefined = "flag provided but not defined: -"
	if ee, ok := errors.AsType[*exitError](err); ok && strings.HasPrefix(ee.err.Error(), undefined) {
		name := strings.TrimPrefix(ee.err.Error(), undefined)
		verb := strings.TrimPrefix(f.fs.Name(), "durasim ")
		if isTargetFlag(verb, name) {
			return usageErr("-%s is a flag of a run against a target: durasim %s -target river -%s ... (durasim %s -target river -h lists them; the pipeline's designs are -variant)", name, verb, name, verb)
		}
	}
	return err
}

// parseFlags parses a command's flags: -h prints the usage line and the
// flags and exits 0; a bad flag, a bad value or a stray argument is a
// one-line usage error (status 2).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(io.Discard)
	restore := explainValues(fs)
	err := fs.Parse(args)
	restore()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(fs, stderr)
			return &exitError{code: 0, err: errors.New("")}
		}
		return usageErr("%v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// printHelp is a command's -h: its usage line, what it does, its flags.
func printHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, usageLine(strings.TrimPrefix(fs.Name(), "durasim ")))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintln(w, "no flags")
		return
	}
	fmt.Fprintln(w, "flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// config builds and validates the simulation config: DefaultConfig, or
// the -repro file's, changed by every flag the command line set through
// sim.SetFlag — the table that prints the flags of a reproduce command
// reads them back, so the two cannot disagree.
func (f *simFlags) config() (sim.Config, error) {
	c, backend := sim.DefaultConfig(), sim.NoBackend
	if f.repro != "" {
		var err error
		if c, f.reproSeed, backend, err = readReproFile(f.repro); err != nil {
			return c, err
		}
		f.reproCfg = c
	}
	if err := f.sizes(); err != nil {
		return c, err
	}
	if f.plan != "" && f.planFile != "" {
		return c, usageErr("give -plan or -plan-file, not both")
	}
	var err error
	set := func(name, text string) {
		if e := sim.SetFlag(&c, name, text); e != nil && err == nil {
			err = usageErr("invalid -%s %q: %v", name, text, e)
		}
	}
	f.fs.Visit(func(fl *flag.Flag) {
		switch {
		case err != nil:
		case fl.Name == "backend":
			backend = f.backend
		case fl.Name == "plan" || fl.Name == "plan-file":
			// One reader and one error form for every system's plans.
			c.Plan, err = readPlan(faults.Pipeline, f.plan, f.planFile)
		case slices.Contains(sim.FlagNames(), fl.Name):
			set(fl.Name, fl.Value.String())
		}
	})
	if err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, usageErr("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if c.Backend, err = f.openBackend(c, backend); err != nil {
		return c, err
	}
	f.reproCfg.Backend = c.Backend
	return c, nil
}

// readReproFile reads a -repro file: its configuration, seed and the
// backend it names.
func readReproFile(name string) (sim.Config, uint64, string, error) {
	b, err := readSmallFile(name, maxPlanBytes)
	if err != nil {
		return sim.Config{}, 0, "", usageErr("-repro: %v", err)
	}
	cfg, seed, backend, err := sim.ReadRepro(bytes.NewReader(b), name)
	if err != nil {
		return cfg, 0, "", usageErr("-repro: %v", err)
	}
	return cfg, seed, backend, nil
}

// sizes refuses an integer flag past its setting's bound before it could
// wrap around in int32; Validate checks the rest.
func (f *simFlags) sizes() error {
	for _, s := range []struct {
		name   string
		v, max int
	}{
		{"workers", f.workers, sim.MaxWorkers},
		{"docs", f.docs, sim.MaxDocs},
		{"tenants", f.tenants, math.MaxInt32},
		{"max-attempts", f.maxAttempts, math.MaxInt32},
		{"reprocess-limit", f.reprocess, math.MaxInt32},
		{"workflow-every", f.wfEvery, math.MaxInt32},
	} {
		if s.v > s.max || s.v < math.MinInt32 {
			return usageErr("invalid -%s %d: want at most %d", s.name, s.v, s.max)
		}
	}
	return nil
}

// readPlan reads a plan given as -plan text or as a -plan-file (not both)
// in a system's vocabulary, the model's runs and the targets' alike.
func readPlan(v *faults.Vocabulary, text, file string) (faults.Plan, error) {
	if file != "" {
		if text != "" {
			return faults.Plan{}, usageErr("give -plan or -plan-file, not both")
		}
		b, err := readSmallFile(file, maxPlanBytes)
		if err != nil {
			return faults.Plan{}, usageErr("reading plan: %v", err)
		}
		text = string(b)
	}
	p, err := v.Parse(text)
	if err != nil {
		return p, usageErr("%v", err)
	}
	return p, nil
}

// maxPlanBytes bounds -plan-file: a plan is a few lines.
const maxPlanBytes = 1 << 20

// readSmallFile reads a file of at most max bytes (a device such as
// /dev/zero included).
func readSmallFile(name string, max int64) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s: larger than %d bytes", name, max)
	}
	return b, err
}

// maxSeeds bounds the seeds one process runs (after -shard): the list
// costs 8 bytes a seed, and ten million seeds of the standard workload
// take about half an hour on two cores.
const maxSeeds = 10_000_000

// seedRange is the range A:B (inclusive) of -seeds, or the one seed of
// -seed, kept as its bounds until the seeds a process runs are listed.
type seedRange struct{ lo, hi uint64 }

// seedRange returns the seeds to run: -seed N, -seeds A:B, or def.
func (f *simFlags) seedRange(def uint64) (seedRange, error) {
	switch {
	case f.seed != "" && f.seeds != "":
		return seedRange{}, usageErr("give -seed or -seeds, not both")
	case f.seeds != "":
		return parseRange(f.seeds)
	case f.seed != "":
		s, err := parseSeed(f.seed)
		return seedRange{s, s}, err
	case f.repro != "":
		return seedRange{f.reproSeed, f.reproSeed}, nil
	}
	return seedRange{def, def}, nil
}

// seedGiven reports whether the command line says which seeds to run.
func (f *simFlags) seedGiven() bool { return f.seed != "" || f.seeds != "" || f.repro != "" }

func parseSeed(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usageErr("invalid seed %q: want an unsigned 64-bit integer", s)
	}
	return v, nil
}

func parseRange(s string) (seedRange, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return seedRange{}, usageErr("invalid seed range %q: want A:B", s)
	}
	lo, err := parseSeed(a)
	if err != nil {
		return seedRange{}, err
	}
	hi, err := parseSeed(b)
	if err != nil {
		return seedRange{}, err
	}
	if hi < lo {
		return seedRange{}, usageErr("invalid seed range %q: want A <= B", s)
	}
	return seedRange{lo, hi}, nil
}

// list returns the seeds s of r with (s - lo) % n == i (the shard i/n;
// 0/1 is the whole range), refusing more than maxSeeds before it
// allocates them.
func (r seedRange) list(i, n uint64) ([]uint64, error) {
	span := r.hi - r.lo
	if span < i {
		return nil, nil
	}
	if (span-i)/n >= maxSeeds {
		return nil, usageErr("invalid seed range %d:%d: at most %d seeds per process (split it with -shard i/n, or into several ranges)", r.lo, r.hi, maxSeeds)
	}
	out := make([]uint64, 0, (span-i)/n+1)
	for s := r.lo + i; ; s += n {
		out = append(out, s)
		if r.hi-s < n {
			return out, nil
		}
	}
}

// requireSeed insists on -seed for single-seed commands.
func (f *simFlags) requireSeed() (uint64, error) {
	if f.seed == "" && f.repro != "" {
		return f.reproSeed, nil
	}
	if f.seed == "" {
		return 0, usageErr("-seed is required (or -repro FILE, which holds one)")
	}
	return parseSeed(f.seed)
}
