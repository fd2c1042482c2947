package goqitetarget_test

import (
	"context"
	"testing"

	"github.com/durasim/durasim/simtest"
	"github.com/durasim/durasim/target/goqitetarget"
	"github.com/durasim/durasim/targetsim"
)

// sweepSeeds is how many seeds TestSweep runs (-sim.seeds overrides).
const sweepSeeds = 200

func openGoqite(t *testing.T) *goqitetarget.Queue {
	t.Helper()
	q, err := goqitetarget.Open(context.Background(), goqitetarget.SQLite, "", goqitetarget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	return q
}

// sweepConfig is targetsim's default workload with the handler goqite
// needs: goqite has no unique send, so a document sent again is a
// second message, and the effect must be idempotent by a key of its own
// (idempotent-key).
func sweepConfig() targetsim.Config {
	cfg := targetsim.DefaultConfig()
	cfg.Design = targetsim.IdempotentKey
	return cfg
}

// TestSweep is goqite's seeded sweep (simtest.SweepTarget): goqite's own
// Send, Receive, Extend and Delete on in-memory SQLite, its clock in a
// synctest bubble per call, judged by its Policy.
func TestSweep(t *testing.T) {
	simtest.SweepTarget(t, openGoqite(t), sweepConfig(), sweepSeeds)
}
