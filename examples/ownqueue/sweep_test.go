package ownqueue_test

import (
	"testing"

	"github.com/durasim/durasim/examples/ownqueue"
	"github.com/durasim/durasim/simtest"
	"github.com/durasim/durasim/targetsim"
)

// sweepSeeds is how many seeds TestSweep runs (-sim.seeds overrides).
const sweepSeeds = 300

// sweepConfig is the sweep's workload: targetsim's default (four workers,
// eight documents of two tenants, four receives each, the seed's swarm of
// faults) with the handler this queue needs. The queue deduplicates a
// body only while its message lives, so a document sent again after its
// message was deleted runs again, and the effect must be idempotent by a
// key of its own (idempotent-key). targetsim's default handler,
// tx-checked, fails here with target-effect-once: that is the queue's
// rule, declared in its Policy (UniqueStates), not a fault of the queue.
func sweepConfig() targetsim.Config {
	cfg := targetsim.DefaultConfig()
	cfg.Design = targetsim.IdempotentKey
	return cfg
}

// TestSweep is the queue's seeded sweep (simtest.SweepTarget): each seed
// runs the workload against a fresh queue and the target oracle judges
// its history by the queue's Policy. -sim.seed=N runs one seed,
// -sim.seeds=N sets how many, -sim.root=R repeats a random root the test
// printed; a failing seed is saved under testdata/sim-failures and runs
// first next time, and is printed shrunk with the go test command that
// replays it (with the build tags of this test binary: a planted bug's).
func TestSweep(t *testing.T) {
	simtest.SweepTarget(t, ownqueue.NewTarget(ownqueue.DefaultConfig()), sweepConfig(), sweepSeeds)
}
