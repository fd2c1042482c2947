package simtest

import (
	"context"
	"fmt"
	"strings"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// SweepTarget runs cfg against a queue of open's on the test's seeds
// ([Seeds]: saved failing seeds first, -sim.seed, a random root
// printed), and fails on the first seed an oracle finds a violation in
// ([FailTarget]). What the oracles hold the queue to is its Policy. The
// queue is opened once, reset for every seed, and closed at the end.
func SweepTarget(t TB, open func() (target.Queue, error), cfg targetsim.Config, n int) *targetsim.Summary {
	t.Helper()
	sum := targetsim.NewSummary()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("simtest: %v", err)
		return sum
	}
	q, err := open()
	if err != nil {
		t.Fatalf("simtest: opening the queue: %v", err)
		return sum
	}
	defer func() { _ = q.Close() }()
	ctx := context.Background()
	for _, seed := range Seeds(t, n) {
		res, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			t.Fatalf("seed %d: %v\n  reproduce:\n    %s", seed, err, TestCommand(t, seed))
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

// FailTarget reports a failing target run on q: saves the seed as [Fail]
// does, shrinks it, prints its violations, the shrunk counterexample and
// the commands that reproduce it — the go test line, and durasim's
// replay when durasim's CLI opens q's system — and fails the test.
func FailTarget(t TB, q target.Queue, cfg targetsim.Config, res *targetsim.Result) {
	t.Helper()
	saveFailure(t, res.Seed)
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL seed %d on %s (design %s)\n", res.Seed, res.Target, cfg.Design)
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "  violation: %s\n", v)
	}
	if res.Swarm != "" {
		fmt.Fprintf(&b, "  swarm %s\n", res.Swarm)
	}
	sh, err := targetsim.Shrink(context.Background(), q, cfg, res.Seed, res, "")
	if err != nil {
		fmt.Fprintf(&b, "  shrinking failed: %v\n", err)
		sh = nil
	} else {
		plan := "(no fault)"
		if len(sh.Config.Plan.Faults) > 0 {
			plan = sh.Config.Plan.OneLine()
		}
		fmt.Fprintf(&b, "  shrunk in %d runs to %d fault(s), %d worker(s): %s\n", sh.Runs, len(sh.Config.Plan.Faults), sh.Config.Workers, plan)
		fmt.Fprintf(&b, "  shrunk violation: %s\n", sh.Result.Violations[0])
	}
	cli := repro.TestCLI(sim.CLIProg)
	rp := &targetsim.Reproducer{CLI: cli.Command, Install: cli.Install, Test: TestCommand(t, res.Seed)}
	fmt.Fprintf(&b, "  reproduce:\n    %s\n", strings.Join(rp.Lines(q, cfg, res.Seed, sh), "\n    "))
	t.Fatalf("\n%s", b.String())
}
