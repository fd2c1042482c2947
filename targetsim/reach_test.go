package targetsim_test

import (
	"context"
	"testing"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// TestReach holds the River workload's reach: over 200 seeds (the swarm
// turns each kind on in about half the seeds, so 2,000 seeds reach each
// feature hundreds of times), every feature of the reach table is
// reached at least once, judged by the history-only oracles, and no
// check fails but River's known one (target-attempts).
func TestReach(t *testing.T) {
	ctx := context.Background()
	q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", rivertarget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	sum := targetsim.NewSummary()
	for seed := uint64(1); seed <= 200; seed++ {
		res, err := targetsim.Run(ctx, q, targetsim.DefaultConfig(), seed)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(res)
		// target-drained holds on these seeds, so every job finished:
		// a run that still goes on to the window's end has a job its
		// drain check never counts as finished (a deleted job's late
		// report once did it, 13 seeds in 200, a third of the sweep's time).
		if res.End >= targetsim.RunLimit {
			t.Errorf("seed %d ran to the end of the drain window (%s) though every job finished", seed, target.FormatSeconds(res.End))
		}
	}
	if miss := sum.Unreached(); len(miss) > 0 {
		t.Errorf("200 seeds reach no %q", miss)
	}
	for name, n := range sum.Violations {
		if name != "target-attempts" {
			t.Errorf("%s violated in %d seeds", name, n)
		}
	}
	if len(sum.Reach) != len(targetsim.Features) {
		t.Fatalf("reach table has %d rows, want %d", len(sum.Reach), len(targetsim.Features))
	}
}
