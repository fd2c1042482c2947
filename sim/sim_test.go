package sim_test

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/simtest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestSwarm runs the correct design on random seeds of the standard swarm
// workload: no invariant may ever break. -sim.seed=N replays one seed,
// -sim.seeds=N runs N.
func TestSwarm(t *testing.T) {
	sum := simtest.Sweep(t, sim.DefaultConfig(), 300)
	if sum.Seeds > 0 && sum.Events == 0 {
		t.Fatal("the sweep ran no events")
	}
}

// TestSwarmCoversEveryBoundary: over a fixed range of seeds, every named
// boundary of the correct design receives at least one fault.
func TestSwarmCoversEveryBoundary(t *testing.T) {
	cfg := sim.DefaultConfig()
	sum := sim.NewSummary("correct")
	for seed := uint64(1); seed <= 300; seed++ {
		res, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(res)
	}
	if missing := sum.Unfaulted(model.Correct()); len(missing) > 0 {
		t.Fatalf("boundaries without a fault over 300 seeds: %v", missing)
	}
	if sum.Failed > 0 {
		t.Fatalf("correct design failed on seeds %v", sum.FailedSeeds)
	}
}

// TestDeterminism runs seeds twice and compares whole traces.
func TestDeterminism(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		_, div, err := sim.CheckDeterminism(sim.DefaultConfig(), seed)
		if err != nil {
			t.Fatal(err)
		}
		if div != nil {
			t.Fatalf("seed %d: %v\n%s", seed, div, div.Diff)
		}
	}
}

// TestRealizedPlanReplays: the faults a swarm run injected, replayed as an
// explicit plan with the swarm off, give the very same trace.
func TestRealizedPlanReplays(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		cfg := sim.DefaultConfig()
		a, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		cfg = a.Config // with the options the swarm drew
		cfg.Swarm, cfg.Plan = false, a.Realized
		b, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if a.Hash != b.Hash {
			t.Fatalf("seed %d: swarm run %s, replay of its %d realized faults %s\nplan:\n%s",
				seed, a.HashHex(), a.Realized.Len(), b.HashHex(), a.Realized)
		}
	}
}

// TestVariantsCaught: each naive variant of the core is caught within 500
// swarm seeds by the invariant its mistake breaks; the shrunk
// counterexample is small and replays to the same violation.
func TestVariantsCaught(t *testing.T) {
	cases := []struct {
		variant, invariant string
	}{
		{"no-idempotency", invariants.ExactlyOnce},
		{"no-fencing", invariants.Fencing},
		{"key-without-tenant", invariants.TenantIsolation},
		{"unbounded-retry", invariants.BoundedRetries},
		{"dual-write", invariants.NothingLost},
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			cfg := sim.DefaultConfig()
			cfg.Variant, cfg.StopOnViolation = tc.variant, true
			res := firstFailure(t, cfg, 500)
			if !breaks(res, tc.invariant) {
				t.Fatalf("seed %d broke %v, want %s", res.Seed, res.Violations, tc.invariant)
			}
			sh, err := sim.Shrink(cfg, res.Seed, res, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !breaks(sh.Result, sh.Invariant) {
				t.Fatalf("shrunk run does not reproduce %s", sh.Invariant)
			}
			if sh.Config.Plan.Len() > 2 || sh.Config.DocCount() > 2 || sh.Config.Workers > 2 {
				t.Errorf("shrunk counterexample too large: %d faults, %d jobs, %d workers\n%s",
					sh.Config.Plan.Len(), sh.Config.DocCount(), sh.Config.Workers, sh.Config.Plan)
			}
		})
	}
}

func firstFailure(t *testing.T, cfg sim.Config, seeds uint64) *sim.Result {
	t.Helper()
	for seed := uint64(1); seed <= seeds; seed++ {
		res, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() {
			return res
		}
	}
	t.Fatalf("%s not caught in %d seeds", cfg.Variant, seeds)
	return nil
}

func breaks(res *sim.Result, invariant string) bool {
	for _, v := range res.Violations {
		if v.Invariant == invariant {
			return true
		}
	}
	return false
}

// TestPropertyCorrectDesign draws a workload and a fault plan with rapid
// and checks every invariant on the correct design; rapid shrinks any
// failure to a minimal plan.
func TestPropertyCorrectDesign(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawConfig(rt)
		res, err := sim.Run(cfg, rapid.Uint64().Draw(rt, "seed"))
		if err != nil {
			rt.Fatal(err)
		}
		if res.Failed() {
			rt.Fatalf("violations: %v\nplan:\n%s", res.Violations, cfg.Plan)
		}
	})
}

func drawConfig(rt *rapid.T) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Swarm = false
	cfg.Docs = rapid.Int32Range(1, 6).Draw(rt, "docs")
	cfg.Workers = rapid.Int32Range(1, 3).Draw(rt, "workers")
	cfg.Tenants = rapid.Int32Range(1, 3).Draw(rt, "tenants")
	cfg.Plan = faults.PlanGen(int(cfg.Docs), int(cfg.Workers)).Draw(rt, "plan")
	return cfg
}

// TestThousandWorkers: many workers on a small workload drain cleanly.
func TestThousandWorkers(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Workers, cfg.Docs = 1000, 200
	res, err := sim.Run(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() || !res.Drained {
		t.Fatalf("drained=%v violations=%v", res.Drained, res.Violations)
	}
}

// TestBadConfig: invalid configurations are refused with a message naming
// the problem, never run.
func TestBadConfig(t *testing.T) {
	cases := map[string]func(c *sim.Config){
		"workers must be positive":     func(c *sim.Config) { c.Workers = 0 },
		"docs must be positive":        func(c *sim.Config) { c.Docs = -1 },
		"unknown variant":              func(c *sim.Config) { c.Variant = "nope" },
		"longer than the heartbeat":    func(c *sim.Config) { c.Model.Lease = c.Model.HeartbeatEvery },
		"maxAttempts must be positive": func(c *sim.Config) { c.Model.MaxAttempts = 0 },
		"lease must be positive":       func(c *sim.Config) { c.Model.Lease = -1 },
	}
	for want, mutate := range cases {
		cfg := sim.DefaultConfig()
		mutate(&cfg)
		_, err := sim.Run(cfg, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want error containing %q, got %v", want, err)
		}
	}
}

// TestRunnerReuseIsFresh: a Runner carried across seeds of different
// designs, sizes and options gives every seed the result a fresh run
// gives — the reuse of memory leaks no state from one seed to the next.
func TestRunnerReuseIsFresh(t *testing.T) {
	rn := sim.NewRunner()
	variants := append([]string{"correct"}, model.VariantNames()...)
	for i := range 60 {
		cfg := sim.DefaultConfig()
		cfg.Variant = variants[i%len(variants)]
		cfg.Docs = int32(4 + (i*7)%40)
		cfg.Workers = int32(1 + i%6)
		cfg.KeepTrace = i%3 == 0
		if i%5 == 0 {
			cfg.Only = []int32{1, 3}
		}
		seed := uint64(1000 + i)
		reused, err := rn.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if reused.Hash != fresh.Hash || reused.Events != fresh.Events || reused.Steps != fresh.Steps ||
			len(reused.Violations) != len(fresh.Violations) || len(reused.Trace) != len(fresh.Trace) {
			t.Fatalf("run %d (%s, seed %d): reused runner gave hash %016x, %d events, %d violations; a fresh run %016x, %d, %d",
				i, cfg.Variant, seed, reused.Hash, reused.Events, len(reused.Violations), fresh.Hash, fresh.Events, len(fresh.Violations))
		}
		if d := cmp.Diff(fresh.Metrics, reused.Metrics); d != "" {
			t.Fatalf("run %d: metrics differ (-fresh +reused):\n%s", i, d)
		}
	}
}

// Summary.Traces changes with any seed's trace and with the order of the
// seeds: equal values mean every seed, in order, had the same trace.
func TestSummaryTracesFoldsEveryHash(t *testing.T) {
	fold := func(hashes ...uint64) uint64 {
		s := sim.NewSummary("correct")
		for _, h := range hashes {
			s.Add(&sim.Result{Hash: h})
		}
		return s.Traces
	}
	base := fold(1, 2, 3)
	if base != fold(1, 2, 3) {
		t.Fatal("not a function of the hashes")
	}
	for name, other := range map[string]uint64{"one seed differs": fold(1, 2, 4), "order": fold(2, 1, 3), "one seed more": fold(1, 2, 3, 0)} {
		if other == base {
			t.Errorf("%s: same fold %016x", name, base)
		}
	}
}

// Replicate, the self-check every sweep ends with, passes on a seed's own
// hash and fails on any other.
func TestReplicate(t *testing.T) {
	cfg := sim.DefaultConfig()
	r, err := sim.Run(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Replicate(cfg, 7, r.Hash); err != nil {
		t.Fatalf("seed 7 against its own hash: %v", err)
	}
	if err := sim.Replicate(cfg, 7, r.Hash^1); err == nil || !strings.Contains(err.Error(), "nondeterminism") {
		t.Fatalf("seed 7 against another hash: %v", err)
	}
}

// Every trace line of real runs, correct and naive, reads back into its
// event at the precision it prints (the check every sweep makes on its
// first seeds, here over more of them).
func TestTraceLinesReadBack(t *testing.T) {
	for _, variant := range append([]string{"correct"}, model.VariantNames()...) {
		cfg := sim.DefaultConfig()
		cfg.Variant = variant
		for seed := uint64(1); seed <= 8; seed++ {
			r, err := sim.Run(cfg, seed)
			if err != nil {
				t.Fatal(err)
			}
			if err := sim.Replicate(cfg, seed, r.Hash); err != nil {
				t.Fatalf("%s: %v", variant, err)
			}
		}
	}
}
