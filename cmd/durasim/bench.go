package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/sim"
)

// benchRunner is one runner's measurement in `durasim bench`.
type benchRunner struct {
	Seeds         int      `json:"seeds"`
	Events        uint64   `json:"events"`
	Steps         uint64   `json:"scheduler_steps,omitempty"` // durasim only: every event the scheduler ran, traced or not
	StepsPerSec   float64  `json:"scheduler_steps_per_sec,omitempty"`
	Seconds       float64  `json:"seconds"`
	CPUSeconds    float64  `json:"cpu_seconds"` // user + system CPU time of the process in the timed part (-1: unknown)
	EventsPerSec  float64  `json:"events_per_sec"`
	EventsPerSeed float64  `json:"events_per_seed"`
	EventsPerCPU  float64  `json:"events_per_cpu_sec"` // 0 when the CPU time is unknown
	SeedsPerSec   float64  `json:"seeds_per_sec"`
	Hashes        []string `json:"hashes_of_seed_1"` // two runs of seed 1
	Deterministic bool     `json:"deterministic"`
	// RoundRates is events/s in every round; the runner's figures are
	// those of its median round.
	RoundRates []float64 `json:"round_events_per_sec,omitempty"`
}

// medianRound keeps the round with the median events/s and records every
// round's rate: one slow round (another process on a shared core, a GC
// at the wrong moment) then moves no figure, and every runner gets the
// same treatment. A runner is deterministic only if it was in every round.
func medianRound(rounds []*benchRunner) *benchRunner {
	sorted := slices.Clone(rounds)
	slices.SortFunc(sorted, func(a, b *benchRunner) int { return cmp.Compare(a.EventsPerSec, b.EventsPerSec) })
	m := *sorted[len(sorted)/2]
	m.RoundRates = nil
	for _, r := range rounds {
		m.RoundRates = append(m.RoundRates, r.EventsPerSec)
		m.Deterministic = m.Deterministic && r.Deterministic
	}
	return &m
}

// benchTimer measures the timed part of a runner: wall and CPU time.
type benchTimer struct {
	wall time.Time
	cpu  float64
}

// elapsed is what a benchTimer measured.
type elapsed struct {
	wall time.Duration
	cpu  float64
}

func startTimer() benchTimer {
	runtime.GC()
	return benchTimer{wall: time.Now(), cpu: cpuSeconds()}
}

func (t benchTimer) stop() elapsed {
	e := elapsed{wall: time.Since(t.wall), cpu: cpuSeconds()}
	if e.cpu < 0 || t.cpu < 0 {
		e.cpu = -1
	} else {
		e.cpu -= t.cpu
	}
	return e
}

func (r *benchRunner) finish(e elapsed) {
	d := e.wall
	r.CPUSeconds = e.cpu
	r.Seconds = d.Seconds()
	if r.Seconds > 0 {
		r.EventsPerSec = float64(r.Events) / r.Seconds
		r.StepsPerSec = float64(r.Steps) / r.Seconds
		r.SeedsPerSec = float64(r.Seeds) / r.Seconds
	}
	if r.CPUSeconds > 0 {
		r.EventsPerCPU = float64(r.Events) / r.CPUSeconds
	}
	if r.Seeds > 0 {
		r.EventsPerSeed = float64(r.Events) / float64(r.Seeds)
	}
	r.Deterministic = len(r.Hashes) == 2 && r.Hashes[0] == r.Hashes[1]
}

// byRunner holds one value per runner, in the order.
type byRunner[T any] struct {
	BareLoop  T `json:"bare_loop"`
	Durasim   T `json:"durasim"`
	Synctest  T `json:"synctest"`
	ClockMock T `json:"clock_mock"`
}

func cmdBench(args []string, stdout, stderr io.Writer) error {
	return benchCommand(args, stdout, stderr, cliTestingT)
}

// benchCommand is `durasim bench`; withT supplies the *testing.T that
// testing/synctest needs (a test passes its own).
func benchCommand(args []string, stdout, stderr io.Writer, wt withT) error {
	if slices.ContainsFunc(args, func(a string) bool { return a == "-target" || strings.HasPrefix(a, "-target=") || a == "--target" }) {
		return benchTargetCommand(args, stdout, stderr) // bench_target.go
	}
	fs := flag.NewFlagSet("durasim bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print one JSON object")
	seeds := fs.Int("seeds", 500, "seeds 1..N of the standard workload for durasim and synctest, 1 to 1000000")
	rounds := fs.Int("rounds", 5, "rounds of bare loop, durasim and synctest, interleaved, 1 to 100; each runner reports its median round")
	mockSeeds := fs.Int("mock-seeds", 1, "seeds 1..M for the clock.Mock runner, 1 to 100 (it sleeps 1ms of real time per Set and per timer)")
	f := &simFlags{fs: fs, stderr: stderr}
	if err := f.parse(args); err != nil {
		return err
	}
	if *seeds < 1 || *seeds > 1_000_000 || *rounds < 1 || *rounds > 100 || *mockSeeds < 1 || *mockSeeds > 100 {
		return usageErr("-seeds must be 1 to 1000000, -rounds and -mock-seeds 1 to 100 (got %d, %d, %d)", *seeds, *rounds, *mockSeeds)
	}
	rep, err := runBench(sim.DefaultConfig(), *seeds, *mockSeeds, *rounds, wt)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(rep)
	}
	rep.write(stdout)
	return nil
}

func runBench(cfg sim.Config, seeds, mockSeeds, rounds int, wt withT) (*benchReport, error) {
	rep := &benchReport{
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Workload: fmt.Sprintf("sim.DefaultConfig(): %d workers, %d docs, %d tenants, design %s, swarm faults on; seeds 1..%d",
			cfg.Workers, cfg.Docs, cfg.Tenants, cfg.Variant, seeds),
		EventsCounted: "trace events (sim.Result.Events: model events plus the simulator's extract, crash, pause, fault and phase events), " +
			"the unit every runner shares; durasim's scheduler also runs untraced events (timers, polls, drain checks), reported as scheduler_steps",
	}
	quiet := cfg
	quiet.Swarm = false
	// The collector is tuned as for `durasim run -seeds`, for every runner
	// alike (the setting is the process's).
	defer sweepGC(seeds)()
	// Rounds interleave the runners, so a slow spell of a shared machine
	// falls on all of them alike; the first round also warms caches and
	// grows the heap for the rounds after it.
	var floor, floorMean, ds, dsQuiet, st []*benchRunner
	for range rounds {
		d, err := benchDurasim(cfg, seeds)
		if err != nil {
			return nil, err
		}
		q, err := benchDurasim(quiet, seeds)
		if err != nil {
			return nil, err
		}
		s, err := benchSynctest(cfg, seeds, wt)
		if err != nil {
			return nil, err
		}
		ds, dsQuiet, st = append(ds, d), append(dsQuiet, q), append(st, s)
		floor = append(floor, benchFloor(d.Events, floorPending))
		floorMean = append(floorMean, benchFloor(d.Events, floorMeanPending))
	}
	rep.Runners.Durasim = medianRound(ds)
	rep.DurasimNoFaults = medianRound(dsQuiet)
	rep.Runners.BareLoop = medianRound(floor)
	rep.BareLoopMeanHeap = medianRound(floorMean)
	rep.Runners.Synctest = medianRound(st)
	rep.Rounds = rounds
	var err error
	if rep.Runners.ClockMock, rep.MockSets, err = benchMock(cfg, mockSeeds); err != nil {
		return nil, err
	}
	rep.fill(seeds, mockSeeds)
	return rep, nil
}

func benchDurasim(cfg sim.Config, seeds int) (*benchRunner, error) {
	r := &benchRunner{Seeds: seeds}
	rn := sim.NewRunner() // as each goroutine of run -seeds has
	timer := startTimer()
	for s := 1; s <= seeds; s++ {
		res, err := rn.Run(cfg, uint64(s))
		if err != nil {
			return nil, usageErr("%v", err)
		}
		r.Events += res.Events
		r.Steps += res.Steps
		if s == 1 {
			r.Hashes = append(r.Hashes, res.HashHex())
		}
	}
	took := timer.stop()
	res, err := sim.Run(cfg, 1)
	if err != nil {
		return nil, err
	}
	r.Hashes = append(r.Hashes, res.HashHex())
	r.finish(took)
	return r, nil
}

func benchFloor(events uint64, pending int) *benchRunner {
	r := &benchRunner{Events: events}
	timer := startTimer()
	sum := bareLoop(events, pending)
	took := timer.stop()
	r.Hashes = []string{fmt.Sprintf("%016x", sum), fmt.Sprintf("%016x", bareLoop(events, pending))}
	r.finish(took)
	r.EventsPerSeed = 0
	return r
}

func benchSynctest(cfg sim.Config, seeds int, wt withT) (*benchRunner, error) {
	r := &benchRunner{Seeds: seeds}
	reuse := &goReuse{}
	var sum goSummary
	var took elapsed
	err := wt(func(t *testing.T) {
		timer := startTimer()
		for s := 1; s <= seeds; s++ {
			res := runSynctestSeed(t, cfg, uint64(s), reuse)
			sum.add(uint64(s), res)
			if s == 1 {
				r.Hashes = append(r.Hashes, fmt.Sprintf("%016x", res.hash))
			}
		}
		took = timer.stop()
		r.Hashes = append(r.Hashes, fmt.Sprintf("%016x", runSynctestSeed(t, cfg, 1, reuse).hash))
	})
	if err != nil {
		return nil, err
	}
	if sum.violations > 0 {
		return nil, fmt.Errorf("synctest runner broke an invariant (a bug in the goroutine driver): %s", sum.firstErr)
	}
	r.Events = sum.events
	r.finish(took)
	return r, nil
}

func benchMock(cfg sim.Config, seeds int) (*benchRunner, int, error) {
	r := &benchRunner{Seeds: seeds}
	reuse := &goReuse{}
	var sum goSummary
	sets := 0
	timer := startTimer()
	for s := 1; s <= seeds; s++ {
		res, n, err := runMockSeed(cfg, uint64(s), reuse)
		if err != nil {
			return nil, 0, err
		}
		sets += n
		sum.add(uint64(s), res)
		if s == 1 {
			r.Hashes = append(r.Hashes, fmt.Sprintf("%016x", res.hash))
		}
	}
	took := timer.stop()
	again, _, err := runMockSeed(cfg, 1, reuse)
	if err != nil {
		return nil, 0, err
	}
	r.Hashes = append(r.Hashes, fmt.Sprintf("%016x", again.hash))
	if sum.violations > 0 {
		return nil, 0, fmt.Errorf("clock.Mock runner broke an invariant (a bug in the goroutine driver): %s", sum.firstErr)
	}
	r.Events = sum.events
	r.finish(took)
	return r, sets, nil
}
