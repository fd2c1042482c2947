package targetsim

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/scheduler"
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

var river = Vocabulary("river")

// A River plan is written in the model's form; what River does not have
// is refused with the model's kind of one-line error, at its column.
func TestParseRiverPlans(t *testing.T) {
	const text = "crash after_fetch nth=1 worker=w1; pause after_effect nth=2 worker=* for=15s\n" +
		"crash rescuer_after_stuck nth=1; slow doc=3 attempt=1 for=1.5s; transient doc=2 attempt=*\n" +
		"cancel doc=4 attempt=2; snooze doc=5 attempt=1 for=250ms; resubmit doc=1 at=0s; redrive doc=2; few-attempts doc=3 max=1\n"
	p, err := river.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []faults.Fault{
		{Kind: faults.Crash, Boundary: boundary.AfterFetch, Worker: 1, Nth: 1},
		{Kind: faults.Pause, Boundary: boundary.AfterEffect, Worker: faults.AnyWorker, Nth: 2, For: 15 * target.Second},
		{Kind: faults.Crash, Boundary: boundary.RescuerAfterStuck, Worker: faults.AnyWorker, Nth: 1},
		{Kind: faults.Slow, Doc: 3, Attempt: 1, For: 1500 * ms},
		{Kind: faults.Transient, Doc: 2},
		{Kind: faults.Cancel, Doc: 4, Attempt: 2},
		{Kind: faults.Snooze, Doc: 5, Attempt: 1, For: 250 * ms},
		{Kind: faults.ResubmitAt, Doc: 1},
		{Kind: faults.Redrive, Doc: 2},
		{Kind: faults.FewAttempts, Doc: 3, Max: 1},
	}
	if !slices.Equal(p.Faults, want) {
		t.Fatalf("parsed %+v\nwant   %+v", p.Faults, want)
	}
	if got := strings.ReplaceAll(p.String(), "\n", "; "); got != strings.ReplaceAll(text, "\n", "; ") {
		t.Errorf("printed back as %q", got)
	}
}

func TestParseRiverRefuses(t *testing.T) {
	for text, want := range map[string]string{
		"explode doc=1":                             `plan:1:1: unknown fault kind "explode" (river has crash, pause, slow, transient, cancel, snooze, resubmit, redrive, few-attempts, clock-ahead, clock-behind, zone, dst, outside-cancel, delete, metadata, out-of-band, batch-insert, worker-timeout, no-timeout)`,
		"poison doc=1":                              "plan:1:1: river has no fault kind poison (it has crash, pause,",
		"crash after_lease nth=1":                   "plan:1:7: river has no boundary after_lease (it has after_fetch, after_work, after_effect, before_commit, after_commit, after_report, rescuer_after_stuck)",
		"crash after_lunch nth=1":                   `plan:1:7: unknown boundary "after_lunch" (river has after_fetch,`,
		"crash nth=1":                               "plan:1:7: crash needs a boundary before its fields (river has after_fetch,",
		"crash after_fetch worker=w0":               "plan:1:1: missing required field nth for crash at after_fetch",
		"crash after_fetch nth=1 for=1s":            `plan:1:25: unknown key "for" for crash (want nth, worker)`,
		"pause before_commit nth=1 for=2s":          "plan:1:7: pause at before_commit: inside the handler's transaction",
		"crash rescuer_after_stuck nth=1 worker=w0": "plan:1:33: worker given for non-worker boundary rescuer_after_stuck",
		"crash after_fetch nth=1 worker=1":          `plan:1:32: malformed worker "1" (want * or wN)`,
		"slow doc=1 attempt=1 for=-2s":              "plan:1:26: for must be > 0, got -2s",
		"slow doc=1 attempt=1 for=2h":               "plan:1:26: for must be at most 1h0m0s, got 2h0m0s",
		"slow doc=1 attempt=1 for=1.5ms":            "plan:1:26: for=1.5ms: river takes whole multiples of 1ms",
		"snooze doc=1 attempt=1":                    "plan:1:1: missing required field for for snooze",
		"transient doc=1 doc=2":                     "plan:1:17: duplicate key doc",
		"resubmit doc=1":                            "plan:1:1: missing required field at for resubmit",
		"redrive doc=x":                             `plan:1:13: bad number "x" for doc`,
		"few-attempts doc=1 max=0":                  "plan:1:24: max must be >= 1, got 0",
		"cancel doc=1 attempt=1\nerror doc=2":       `plan:2:1: unknown fault kind "error"`,
	} {
		_, err := river.Parse(text)
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v, want one line starting %q", text, err, want)
		}
	}
	if p, err := river.Parse(" ; \n# nothing"); err != nil || len(p.Faults) != 0 {
		t.Errorf("blank plan: %v, %v", p, err)
	}
}

// The swarm's faults are the seam's: valid, and printed in a form that
// parses back to them.
func TestSwarmFaultsRoundTrip(t *testing.T) {
	pol := rivertarget.DefaultConfig()
	for seed := uint64(1); seed <= 200; seed++ {
		fs, _ := swarmFaults(scheduler.Derive(seed, streamSwarm), DefaultConfig(), target.Policy{RescueAfter: pol.RescueAfter}, true)
		p := faults.Plan{Faults: fs}
		if err := river.Validate(p); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		back, err := river.Parse(p.OneLine())
		if err != nil || !slices.Equal(back.Faults, fs) {
			t.Fatalf("seed %d: %q read back as %v, %v", seed, p.OneLine(), back, err)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	plan := func(f faults.Fault) func(*Config) {
		return func(c *Config) { c.Plan = faults.Plan{Faults: []faults.Fault{f}} }
	}
	for want, mod := range map[string]func(*Config){
		"invalid -workers 0":      func(c *Config) { c.Workers = 0 },
		"invalid -docs 1001":      func(c *Config) { c.Docs = MaxDocs + 1 },
		"invalid -tenants 4":      func(c *Config) { c.Tenants = 4 },
		"invalid -max-attempts 0": func(c *Config) { c.MaxAttempts = 0 },
		"fault 1 (crash after_fetch nth=1 worker=w4): worker w4, but -workers is 4 (workers w0 to w3)": plan(faults.Fault{
			Kind: faults.Crash, Boundary: boundary.AfterFetch, Worker: 4, Nth: 1}),
		"fault 1 (transient doc=9 attempt=*): document 9, but -docs is 8": plan(faults.Fault{Kind: faults.Transient, Doc: 9}),
		"max 26, but a job's max attempts is at most 25":                  plan(faults.Fault{Kind: faults.FewAttempts, Doc: 1, Max: 26}),
		"the target seam has no fault kind poison":                        plan(faults.Fault{Kind: faults.Poison, Doc: 1}),
		"the target seam has no boundary after_lease": plan(faults.Fault{Kind: faults.Crash, Boundary: boundary.AfterLease,
			Worker: faults.AnyWorker, Nth: 1}),
		"invalid -only 0": func(c *Config) { c.Only = []int{0} },
	} {
		c := DefaultConfig()
		mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
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
	firstCaught := map[Design]uint64{TxAsDocumented: 108, EffectOutsideTx: 17, CompleteOutsideTx: 14, KeyWithoutTenant: 1}
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
	p, err := river.Parse(plan)
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
	failed := runSeed(t, q, cfg, 108)
	if !failed.HandlerFailed() {
		t.Fatal("seed 108 no longer fails the documented pattern")
	}
	sh, err := Shrink(ctx, q, cfg, 108, failed, invariants.TargetEffectOnce)
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
	res := riverCounterexample(t, q, TxChecked, "slow doc=1 attempt=1 for=16s; slow doc=1 attempt=2 for=4s; few-attempts doc=1 max=2")
	v := res.First(invariants.TargetAttempts)
	if res.HandlerFailed() || !strings.Contains(v.Message, "fetched for attempt 3 of at most 2") {
		t.Fatalf("want only River's attempt 3 of 2: %v", res.Violations)
	}
}

var idleSeeds = flag.Uint64("idle.seeds", 40, "seeds TestIdlePollsSkipped, TestIdleSchedulesSkipped and TestIdleStuckSkipped run (the sweep's 2000 to check them whole)")

// A poll the database judges certain to be empty is skipped; run anyway
// (rivertarget.VerifyIdlePolls) none finds a job, and the traces are the
// ones the skipping run makes.
func TestIdlePollsSkipped(t *testing.T) {
	skipsAgree(t, &rivertarget.VerifyIdlePolls, func(s rivertarget.Skips) int { return s.Polls })
}

// A scheduler pass the database judges certain to move nothing is
// skipped; run anyway (rivertarget.VerifyIdleSchedules) none moves a job,
// and the traces are the ones the skipping run makes.
func TestIdleSchedulesSkipped(t *testing.T) {
	skipsAgree(t, &rivertarget.VerifyIdleSchedules, func(s rivertarget.Skips) int { return s.Passes })
}

// A rescuer's read of stuck jobs the database judges certain to find none
// is skipped; run anyway (rivertarget.VerifyIdleStuck) none finds a job,
// and the traces are the ones the skipping run makes.
func TestIdleStuckSkipped(t *testing.T) {
	skipsAgree(t, &rivertarget.VerifyIdleStuck, func(s rivertarget.Skips) int { return s.Stuck })
}

// skipsAgree runs the idle seeds with the skip, then with verify set (the
// SQL run anyway, a call failed if it found a job), and wants each seed's
// trace hash, lines and violations the same both ways, and some SQL
// judged certain (skipped) each way.
func skipsAgree(t *testing.T, verify *bool, judged func(rivertarget.Skips) int) {
	q := openRiver(t)
	cfg := DefaultConfig()
	n := *idleSeeds
	if testing.Short() {
		n = min(n, 10)
	}
	skipped := make(map[uint64]string, n)
	for seed := uint64(1); seed <= n; seed++ {
		res := runSeed(t, q, cfg, seed)
		skipped[seed] = fmt.Sprintf("%s %d %d", res.HashHex(), res.Lines, len(res.Violations))
	}
	first := judged(q.Skipped())
	if first == 0 {
		t.Fatalf("seeds 1..%d: nothing judged certain, so nothing skipped", n)
	}
	*verify = true
	defer func() { *verify = false }()
	for seed := uint64(1); seed <= n; seed++ {
		res := runSeed(t, q, cfg, seed)
		if got := fmt.Sprintf("%s %d %d", res.HashHex(), res.Lines, len(res.Violations)); got != skipped[seed] {
			t.Errorf("seed %d: run: %s, skipped: %s", seed, got, skipped[seed])
		}
	}
	if again := judged(q.Skipped()) - first; again != first {
		t.Errorf("judged certain: %d skipping, %d verifying; want the same", first, again)
	}
}
