package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// sweepFlags are run's flags for long sweeps: parallel seeds, JSON lines
// and shards.
type sweepFlags struct {
	parallel int
	json     bool
	shard    string
	html     string // html.go
	htmlDir  string
}

func addSweepFlags(fs *flag.FlagSet) *sweepFlags {
	s := &sweepFlags{}
	fs.IntVar(&s.parallel, "parallel", runtime.GOMAXPROCS(0), fmt.Sprintf("seeds run at once, one per OS thread, 1 to %d, and at most %d GiB of seeds in memory at once; results are folded in seed order, so the output does not depend on it", maxParallel, maxSweepBytes>>30))
	fs.BoolVar(&s.json, "json", false, "print JSON lines: one per seed with violations, then one summary line")
	fs.StringVar(&s.shard, "shard", "", shardUsage)
	fs.StringVar(&s.html, "html", "", "with one seed that fails: write its interactive timeline (the shrunk counterexample, then the whole run) to this HTML file")
	fs.StringVar(&s.htmlDir, "html-dir", "", "write the interactive timeline of every failing seed to DIR/seed-N.html (created if missing)")
	return s
}

// maxParallel bounds -parallel: a goroutine and a seed's memory each.
const maxParallel = 1024

// seeds validates the flags and lists the shard's seeds of the range.
// Unless -parallel was given, it runs fewer seeds at once when that many
// would not fit in maxSweepBytes.
func (s *sweepFlags) seeds(r seedRange, cfg sim.Config, explicitParallel bool, stderr io.Writer) ([]uint64, error) {
	if s.parallel < 1 || s.parallel > maxParallel {
		return nil, usageErr("invalid -parallel %d: want 1 to %d", s.parallel, maxParallel)
	}
	i, n := uint64(0), uint64(1)
	if s.shard != "" {
		var err error
		if i, n, err = parseShard(s.shard, os.LookupEnv); err != nil {
			return nil, err
		}
		s.shard = fmt.Sprintf("%d/%d", i, n) // the summary names the shard that ran, whatever variable gave it
	}
	seeds, err := r.list(i, n)
	if err != nil {
		return nil, err
	}
	if err := s.checkHTML(len(seeds)); err != nil {
		return nil, err
	}
	fit := int(max(1, maxSweepBytes/seedBytes(cfg)))
	switch at := min(s.parallel, len(seeds)); {
	case at <= fit:
	case explicitParallel:
		return nil, usageErr("invalid -parallel %d: %d seeds at once would hold about %.1f GiB (%.2f GiB each); at most %d GiB: run at most %d at once",
			s.parallel, at, float64(int64(at)*seedBytes(cfg))/(1<<30), float64(seedBytes(cfg))/(1<<30), maxSweepBytes>>30, fit)
	default:
		fmt.Fprintf(stderr, "durasim: %d seeds at once (not %d): each holds about %.2f GiB, at most %d GiB in all\n", fit, s.parallel, float64(seedBytes(cfg))/(1<<30), maxSweepBytes>>30)
		s.parallel = fit
	}
	return seeds, nil
}

// Memory a seed holds at its peak, from `durasim run -seed 1` measured
// with /usr/bin/time: -docs 100000 peaks at 147 MB resident, -workers
// 1000000 -docs 10 at 312 MB, -docs 1000000 -workers 100000 at 1.77 GB
// (the estimate: 1.84 GB); and the most a sweep may hold at once.
const (
	docBytes      = 1800
	workerBytes   = 400
	baseSeedBytes = 4 << 20
	maxSweepBytes = 8 << 30
)

func seedBytes(cfg sim.Config) int64 {
	return int64(cfg.Docs)*docBytes + int64(cfg.Workers)*workerBytes + baseSeedBytes
}

// sweep runs every seed, prints the summary (text, or JSON lines) and, for
// the first failing seed, the shrunk counterexample and the commands that
// reproduce it (rp). Results are folded in seed order whatever -parallel
// is. SIGINT or SIGTERM stops it starting seeds: it prints the summary of
// the seeds that ran, marked interrupted, with the failures they found,
// writes their pages and exits 130; a second signal ends it at once.
func (s *sweepFlags) sweep(cfg sim.Config, seeds []uint64, rp *sim.Reproducer, stdout, stderr io.Writer) error {
	cfg.StopOnViolation = true
	defer sweepGC(len(seeds))()
	design, _ := model.LookupDesign(cfg.Variant)
	sum := sim.NewSummary(design.Name)
	sum.Planned = len(seeds)
	bar := newProgress(stderr, len(seeds))
	enc := json.NewEncoder(stdout)
	picked := sim.SweepRoundTrip() // the seeds the sweep replays at the end
	intr := onInterrupt()
	err := runOrdered(intr.ctx, cfg, seeds, s.parallel, func(res *sim.Result) {
		picked.Add(res)
		sum.Add(res)
		if s.json && res.Failed() {
			_ = enc.Encode(newViolationLine(cfg, design, res, rp))
		}
		bar.add()
	})
	bar.finish()
	if sig := intr.stop(); sig != "" {
		sum.Stopped = "by " + sig
		fmt.Fprintf(stderr, "durasim: interrupted by %s after %d of %d seeds: finishing the summary of those (%s again stops at once)\n", sig, sum.Seeds, len(seeds), sig)
	}
	if err != nil {
		return runErrAt(err, rp)
	}
	if err := picked.Verify(cfg); err != nil {
		return &exitError{code: 1, err: err}
	}
	if !s.json {
		sum.Write(stdout, design)
		fmt.Fprintf(stdout, "replayed    %s\n", picked)
	}
	var sh *sim.Shrunk
	if sum.First != nil {
		if sh, err = sim.Shrink(cfg, sum.First.Seed, sum.First, 0); err != nil {
			return err
		}
	}
	pageErr := s.htmlPages(cfg, seeds, sum, sh, rp, stderr)
	if s.json {
		if err := enc.Encode(newSummaryLine(sum, design, s.shard, sh, rp)); err != nil {
			return err
		}
	} else if sum.First != nil {
		fmt.Fprintln(stdout)
		sim.WriteFailure(stdout, cfg, sum.First, sh, rp)
	}
	switch {
	case sum.Stopped != "":
		if pageErr != nil {
			fmt.Fprintf(stderr, "durasim: %s\n", oneLine(pageErr.Error()))
		}
		return &exitError{code: exitInterrupted, err: errors.New("")}
	case pageErr != nil:
		return afterRun(pageErr, sum.First != nil, stderr)
	case sum.First != nil:
		return errViolation
	}
	return nil
}

// exitInterrupted is the status of a sweep stopped by a signal (128 +
// SIGINT's number, as a shell reports a process it interrupted).
const exitInterrupted = 130

// interrupt is a sweep's watch for SIGINT and SIGTERM: the first cancels
// ctx; once stop is called, the next one has its default effect.
type interrupt struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal
	got    chan string
	done   chan struct{}
}

func onInterrupt() *interrupt {
	ctx, cancel := context.WithCancel(context.Background())
	i := &interrupt{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 1), got: make(chan string, 1), done: make(chan struct{})}
	signal.Notify(i.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-i.sigs:
			i.got <- signalName(sig)
			cancel()
		case <-i.done:
		}
	}()
	return i
}

// stop stops watching (a later signal ends the process) and returns the
// signal that interrupted the sweep ("" if none).
func (i *interrupt) stop() string {
	signal.Stop(i.sigs)
	close(i.done)
	i.cancel()
	select {
	case sig := <-i.got:
		return sig
	default:
		return ""
	}
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// sweepGC tunes the garbage collector for a run and returns what restores
// it. A seed's live heap is small (about 1 MB for the standard workload),
// so with the default GOGC=100 the heap goal stays at the 4 MB floor and
// the collector runs hundreds of times a second during a sweep; each cycle
// stops every thread, which is what kept -parallel 2 at 1.4x of
// -parallel 1 (GOGC=400: 1.9x, and -parallel 1 itself 5% faster). The soft
// memory limit, set for every run, keeps a huge seed (a million documents:
// about 1.3 GB live) from growing past its live heap by GOGC's share.
// GOGC and GOMEMLIMIT in the environment win.
func sweepGC(seeds int) (restore func()) {
	percent, limit := -1, int64(-1)
	if seeds >= 2 && os.Getenv("GOGC") == "" {
		percent = debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(softMemoryLimit)
	}
	return func() {
		if percent >= 0 {
			debug.SetGCPercent(percent)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}

// softMemoryLimit is the heap size at which the collector starts working
// harder: 1.75 GiB, so a run stays under 2 GiB of resident memory with
// room for stacks and the runtime's own.
const softMemoryLimit = 7 << 28

// violationLine is the JSON line of one seed with violations.
type violationLine struct {
	Type       string   `json:"type"` // "violation"
	Seed       uint64   `json:"seed"`
	Design     string   `json:"design"`
	Invariants []string `json:"invariants"` // each broken invariant once, in order found
	Violations []string `json:"violations"`
	Swarm      string   `json:"swarm,omitempty"`  // the seed's swarm options
	Plan       string   `json:"plan"`             // the faults that took effect, as a one-line plan
	Reproduce  string   `json:"reproduce"`        // reruns the seed exactly ("" when only go test can: see note)
	Replay     string   `json:"replay,omitempty"` // replays the realized plan with the swarm off
	Note       string   `json:"note,omitempty"`   // why a command is missing
}

func newViolationLine(cfg sim.Config, design *model.Design, res *sim.Result, rp *sim.Reproducer) violationLine {
	l := violationLine{
		Type: "violation", Seed: res.Seed, Design: design.Name, Swarm: res.Swarm(),
		Plan: res.Realized.OneLine(),
	}
	var err error
	if l.Reproduce, err = rp.Line("run", fmt.Sprintf("seed-%d", res.Seed), cfg, res.Seed); err != nil {
		l.Note = err.Error()
	}
	for _, v := range res.Violations {
		l.Violations = append(l.Violations, v.String())
		if !containsString(l.Invariants, v.Invariant) {
			l.Invariants = append(l.Invariants, v.Invariant)
		}
	}
	if cfg.Swarm {
		c := res.Config // with the options the swarm drew
		c.Swarm, c.Plan = false, res.Realized
		l.Replay, _ = rp.Line("replay", fmt.Sprintf("seed-%d-realized", res.Seed), c, res.Seed)
	}
	return l
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// summaryLine is the last JSON line of a sweep. Counts add up across
// shards (see the README for a jq merge).
type summaryLine struct {
	Type        string         `json:"type"` // "summary"
	Design      string         `json:"design"`
	Shard       string         `json:"shard,omitempty"`
	Seeds       int            `json:"seeds"`
	Drained     int            `json:"drained"`
	Failed      int            `json:"failed"`
	Events      uint64         `json:"events"`
	Traces      string         `json:"traces"`     // the seeds' trace hashes folded in seed order
	Faults      map[string]int `json:"faults"`     // every fault kind
	Boundaries  map[string]int `json:"boundaries"` // crash/pause faults per boundary the design crosses
	Unfaulted   []string       `json:"unfaulted"`
	ByInvariant map[string]int `json:"by_invariant"`
	FailedSeeds []uint64       `json:"failed_seeds"`
	Shrunk      *shrunkLine    `json:"shrunk,omitempty"` // the first failing seed, shrunk
	// Interrupted is the signal that stopped the sweep ("": it ran every
	// seed); Planned is how many seeds it was to run.
	Interrupted string `json:"interrupted,omitempty"`
	Planned     int    `json:"planned"`
	// Repro lists the repro files written (beside the -html-dir pages).
	Repro []string `json:"repro,omitempty"`
}

type shrunkLine struct {
	Seed      uint64 `json:"seed"`
	Invariant string `json:"invariant"`
	Plan      string `json:"plan"`
	Replay    string `json:"replay"`
	Runs      int    `json:"runs"`
}

func newSummaryLine(sum *sim.Summary, design *model.Design, shard string, sh *sim.Shrunk, rp *sim.Reproducer) summaryLine {
	l := summaryLine{
		Type: "summary", Design: sum.Design, Shard: shard, Seeds: sum.Seeds, Drained: sum.Drained,
		Interrupted: strings.TrimPrefix(sum.Stopped, "by "), Planned: max(sum.Planned, sum.Seeds),
		Failed: sum.Failed, Events: sum.Events, Traces: fmt.Sprintf("%016x", sum.Traces), Faults: map[string]int{}, Boundaries: map[string]int{},
		Unfaulted: []string{}, ByInvariant: sum.ByInvariant, FailedSeeds: sum.FailedSeeds,
	}
	if l.FailedSeeds == nil {
		l.FailedSeeds = []uint64{}
	}
	for _, k := range faults.Pipeline.Kinds() {
		l.Faults[k.String()] = sum.Injected[k]
	}
	for _, b := range sim.DesignBoundaries(design) {
		l.Boundaries[b.String()] = sum.BoundaryHits[b]
	}
	for _, b := range sum.Unfaulted(design) {
		l.Unfaulted = append(l.Unfaulted, b.String())
	}
	if sh != nil {
		l.Shrunk = &shrunkLine{Seed: sh.Seed, Invariant: sh.Invariant, Plan: sh.Config.Plan.OneLine(), Runs: sh.Runs}
		l.Shrunk.Replay, _ = rp.Line("replay", fmt.Sprintf("seed-%d-shrunk", sh.Seed), sh.Config, sh.Seed)
	}
	l.Repro = rp.Files()
	return l
}
