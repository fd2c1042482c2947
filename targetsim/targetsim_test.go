package targetsim

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
)

var update = flag.Bool("update", false, "rewrite testdata/hashes.golden")

var ctx = context.Background()

func openRiver(t testing.TB) *rivertarget.Queue {
	t.Helper()
	q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", rivertarget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	return q
}

func runSeed(t testing.TB, q target.Queue, cfg Config, seed uint64) *Result {
	t.Helper()
	res, err := Run(ctx, q, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Every fault's text parses back to the same fault.
func TestPlanRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := FaultKind(rapid.IntRange(int(Crash), int(faultKindCount)-1).Draw(t, "kind"))
		f := Fault{Kind: k}
		secs := func(name string) target.Time {
			return target.Time(rapid.IntRange(1, 3_600_000).Draw(t, name)) * target.Millisecond
		}
		switch k {
		case Crash, Pause:
			if rapid.Bool().Draw(t, "rescuer") {
				f.Rescuer, f.At = true, RescuerAfterStuck
			} else {
				f.Worker = rapid.IntRange(0, 64).Draw(t, "worker")
				f.At = rapid.SampledFrom([]Boundary{AfterFetch, AfterWork, AfterEffect, AfterCommit, AfterReport}).Draw(t, "at")
			}
			f.Nth = rapid.IntRange(1, 1000).Draw(t, "nth")
			if k == Pause {
				f.For = secs("for")
			}
		case Duplicate:
			f.Doc, f.AtTime = rapid.IntRange(1, 1000).Draw(t, "doc"), secs("at")
		case Retry:
			f.Doc = rapid.IntRange(1, 1000).Draw(t, "doc")
		case FewAttempts:
			f.Doc, f.Max = rapid.IntRange(1, 1000).Draw(t, "doc"), rapid.IntRange(1, MaxMaxAttempts).Draw(t, "max")
		default:
			f.Doc, f.Attempt = rapid.IntRange(1, 1000).Draw(t, "doc"), rapid.IntRange(0, 25).Draw(t, "attempt")
			if k == Slow || k == SnoozeJob {
				f.For = secs("for")
			}
		}
		p, err := Parse(f.String())
		if err != nil {
			t.Fatalf("%q: %v", f, err)
		}
		if len(p.Faults) != 1 || p.Faults[0] != f {
			t.Fatalf("%q read back as %+v, want %+v", f, p.Faults, f)
		}
	})
}

func TestParseRefuses(t *testing.T) {
	for text, want := range map[string]string{
		"explode doc=1":                             "unknown fault kind",
		"crash w=1 nth=1":                           "crash needs at=",
		"crash w=1 at=after_lunch nth=1":            "unknown boundary",
		"crash w=0 at=after_fetch nth=1":            "want an integer from 1",
		"crash w=1 at=after_fetch nth=1 for=1s":     "crash takes no for",
		"pause w=1 at=before_commit nth=1 for=2s":   "inside the handler's transaction",
		"pause rescuer at=after_fetch nth=1 for=2s": "that boundary is the workers'",
		"crash w=1 at=rescuer_after_stuck nth=1":    "that boundary is the rescuer's",
		"slow doc=1 for=-2s":                        "want a duration",
		"slow doc=1 for=2h":                         "want a duration",
		"slow doc=1 for=4000s":                      "at most 3600.000s",
		"snooze doc=1":                              "snooze needs for=",
		"error doc=1 doc=2":                         "doc given twice",
		"dup doc=1":                                 "dup needs at=",
		"retry doc=x":                               "want an integer",
		"error doc=1 rescuer":                       "error takes no rescuer",
	} {
		_, err := Parse(text)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v, want one line containing %q", text, err, want)
		}
	}
	if p, err := Parse(" ; \n"); err != nil || len(p.Faults) != 0 {
		t.Errorf("blank plan: %v, %v", p, err)
	}
}

func TestConfigValidate(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"workers": func(c *Config) { c.Workers = 0 },
		"docs":    func(c *Config) { c.Docs = MaxDocs + 1 },
		"tenants": func(c *Config) { c.Tenants = 4 },
		"max":     func(c *Config) { c.MaxAttempts = 0 },
		"worker":  func(c *Config) { c.Plan = Plan{Faults: []Fault{{Kind: Crash, Worker: 9, At: AfterFetch, Nth: 1}}} },
		"doc":     func(c *Config) { c.Plan = Plan{Faults: []Fault{{Kind: Error, Doc: 99}}} },
		"only":    func(c *Config) { c.Only = []int{0} },
	} {
		c := DefaultConfig()
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted %+v", name, c)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Error(err)
	}
}

// A seed replays byte for byte; another seed runs another history.
func TestRunDeterministic(t *testing.T) {
	q := openRiver(t)
	cfg := DefaultConfig()
	cfg.KeepTrace = true
	a, b, c := runSeed(t, q, cfg, 4), runSeed(t, q, cfg, 4), runSeed(t, q, cfg, 5)
	if a.Hash != b.Hash || strings.Join(a.Trace, "\n") != strings.Join(b.Trace, "\n") {
		t.Fatalf("seed 4 twice: %s and %s", a.HashHex(), b.HashHex())
	}
	if a.Hash == c.Hash {
		t.Fatal("seeds 4 and 5 ran the same history")
	}
	if len(a.Trace) != a.Lines || a.Lines == 0 {
		t.Fatalf("%d trace lines for %d ops", len(a.Trace), a.Lines)
	}
}

// The pinned trace hashes of a few seeds per design (River v0.51.2 on
// SQLite): a change in River's SQL, the adapter or the actors shows here
// first. Regenerate with -update and review the diff.
func TestTraceHashesPinned(t *testing.T) {
	q := openRiver(t)
	var b strings.Builder
	for _, d := range Designs() {
		cfg := DefaultConfig()
		cfg.Design = d
		for seed := uint64(1); seed <= 3; seed++ {
			res := runSeed(t, q, cfg, seed)
			fmt.Fprintf(&b, "%s seed=%d hash=%s ops=%d violations=%d\n", d, seed, res.HashHex(), res.Lines, len(res.Violations))
		}
	}
	path := filepath.Join("testdata", "hashes.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("trace hashes changed (go test -run TestTraceHashesPinned -update, then review the diff):\ngot:\n%swant:\n%s", got, want)
	}
}

// The correct handlers' effects hold on every seed (River's own
// guarantees may fail: TestRiverExceedsMaxAttempts); each naive one is
// caught by a check of its effects, on the seed the standard sweep first
// catches it.
func TestDesignsOnRiver(t *testing.T) {
	q := openRiver(t)
	firstCaught := map[Design]uint64{TxAsDocumented: 45, EffectOutsideTx: 17, CompleteOutsideTx: 14, KeyWithoutTenant: 1}
	for _, d := range Designs() {
		cfg := DefaultConfig()
		cfg.Design = d
		if d.Correct() {
			seeds := uint64(40)
			if testing.Short() {
				seeds = 10
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				if res := runSeed(t, q, cfg, seed); res.HandlerFailed() {
					t.Errorf("%s (correct) fails seed %d: %v", d, seed, res.Violations)
				}
			}
			continue
		}
		var caught uint64
		for seed := uint64(1); seed <= firstCaught[d]; seed++ {
			if runSeed(t, q, cfg, seed).HandlerFailed() {
				caught = seed
				break
			}
		}
		if caught != firstCaught[d] {
			t.Errorf("%s first caught at seed %d, want %d", d, caught, firstCaught[d])
		}
	}
}

// riverCounterexample runs a plan on one document and two workers,
// without the swarm.
func riverCounterexample(t *testing.T, q target.Queue, d Design, plan string) *Result {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Design, cfg.Docs, cfg.Workers, cfg.Swarm = d, 1, 2, false
	p, err := Parse(plan)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plan = p
	return runSeed(t, q, cfg, 1)
}

// The documented JobCompleteTx pattern writes an effect twice: attempt 1
// works past JobTimeout and the stuck horizon and is rescued; attempt 2's
// worker is still working when attempt 1's worker reports its timeout,
// which River applies to attempt 2 (the job is running: no attempt
// check); attempt 2's JobCompleteTx then returns the job retryable without
// an error, its effect commits, and attempt 3 writes it again. The checked
// handler, on the same plan, rolls attempt 2 back and writes one effect.
func TestDocumentedPatternCounterexample(t *testing.T) {
	q := openRiver(t)
	const plan = "slow doc=1 attempt=1 for=16s; slow doc=1 attempt=2 for=4s"
	res := riverCounterexample(t, q, TxAsDocumented, plan)
	if v := res.First(invariants.TargetEffectOnce); v.Invariant == "" || !strings.Contains(v.Message, "has 2 effects") {
		t.Fatalf("tx-as-documented on %q: %v", plan, res.Violations)
	}
	checked := riverCounterexample(t, q, TxChecked, plan)
	if checked.Failed() || checked.Counts.StaleCompletions != 1 || checked.Effects != 1 {
		t.Fatalf("tx-checked on %q: %v, %d stale completions, %d effects", plan, checked.Violations, checked.Counts.StaleCompletions, checked.Effects)
	}
}

// The swarm's own counterexample of the documented pattern shrinks to a
// plan without the swarm that still writes an effect twice.
func TestShrinkDocumentedPattern(t *testing.T) {
	q := openRiver(t)
	cfg := DefaultConfig()
	cfg.Design = TxAsDocumented
	failed := runSeed(t, q, cfg, 45)
	if !failed.HandlerFailed() {
		t.Fatal("seed 45 no longer fails the documented pattern")
	}
	sh, err := Shrink(ctx, q, cfg, 45, failed, invariants.TargetEffectOnce)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Config.Swarm || len(sh.Config.Plan.Faults) > 3 || sh.Result.First(invariants.TargetEffectOnce).Invariant == "" {
		t.Fatalf("shrunk to %s (swarm %v): %v", sh.Config.Plan, sh.Config.Swarm, sh.Result.Violations)
	}
}

// River's finding: attempt 1's error report, decided from the row its
// worker fetched (attempt 1 of 2: retry), lands on the job's last attempt
// (2 of 2, still working), which is then retried: a third attempt of a
// job with max_attempts 2. Whatever the handler: the checked one too.
func TestRiverExceedsMaxAttempts(t *testing.T) {
	q := openRiver(t)
	res := riverCounterexample(t, q, TxChecked, "slow doc=1 attempt=1 for=16s; slow doc=1 attempt=2 for=4s; few doc=1 max=2")
	v := res.First(invariants.TargetAttempts)
	if res.HandlerFailed() || !strings.Contains(v.Message, "fetched for attempt 3 of at most 2") {
		t.Fatalf("want only River's attempt 3 of 2: %v", res.Violations)
	}
}
