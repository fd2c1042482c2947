package mirror_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/mirror"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/sqlstore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open gives a test a backend, closed at its end.
func open(t *testing.T, driver, url string, opts ...mirror.Option) *mirror.Backend {
	t.Helper()
	b, err := mirror.Open(context.Background(), driver, url, opts...)
	if err != nil {
		t.Fatalf("open %s: %v", driver, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// sameAsModel runs each seed of cfg on the model alone and with b in
// lockstep: the history, hash and violations must be the same, and none.
func sameAsModel(t *testing.T, b *mirror.Backend, cfg sim.Config, seeds ...uint64) {
	t.Helper()
	cfg.KeepTrace = true
	withB := cfg
	withB.Backend = b
	alone, mirrored := sim.NewRunner(), sim.NewRunner()
	for _, seed := range seeds {
		want, err := alone.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mirrored.Run(withB, seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Violations) > 0 {
			t.Fatalf("seed %d: %s\n  reproduce: %s", seed, got.Violations[0], sim.Command("run", withB, seed))
		}
		if d := cmp.Diff(want.History, got.History); d != "" {
			t.Fatalf("seed %d: history differs (-model +%s):\n%s", seed, b.Name(), d)
		}
		if want.Hash != got.Hash || cmp.Diff(want.Violations, got.Violations) != "" {
			t.Fatalf("seed %d: hash %s vs %s, violations %v vs %v", seed, want.HashHex(), got.HashHex(), want.Violations, got.Violations)
		}
	}
}

func seedRange(lo, hi uint64) []uint64 {
	var out []uint64
	for s := lo; s <= hi; s++ {
		out = append(out, s)
	}
	return out
}

func TestSQLiteMatchesModel(t *testing.T) {
	n := uint64(200)
	switch {
	case raceDetector:
		n = 10
	case testing.Short():
		n = 50
	}
	sameAsModel(t, open(t, sqlstore.SQLite, ":memory:"), sim.DefaultConfig(), seedRange(1, n)...)
}

// A file database (WAL) behaves as the in-memory one.
func TestSQLiteFileMatchesModel(t *testing.T) {
	url := "file:" + t.TempDir() + "/durasim.db"
	sameAsModel(t, open(t, sqlstore.SQLite, url), sim.DefaultConfig(), seedRange(1, 5)...)
}

func TestPostgresMatchesModel(t *testing.T) {
	url := pgtest.Fresh(t, pgtest.URL(t))
	sameAsModel(t, open(t, sqlstore.Postgres, url), sim.DefaultConfig(), seedRange(1, 10)...)
}

// An ordered (FIFO) queue on PostgreSQL: its first leases each seed are
// raced by a second worker (race.go), which must get nothing.
func TestPostgresOrderedMatchesModel(t *testing.T) {
	url := pgtest.Fresh(t, pgtest.URL(t))
	cfg := sim.DefaultConfig()
	cfg.Model.Ordered = true
	n := uint64(5)
	if testing.Short() {
		n = 2
	}
	sameAsModel(t, open(t, sqlstore.Postgres, url), cfg, seedRange(1, n)...)
}

func TestOpenBadURL(t *testing.T) {
	_, err := mirror.Open(context.Background(), sqlstore.Postgres, "postgres://nobody@127.0.0.1:1/x?sslmode=disable&connect_timeout=2")
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("want a one-line error, got %v", err)
	}
}
