package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/faults"
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
	arrivalGap  time.Duration
	lease       time.Duration
	heartbeat   time.Duration
	maxAttempts int
	retention   time.Duration
	reprocess   int
	backoff     string
	swarm       bool
	plan        string
	planFile    string
	backend     string
	db          string
}

func newSimFlags(name string, stderr io.Writer) *simFlags {
	d := sim.DefaultConfig()
	f := &simFlags{fs: flag.NewFlagSet("durasim "+name, flag.ContinueOnError), stderr: stderr}
	f.fs.SetOutput(io.Discard) // errors are reported in one line by parse
	f.fs.StringVar(&f.seed, "seed", "", "seed to run (unsigned 64-bit integer)")
	f.fs.StringVar(&f.variant, "variant", "correct", "design: correct or a naive variant ("+strings.Join(model.VariantNames(), ", ")+")")
	f.fs.IntVar(&f.workers, "workers", int(d.Workers), "virtual workers")
	f.fs.IntVar(&f.docs, "docs", int(d.Docs), "documents in the workload")
	f.fs.IntVar(&f.tenants, "tenants", int(d.Tenants), "tenants the documents belong to")
	f.fs.StringVar(&f.only, "only", "", "keep only these documents (comma-separated 1-based indices), as the shrinker prints")
	f.fs.StringVar(&f.resubmit, "resubmit", "", "documents (comma-separated 1-based indices) whose client submits them a second time")
	f.fs.DurationVar(&f.arrivalGap, "arrival-gap", time.Duration(d.ArrivalGap), "mean time between document arrivals")
	f.fs.BoolVar(&f.tryCanceled, "try-cancelled", false, "the operator tries every round to bring back a cancelled job (it must be refused)")
	f.fs.BoolVar(&f.probeStatus, "probe-status", false, "every client queries the status of its job and of another job id")
	f.fs.BoolVar(&f.ordered, "ordered", false, "strictly ordered (FIFO) queue: only the oldest unfinished job may be leased")
	f.fs.DurationVar(&f.lease, "lease", time.Duration(d.Model.Lease), "lease duration")
	f.fs.DurationVar(&f.heartbeat, "heartbeat", time.Duration(d.Model.HeartbeatEvery), "heartbeat interval (shorter than the lease)")
	f.fs.IntVar(&f.maxAttempts, "max-attempts", int(d.Model.MaxAttempts), "attempt ceiling per job")
	f.fs.DurationVar(&f.retention, "retention", time.Duration(d.Model.Retention), "outbox retention: published rows older than this are pruned")
	f.fs.IntVar(&f.reprocess, "reprocess-limit", int(d.Model.Reprocess.Capacity), "reprocesses a tenant may make per minute")
	f.fs.StringVar(&f.backoff, "backoff", d.Model.Retry.Strategy.String(), "backoff strategy: full-jitter, exponential or fixed")
	f.fs.BoolVar(&f.swarm, "swarm", true, "add the seed's random faults (swarm testing) to the plan")
	f.fs.StringVar(&f.plan, "plan", "", "explicit fault plan (faults separated by newlines or ';')")
	f.fs.StringVar(&f.planFile, "plan-file", "", "file holding an explicit fault plan")
	f.fs.StringVar(&f.backend, "backend", "memory", "memory, or sqlite or postgres: also run every event against the SQL store in lockstep and fail where it disagrees with the model")
	f.fs.StringVar(&f.db, "db", "", "database of -backend: sqlite default :memory:, postgres default $"+pgURLEnv)
	return f
}

func (f *simFlags) withSeeds() { f.fs.StringVar(&f.seeds, "seeds", "", "seed range A:B (inclusive)") }

// parse parses args; a parse error is a usage error (status 2).
func (f *simFlags) parse(args []string) error { return parseFlags(f.fs, args, f.stderr) }

// parseFlags parses a command's flags: -h prints them and exits 0; a bad
// flag or a stray argument is a one-line usage error (status 2).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return &exitError{code: 0, err: errors.New("")}
		}
		return usageErr("%v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// config builds and validates the simulation config from the flags.
func (f *simFlags) config() (sim.Config, error) {
	c := sim.DefaultConfig()
	c.Variant, c.Swarm = f.variant, f.swarm
	c.Workers, c.Docs, c.Tenants = int32(f.workers), int32(f.docs), int32(f.tenants)
	c.Model.Lease, c.Model.HeartbeatEvery = model.Time(f.lease), model.Time(f.heartbeat)
	c.Model.MaxAttempts = int32(f.maxAttempts)
	c.Model.Retention = model.Time(f.retention)
	c.Model.Reprocess.Capacity = int32(f.reprocess)
	strategy, err := model.ParseStrategy(f.backoff)
	if err != nil {
		return c, usageErr("%v", err)
	}
	if c.Only, err = parseDocList("only", f.only); err != nil {
		return c, err
	}
	if c.Resubmit, err = parseDocList("resubmit", f.resubmit); err != nil {
		return c, err
	}
	c.Model.Ordered = f.ordered
	c.ProbeStatus = f.probeStatus
	c.TryCancelled = f.tryCanceled
	c.ArrivalGap = model.Time(f.arrivalGap)
	c.Model.Retry.Strategy = strategy
	if c.Plan, err = f.readPlan(); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, usageErr("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if c.Backend, err = f.openBackend(c); err != nil {
		return c, err
	}
	return c, nil
}

func (f *simFlags) readPlan() (faults.Plan, error) {
	text := f.plan
	if f.planFile != "" {
		if f.plan != "" {
			return faults.Plan{}, usageErr("give -plan or -plan-file, not both")
		}
		b, err := os.ReadFile(f.planFile)
		if err != nil {
			return faults.Plan{}, usageErr("reading plan: %v", err)
		}
		text = string(b)
	}
	p, err := faults.Parse(text)
	if err != nil {
		return p, usageErr("%v", err)
	}
	return p, nil
}

// seedList returns the seeds to run: -seed N, -seeds A:B, or def.
func (f *simFlags) seedList(def uint64) ([]uint64, error) {
	switch {
	case f.seed != "" && f.seeds != "":
		return nil, usageErr("give -seed or -seeds, not both")
	case f.seeds != "":
		return parseRange(f.seeds)
	case f.seed != "":
		s, err := parseSeed(f.seed)
		return []uint64{s}, err
	}
	return []uint64{def}, nil
}

func parseSeed(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usageErr("invalid seed %q: want an unsigned 64-bit integer", s)
	}
	return v, nil
}

func parseRange(s string) ([]uint64, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return nil, usageErr("invalid seed range %q: want A:B", s)
	}
	lo, err := parseSeed(a)
	if err != nil {
		return nil, err
	}
	hi, err := parseSeed(b)
	if err != nil {
		return nil, err
	}
	if hi < lo || hi-lo >= 100_000_000 {
		return nil, usageErr("invalid seed range %q: want A <= B and at most 100000000 seeds", s)
	}
	out := make([]uint64, 0, hi-lo+1)
	for s := lo; ; s++ {
		out = append(out, s)
		if s == hi {
			break
		}
	}
	return out, nil
}

// requireSeed insists on -seed for single-seed commands.
func (f *simFlags) requireSeed() (uint64, error) {
	if f.seed == "" {
		return 0, usageErr("-seed is required")
	}
	return parseSeed(f.seed)
}

func fprintf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, args...) }

func parseDocList(flag, s string) ([]int32, error) {
	if s == "" {
		return nil, nil
	}
	var out []int32
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 32)
		if err != nil || n < 1 {
			return nil, usageErr("invalid -%s %q: want comma-separated document numbers >= 1", flag, s)
		}
		out = append(out, int32(n))
	}
	return out, nil
}
