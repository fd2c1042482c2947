package faults_test

import (
	"fmt"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

func ExampleParse() {
	plan, err := faults.Parse(`
# crash the second lease of worker 3, then duplicate the first event
crash after_lease nth=2 worker=w3; duplicate nth=1
429   for=3s at=2s   # fields may come in any order
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(plan)
	fmt.Println(plan.OneLine())

	_, err = faults.Parse("crash after_lease nth=0")
	fmt.Println(err)
	// Output:
	// crash after_lease nth=2 worker=w3
	// duplicate nth=1
	// 429 at=2s for=3s
	// crash after_lease nth=2 worker=w3; duplicate nth=1; 429 at=2s for=3s
	// plan:1:23: nth must be >= 1, got 0
}

func ExampleInjector_Crossing() {
	plan, _ := faults.Parse("crash after_commit_before_ack nth=2 worker=*")
	in := faults.NewInjector(plan, nil, nil)
	for w := range int32(3) {
		if a := in.Crossing(model.AfterCommitBeforeAck, w); a.Ok {
			fmt.Printf("w%d: %v\n", w, a.Kind)
		} else {
			fmt.Printf("w%d: nothing\n", w)
		}
	}
	fmt.Print(in.Realized())
	// Output:
	// w0: nothing
	// w1: crash
	// w2: nothing
	// crash after_commit_before_ack nth=2 worker=*
}

func ExampleExhaustive() {
	crossings := make([]int32, len(model.Boundaries())+1)
	crossings[model.AfterLease] = 2
	crossings[model.ConsumerAfterApply] = 1
	for _, p := range faults.Exhaustive(faults.Counts{Crossings: crossings, Publishes: 1, Docs: 1, Lease: 40 * model.Millisecond}) {
		fmt.Print(p)
	}
	// Output:
	// crash after_lease nth=1 worker=*
	// crash after_lease nth=2 worker=*
	// crash consumer_after_apply nth=1
	// pause after_lease nth=1 worker=* for=42ms
	// pause after_lease nth=2 worker=* for=42ms
	// pause consumer_after_apply nth=1 for=42ms
	// duplicate nth=1
	// delay nth=1 for=40ms
	// reorder nth=1
	// transient doc=1 attempt=1
	// transient doc=1 attempt=*
	// permanent doc=1
	// poison doc=1
	// deadline doc=1 within=100ms
	// resubmit doc=1
	// resubmit-edited doc=1
	// crash-loop doc=1
	// malformed doc=1
	// 429 at=0s for=5s
	// 429 at=0s for=500ms
}

func ExampleNewSwarm() {
	r := scheduler.Derive(42, scheduler.StreamFaults)
	swarm := faults.NewSwarm(r, faults.SwarmParams{Workers: 4, Docs: 12, Lease: 30_000 * model.Millisecond, Horizon: 60_000 * model.Millisecond, MaxFaults: 12})
	fmt.Println(swarm)
	// Output:
	// swarm crash=off pause=off duplicate=7.9% delay=off reorder=off transient=7.25% permanent=off poison=3.15% 429=39.225s+2.984s,49.88s+2.742s ambiguous-commit=off deadline=7.65% resubmit=off resubmit-edited=off crash-loop=off malformed=off
}
