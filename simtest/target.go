package simtest

import (
	"bytes"
	"context"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// SweepTarget is [Sweep] for a queue durasim does not own: it runs cfg
// against q on the test's seeds ([Seeds]: saved failing seeds first,
// -sim.seed, -sim.seeds, -sim.root, the random root printed) and fails on
// the first seed the target oracle rejects ([FailTarget]). q is reset by
// each run (targetsim.Run), so one queue serves the sweep.
func SweepTarget(t TB, q target.Queue, cfg targetsim.Config, n int) *targetsim.Summary {
	t.Helper()
	sum := targetsim.NewSummary()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("simtest: %v", err)
		return sum
	}
	ctx := context.Background()
	for _, seed := range Seeds(t, n) {
		res, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
			return sum
		}
		sum.Add(res)
		if res.Failed() {
			FailTarget(t, q, cfg, res)
			return sum
		}
	}
	return sum
}

// FailTarget reports a failing target run as [Fail] reports a model run:
// it saves the seed under testdata/sim-failures/<test> (it then runs first
// until the file is deleted), shrinks it, prints its story
// (targetsim.WriteFailure) with the go test command that replays it — the
// seed, not the shrunk configuration: the run is deterministic, so the
// seed fails the same way and shrinks to the same counterexample, and a
// user's queue has no durasim command of its own — and fails the test.
func FailTarget(t TB, q target.Queue, cfg targetsim.Config, res *targetsim.Result) {
	t.Helper()
	saveFailure(t, res.Seed)
	var buf bytes.Buffer
	targetsim.WriteFailure(context.Background(), &buf, q, cfg, res, func(*targetsim.Shrunk) []string {
		return []string{TestCommand(t, res.Seed)}
	})
	t.Fatalf("\n%s", buf.String())
}
