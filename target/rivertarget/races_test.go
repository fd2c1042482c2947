package rivertarget_test

import (
	"os"
	"strings"
	"testing"

	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// The PostgreSQL tests share one throwaway server (or $DURASIM_PG_URL's),
// stopped after the package's tests.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// A races sweep on PostgreSQL has calls wait on other actors' locks, its
// oracles pass, and a seed with a wait replays to the same trace hash. It
// stops at the first seed with a wait (seed 4 today: a few seconds), so
// make race runs it too, for the goroutines of package overlap.
func TestRacesWaitAndReplay(t *testing.T) {
	url := pgtest.Fresh(t, pgtest.URL(t))
	q, err := rivertarget.Open(t.Context(), rivertarget.Postgres, url, rivertarget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	cfg := targetsim.DefaultConfig()
	cfg.Races = true
	waited := uint64(0)
	var hash uint64
	for seed := uint64(1); seed <= 12 && waited == 0; seed++ {
		res, err := targetsim.Run(t.Context(), q, cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() {
			t.Errorf("seed %d: %v", seed, res.Violations)
		}
		if res.Counts.LockWaits > 0 {
			waited, hash = seed, res.Hash
		}
	}
	if waited == 0 {
		t.Fatal("no call of seeds 1 to 12 waited on a lock: nothing raced")
	}
	again, err := targetsim.Run(t.Context(), q, cfg, waited)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash != hash || again.Counts.LockWaits == 0 {
		t.Errorf("seed %d replayed: hash %016x (waits %d), first %016x", waited, again.Hash, again.Counts.LockWaits, hash)
	}
}

// Races mode on SQLite is refused, with the reason.
func TestRacesNeedPostgres(t *testing.T) {
	q, err := rivertarget.Open(t.Context(), rivertarget.SQLite, "", rivertarget.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	cfg := targetsim.DefaultConfig()
	cfg.Races = true
	if _, err := targetsim.Run(t.Context(), q, cfg, 1); err == nil || !strings.Contains(err.Error(), "needs -backend postgres") {
		t.Errorf("races on sqlite: %v, want refused", err)
	}
	cfg.Races = false
	if _, err := targetsim.Run(t.Context(), q, cfg, 1); err != nil {
		t.Errorf("without races: %v", err)
	}
}
