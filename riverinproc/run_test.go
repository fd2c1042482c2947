package riverinproc

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/bubble"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// The correct design passes over a few seeds, with River's rescuer
// having handed a frozen client's job to another (a takeover) and every
// kill landed.
func TestCorrectDesignPasses(t *testing.T) {
	c := DefaultConfig()
	c.Seeds = "1:2"
	var out bytes.Buffer
	res, err := Sweep(bubble.New(t), c, &out, "durasim")
	if err != nil {
		t.Fatal(err)
	}
	if res.Seeds != 2 || len(res.Failures) != 0 {
		t.Fatalf("tx-checked: %d seeds, %d failed:\n%s", res.Seeds, len(res.Failures), out.String())
	}
	for _, rep := range res.Reports {
		if rep.TotalKills() != c.Kills || rep.Takeovers < c.Zombies || rep.Restarts != c.Kills || !rep.Drained {
			t.Errorf("seed %d: %d kills, %d takeovers, %d restarts, drained %v; want %d kills and restarts, a takeover, drained",
				rep.Seed, rep.TotalKills(), rep.Takeovers, rep.Restarts, rep.Drained, c.Kills)
		}
	}
}

// effect-outside-tx is caught (a kill after its effect leaves the job to
// River's rescuer, and the retry writes the effect again), and its
// failure says how often it reproduced and prints the command that runs
// it again.
func TestNaiveDesignCaught(t *testing.T) {
	c := DefaultConfig()
	c.Seeds, c.Design, c.Reruns = "4:4", targetsim.EffectOutsideTx, 2
	var out bytes.Buffer
	res, err := Sweep(bubble.New(t), c, &out, "durasim")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 {
		t.Fatalf("effect-outside-tx not caught:\n%s", out.String())
	}
	f := res.Failures[0]
	if !strings.Contains(violated(f.Report), "target-effect-once") || f.Reruns != 2 || f.Reproduced < 1 {
		t.Errorf("failure %s, reproduced %d of %d; want target-effect-once, again at least once", violated(f.Report), f.Reproduced, f.Reruns)
	}
	want := "durasim chaos -target river -inprocess -seeds 4:4 -design effect-outside-tx -reruns 2"
	if f.Command != want || !strings.Contains(out.String(), "reproduced ") || !strings.Contains(out.String(), want) {
		t.Errorf("command %q, want %q; output:\n%s", f.Command, want, out.String())
	}
}

// TestEverySettingReproduces changes each setting of Config alone and
// checks that the printed command brings it back: no setting can be
// dropped from a reproduce line.
func TestEverySettingReproduces(t *testing.T) {
	for _, path := range repro.Leaves(reflect.TypeFor[Config]()) {
		c := DefaultConfig()
		v := reflect.ValueOf(&c).Elem().FieldByName(path)
		switch {
		case path == "Seeds":
			v.SetString("3:9")
		case path == "Design":
			c.Design = targetsim.IdempotentKey
		case repro.Change(v):
		default:
			t.Fatalf("%s: a %v this test cannot change", path, v.Type())
		}
		if un := c.Unflagged(); len(un) > 0 {
			t.Errorf("%s: no flag sets %v", path, un)
		}
		back := DefaultConfig()
		words := repro.ShellWords(c.Command("durasim", 7))
		if len(words) < 5 || strings.Join(words[:5], " ") != "durasim chaos -target river -inprocess" {
			t.Fatalf("%s: command %q", path, words)
		}
		for _, p := range repro.Pairs(words[5:]) {
			if err := SetFlag(&back, p[0], p[1]); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		want := c
		want.Seeds = "7:7"
		if back != want {
			t.Errorf("%s: %q parsed back as %+v, want %+v", path, words, back, want)
		}
	}
}

// Bad settings are one-line usage errors.
func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*Config){
		"seeds":      func(c *Config) { c.Seeds = "5:2" },
		"steady 0":   func(c *Config) { c.Steady = 0 },
		"rescue":     func(c *Config) { c.RescueAfter = c.JobTimeout },
		"design":     func(c *Config) { c.Design = targetsim.Outbox },
		"zombies":    func(c *Config) { c.PauseEvery = 0 },
		"work":       func(c *Config) { c.Work = c.JobTimeout },
		"max-freeze": func(c *Config) { c.MaxFreeze = c.RescueAfter },
	} {
		c := DefaultConfig()
		mod(&c)
		if err := c.Validate(); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line error", name, err)
		}
	}
}

// A killed client's calls fail and its open transaction's COMMIT never
// lands; a frozen client's calls wait until it is thawed; a live one's
// go through.
func TestGate(t *testing.T) {
	dsn := "file:" + filepath.Join(t.TempDir(), "g.db") + "?_pragma=journal_mode(WAL)"
	bubble.New(t).At(bubbleStart, func() {
		ctx := context.Background()
		lock := make(dbLock, 1)
		admin := openDB(dsn, &ctl{}, lock, 2)
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, "CREATE TABLE t (x INTEGER)"); err != nil {
			t.Fatal(err)
		}
		k := &ctl{}
		db := openDB(dsn, k, lock, 2)
		defer db.Close()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		k.kill()
		if err := tx.Commit(); !errors.Is(err, ErrKilled) {
			t.Errorf("commit after the kill: %v, want ErrKilled", err)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (2)"); !errors.Is(err, ErrKilled) {
			t.Errorf("exec after the kill: %v, want ErrKilled", err)
		}
		f := &ctl{}
		fdb := openDB(dsn, f, lock, 2)
		defer fdb.Close()
		f.freeze()
		go func() { time.Sleep(time.Minute); f.thaw() }()
		t0 := time.Now()
		if _, err := fdb.ExecContext(ctx, "INSERT INTO t VALUES (3)"); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); d != time.Minute {
			t.Errorf("a frozen client's call returned after %v, want when thawed (1m)", d)
		}
		var n int
		if err := admin.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
			t.Errorf("rows %d (%v), want only the thawed client's", n, err)
		}
	})
}

// shrunkFails runs a failure's shrunk plan as its command prints it (the
// command's flags parsed back into a targetsim.Config) on River's
// deterministic mode, and reports whether it fails check.
func shrunkFails(t *testing.T, c Config, sh *Shrunk, check string) bool {
	t.Helper()
	words := repro.ShellWords(sh.Command)
	i := slices.Index(words, "-seed")
	if i < 0 || words[i+1] != strconv.FormatUint(sh.Seed, 10) {
		t.Fatalf("command %q: no -seed %d", sh.Command, sh.Seed)
	}
	cfg := targetsim.DefaultConfig()
	for _, p := range repro.Pairs(words[i+2:]) {
		if err := targetsim.SetFlag(&cfg, p[0], p[1]); err != nil {
			t.Fatalf("%s: %v", sh.Command, err)
		}
	}
	q, err := rivertarget.Open(context.Background(), rivertarget.SQLite, "", rivertarget.CLIConfig(target.Time(c.RescueAfter)))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	res, err := targetsim.Run(context.Background(), q, cfg, sh.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return res.First(check).Invariant == check
}

// The naive design's failure shrinks to a deterministic plan (a crash
// after the effect) whose printed command fails the same check.
func TestNaiveFailureShrinks(t *testing.T) {
	c := DefaultConfig()
	c.Seeds, c.Design, c.Reruns = "4:4", targetsim.EffectOutsideTx, 0
	var out bytes.Buffer
	res, err := Sweep(bubble.New(t), c, &out, "durasim")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || res.Failures[0].Deterministic == nil || res.Failures[0].Deterministic.Shrunk == nil {
		t.Fatalf("no shrunk plan:\n%s", out.String())
	}
	sh := res.Failures[0].Deterministic.Shrunk
	if sh.Check != "target-effect-once" || !strings.Contains(sh.Plan, "crash after_effect") || !strings.Contains(out.String(), "shrunk to a deterministic plan") {
		t.Errorf("shrunk %+v; output:\n%s", sh, out.String())
	}
	if !shrunkFails(t, c, sh, sh.Check) {
		t.Errorf("%s does not fail %s", sh.Command, sh.Check)
	}
	if shrunkFails(t, c, sh, "target-tenant-isolation") {
		t.Errorf("%s fails target-tenant-isolation too: the check the helper looks for is not read", sh.Command)
	}
}

// tx-as-documented's in-process failure is searched for a deterministic
// plan: either one that fails the same check as printed, or the honest
// line that none did (the candidates tried counted).
func TestDocumentedFailureSearched(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: an in-process run")
	}
	c := DefaultConfig()
	c.Seeds, c.Design, c.Reruns = "1:1", targetsim.TxAsDocumented, 0
	var out bytes.Buffer
	res, err := Sweep(bubble.New(t), c, &out, "durasim")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 {
		t.Skipf("seed 1 passed this time (the in-process mode does not replay):\n%s", out.String())
	}
	d := res.Failures[0].Deterministic
	switch {
	case d == nil || d.Tried == 0:
		t.Fatalf("no candidate plan tried:\n%s", out.String())
	case d.Shrunk == nil:
		if !strings.Contains(out.String(), "no deterministic plan reproduces "+d.Check) {
			t.Errorf("output does not say none reproduced:\n%s", out.String())
		}
	case !shrunkFails(t, c, d.Shrunk, d.Check):
		t.Errorf("%s does not fail %s", d.Shrunk.Command, d.Check)
	}
}

// A record translates into plans: the kill as a crash at its boundary by
// its slot's worker (the slot's nth crossing), the freeze as a pause
// after that worker's fetch of the job, and as slow work of its document.
func TestCandidatesFromRecord(t *testing.T) {
	lines := []workload.Entry{
		{Op: workload.OpInsert, Proc: "client", Job: 7, Tenant: workload.DocOf(2).Tenant, Doc: workload.DocOf(2).Doc, Version: 1},
		{Op: workload.OpStart, Proc: "w0"}, {Op: workload.OpStart, Proc: "w1"}, {Op: workload.OpStart, Proc: "w1.1"},
		{Op: workload.OpFetch, Proc: "w1", Job: 3, Attempt: 1}, {Op: workload.OpKill, Proc: "w1", Point: "after_fetch"},
		{Op: workload.OpFetch, Proc: "w1.1", Job: 7, Attempt: 1},
		{Op: workload.OpStop, Proc: "client", Point: "w1.1", Job: 7, Attempt: 1, T0: 1e9},
		{Op: workload.OpCont, Proc: "client", Point: "w1.1", Job: 7, Attempt: 1, T0: 25e9},
	}
	got := candidates(DefaultConfig(), lines, 8)
	if len(got) == 0 {
		t.Fatal("no candidates")
	}
	want := "crash after_fetch nth=1 worker=w1; pause after_fetch nth=2 worker=w1 for=24s"
	if got[0].OneLine() != want {
		t.Errorf("first candidate %q, want %q", got[0].OneLine(), want)
	}
	if !slices.ContainsFunc(got, func(p faults.Plan) bool { return p.OneLine() == "slow doc=2 attempt=1 for=24s" }) {
		t.Errorf("no slow work of document 2 among %v", got)
	}
}
