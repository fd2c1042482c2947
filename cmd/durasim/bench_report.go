package main

import (
	"fmt"
	"io"
)

// benchReport is `durasim bench -json`'s one object.
type benchReport struct {
	EventsPerSec  byRunner[float64]      `json:"events_per_sec"`
	SeedsPerSec   float64                `json:"seeds_per_sec"` // durasim's
	Deterministic byRunner[bool]         `json:"deterministic"`
	Ratios        benchRatios            `json:"ratios"`
	Runners       byRunner[*benchRunner] `json:"runners"`
	// DurasimNoFaults is durasim with the swarm off: the fault-free
	// workload the goroutine runners drive.
	DurasimNoFaults *benchRunner `json:"durasim_no_faults"`
	Workload        string       `json:"workload"`
	EventsCounted   string       `json:"events_counted"`
	GOMAXPROCS      int          `json:"gomaxprocs"`
	// BareLoopMeanHeap is the floor on a heap of durasim's mean size.
	BareLoopMeanHeap *benchRunner `json:"bare_loop_mean_heap"`
	Rounds           int          `json:"rounds"`          // interleaved rounds; each runner's figures are its median round
	MockSets         int          `json:"clock_mock_sets"` // Mock.Set calls in the timed runs
	Notes            []string     `json:"notes"`
}

type benchRatios struct {
	DurasimCostVsFloor   float64 `json:"durasim_cost_per_event_vs_floor"` // target <= 5
	SynctestVsDurasim    float64 `json:"synctest_vs_durasim"`
	ClockMockVsDurasim   float64 `json:"clock_mock_vs_durasim"`
	DurasimOverSynctest  float64 `json:"durasim_over_synctest"`   // target >= 3.3 (issue 26)
	DurasimOverClockMock float64 `json:"durasim_over_clock_mock"` // target >= 1000
	// Per CPU second: synctest's goroutines use more than one core.
	DurasimOverSynctestCPU float64 `json:"durasim_over_synctest_per_cpu_sec"`
	DurasimEventsPerSecOK  bool    `json:"durasim_2m_events_per_sec"`
}

// fill derives the headline figures, ratios and notes from the runners.
func (rep *benchReport) fill(seeds, mockSeeds int) {
	run := rep.Runners
	rep.EventsPerSec = byRunner[float64]{run.BareLoop.EventsPerSec, run.Durasim.EventsPerSec, run.Synctest.EventsPerSec, run.ClockMock.EventsPerSec}
	rep.Deterministic = byRunner[bool]{run.BareLoop.Deterministic, run.Durasim.Deterministic, run.Synctest.Deterministic, run.ClockMock.Deterministic}
	rep.SeedsPerSec = run.Durasim.SeedsPerSec
	d := run.Durasim.EventsPerSec
	rep.Ratios = benchRatios{
		DurasimCostVsFloor:     ratio(run.BareLoop.EventsPerSec, d),
		SynctestVsDurasim:      ratio(run.Synctest.EventsPerSec, d),
		ClockMockVsDurasim:     ratio(run.ClockMock.EventsPerSec, d),
		DurasimOverSynctest:    ratio(d, run.Synctest.EventsPerSec),
		DurasimOverClockMock:   ratio(d, run.ClockMock.EventsPerSec),
		DurasimOverSynctestCPU: ratio(run.Durasim.EventsPerCPU, run.Synctest.EventsPerCPU),
		DurasimEventsPerSecOK:  d >= 2_000_000,
	}
	rep.Notes = []string{
		fmt.Sprintf("%d interleaved rounds (bare loop, durasim, synctest in each); every figure is that runner's median round, all rounds are in runners.*.round_events_per_sec", rep.Rounds),
		fmt.Sprintf("bare_loop ran as many events as durasim counted, on a %d-event heap with a trivial handler; durasim's own heap holds %d events on average (34 at most), and on a heap that small the bare loop runs %.0f events/s: durasim's cost per event is %.1fx that", floorPending, floorMeanPending, rep.BareLoopMeanHeap.EventsPerSec, ratio(rep.BareLoopMeanHeap.EventsPerSec, run.Durasim.EventsPerSec)),
		"synctest and clock_mock drive the same model (correct design) and the same documents with one goroutine per worker plus client, relay and consumer goroutines around one mutex; every event is hashed (sim.TraceHasher) and recorded by the invariant suite as in sim; they inject no faults (durasim's swarm does), so their events per seed differ",
		fmt.Sprintf("clock_mock ran %d of the %d seeds (each Mock.Set and each timer it fires sleeps 1ms of real time); events/s is the rate over that slice (a rate: nothing to scale), and a whole sweep of the %d seeds would take about %d times as long", mockSeeds, seeds, seeds, (seeds+mockSeeds-1)/mockSeeds),
		"deterministic: the trace hash of seed 1 was the same on two runs in this process, in every round",
	}
	if !run.Synctest.Deterministic {
		rep.Notes = append(rep.Notes, "synctest: virtual time is exact, but which goroutine runs first among those woken at one instant is up to the Go scheduler, so the interleaving (hence the trace) is not replayable")
	}
	if !run.ClockMock.Deterministic {
		rep.Notes = append(rep.Notes, "clock_mock: goroutines woken by one Set race for the mutex, so the trace is not replayable")
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func (rep *benchReport) write(w io.Writer) {
	fmt.Fprintf(w, "durasim bench: %s; GOMAXPROCS=%d\n", rep.Workload, rep.GOMAXPROCS)
	fmt.Fprintf(w, "events counted: %s\n\n", rep.EventsCounted)
	fmt.Fprintf(w, "%-11s %6s %10s %9s %8s %13s %12s  %s\n", "runner", "seeds", "events", "seconds", "cpu s", "events/s", "events/seed", "same hash twice (seed 1)")
	names := [4]string{"bare_loop", "durasim", "synctest", "clock_mock"}
	runners := [4]*benchRunner{rep.Runners.BareLoop, rep.Runners.Durasim, rep.Runners.Synctest, rep.Runners.ClockMock}
	for i, r := range runners {
		seeds := "-"
		if r.Seeds > 0 {
			seeds = fmt.Sprint(r.Seeds)
		}
		fmt.Fprintf(w, "%-11s %6s %10d %9.3f %8.3f %13.0f %12.0f  %s\n", names[i], seeds, r.Events, r.Seconds, r.CPUSeconds, r.EventsPerSec, r.EventsPerSeed, yesNo(r.Deterministic, r.Hashes))
	}
	if r := rep.DurasimNoFaults; r != nil {
		fmt.Fprintf(w, "(durasim with the swarm off, the goroutine runners' fault-free workload: %.0f events/s, %.0f events/seed, %.0f seeds/s)\n",
			r.EventsPerSec, r.EventsPerSeed, r.SeedsPerSec)
	}
	q := rep.Ratios
	fmt.Fprintf(w, "\ndurasim events/s         %.0f (target >= 2,000,000: %s)\n", rep.EventsPerSec.Durasim, metStr(q.DurasimEventsPerSecOK))
	fmt.Fprintf(w, "durasim cost per event   %.2fx the bare loop's (target <= 5x: %s)\n", q.DurasimCostVsFloor, metStr(q.DurasimCostVsFloor <= 5))
	fmt.Fprintf(w, "synctest / durasim       %.3f of durasim's events/s; durasim is %.1fx faster (target >= 3.3x: %s)\n", q.SynctestVsDurasim, q.DurasimOverSynctest, metStr(q.DurasimOverSynctest >= 3.3))
	fmt.Fprintf(w, "  per CPU second         durasim does %.1fx synctest's events (synctest's goroutines spread over %.1f cores)\n", q.DurasimOverSynctestCPU, ratio(rep.Runners.Synctest.CPUSeconds, rep.Runners.Synctest.Seconds))
	fmt.Fprintf(w, "clock_mock / durasim     %.6f of durasim's events/s; durasim is %.0fx faster (target >= 1000x: %s)\n", q.ClockMockVsDurasim, q.DurasimOverClockMock, metStr(q.DurasimOverClockMock >= 1000))
	fmt.Fprintf(w, "durasim seeds/s          %.0f\n", rep.SeedsPerSec)
	fmt.Fprintf(w, "clock.Mock Set calls     %d\n", rep.MockSets)
	fmt.Fprintln(w, "notes:")
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}
}

func yesNo(ok bool, hashes []string) string {
	if len(hashes) != 2 {
		return "not checked"
	}
	if ok {
		return "yes (" + hashes[0] + ")"
	}
	return "no (" + hashes[0] + " vs " + hashes[1] + ")"
}

func metStr(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}
