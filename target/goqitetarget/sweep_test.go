package goqitetarget_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/invariants"

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
// (idempotent-key). Its swarm draws no clock fault: a worker's clock off
// from the others' breaks goqite's timeout (TestClockSkewBreaksTheTimeout).
func sweepConfig() targetsim.Config {
	cfg := targetsim.DefaultConfig()
	cfg.Design = targetsim.IdempotentKey
	cfg.SwarmClocks = false
	return cfg
}

// TestSweep is goqite's seeded sweep (simtest.SweepTarget): goqite's own
// Send, Receive, Extend and Delete on in-memory SQLite, its clock in a
// synctest bubble per call, judged by its Policy.
func TestSweep(t *testing.T) {
	simtest.SweepTarget(t, openGoqite(t), sweepConfig(), sweepSeeds)
}

// goqite compares each timeout with the clock of the process that
// receives: a worker whose clock runs ahead receives a message another
// worker holds before its timeout (target-consistency: fetched while
// running), and one that runs behind waits past it. The swarm's clock
// faults find it on some seeds; every failing seed has a skew in force,
// the handler's effects hold on all, and the first shrinks to a skew.
func TestClockSkewBreaksTheTimeout(t *testing.T) {
	q := openGoqite(t)
	cfg := sweepConfig()
	cfg.SwarmClocks = true
	var first *targetsim.Result
	for seed := uint64(1); seed <= 60; seed++ {
		res, err := targetsim.Run(context.Background(), q, cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Failed() {
			continue
		}
		if res.HandlerFailed() || !skewed(res.Realized) {
			t.Fatalf("seed %d: %v with plan %s: want only the queue's checks, under a skew", seed, res.Violations, res.Realized.OneLine())
		}
		if first == nil {
			first = res
		}
	}
	if first == nil {
		t.Fatal("no seed of 60 with the swarm's clock faults broke goqite's timeout")
	}
	inv := first.Violations[0].Invariant
	sh, err := targetsim.Shrink(context.Background(), q, cfg, first.Seed, first, inv)
	if err != nil {
		t.Fatal(err)
	}
	if !skewed(sh.Config.Plan) || inv != invariants.TargetConsistency {
		t.Fatalf("seed %d shrank to %s breaking %s; want a skew breaking %s", first.Seed, sh.Config.Plan.OneLine(), inv, invariants.TargetConsistency)
	}
	t.Logf("seed %d: %s; shrunk: %s", first.Seed, first.Violations[0], sh.Config.Plan.OneLine())
}

func skewed(p faults.Plan) bool {
	return slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind == faults.ClockAhead || f.Kind == faults.ClockBehind })
}

// goqite's PostgreSQL flavour, driven the same way, agrees with SQLite
// seed by seed: the same trace hash, the same verdicts (the default
// design and the swarm's clock faults, so that failing seeds are
// compared too), and the first failing seed replayed on PostgreSQL
// gives the same trace again.
func TestPostgresAgreesWithSQLite(t *testing.T) {
	ctx := context.Background()
	lite := openGoqite(t)
	pg, err := goqitetarget.Open(ctx, goqitetarget.Postgres, pgtest.URL(t), goqitetarget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close() })
	cfg := targetsim.DefaultConfig()
	cfg.KeepTrace = true
	failed := 0
	for _, seed := range simtest.Seeds(t, 30) {
		a, err := targetsim.Run(ctx, lite, cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		b, err := targetsim.Run(ctx, pg, cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if a.Hash != b.Hash || !slices.Equal(a.Trace, b.Trace) || fmt.Sprint(a.Violations) != fmt.Sprint(b.Violations) {
			t.Fatalf("seed %d: sqlite %016x %v, postgres %016x %v", seed, a.Hash, a.Violations, b.Hash, b.Violations)
		}
		if a.Failed() {
			failed++
		}
		if failed == 1 && a.Failed() {
			again, err := targetsim.Run(ctx, pg, cfg, seed)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(again.Trace, b.Trace) || again.Hash != b.Hash {
				t.Fatalf("failing seed %d replayed on postgres: a different trace", seed)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no seed of the default design failed on either backend: nothing compared but passes")
	}
}
