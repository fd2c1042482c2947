package simtest

import (
	"bytes"
	"context"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/sim"
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
// seed fails the same way and shrinks to the same counterexample — then,
// for a queue of a system durasim's CLI opens (target.CLISystem: River),
// durasim's replay of the seed and of the shrunk run naming that system;
// a user's queue gets the go test line only. It fails the test.
func FailTarget(t TB, q target.Queue, cfg targetsim.Config, res *targetsim.Result) {
	t.Helper()
	saveFailure(t, res.Seed)
	var buf bytes.Buffer
	cli := repro.TestCLI(sim.CLIProg)
	rp := &targetsim.Reproducer{CLI: cli.Command, Install: cli.Install, Test: TestCommand(t, res.Seed)}
	targetsim.WriteFailure(context.Background(), &buf, q, cfg, res, func(sh *targetsim.Shrunk) []string {
		return rp.Lines(q, cfg, res.Seed, sh)
	})
	t.Fatalf("\n%s", buf.String())
}
