package riverinproc

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/internal/bubble"
	"github.com/durasim/durasim/internal/repro"
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
