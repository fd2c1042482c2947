package targetsim

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/durasim/durasim/target/rivertarget"
)

// BenchmarkSeedRiverSQLite is one seed of the standard sweep against River
// on in-memory SQLite: the River target's cost per seed.
func BenchmarkSeedRiverSQLite(b *testing.B) {
	ctx := context.Background()
	q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", rivertarget.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	cfg := DefaultConfig()
	seed := uint64(0)
	for b.Loop() {
		seed++
		if _, err := Run(ctx, q, cfg, seed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeedRiverSQLiteParallel is BenchmarkSeedRiverSQLite on
// GOMAXPROCS goroutines at once, each on a database of its own (as
// run -target river -parallel N): ns/op is wall time per seed, so its
// ratio to BenchmarkSeedRiverSQLite's is what -parallel gains.
func BenchmarkSeedRiverSQLiteParallel(b *testing.B) {
	ctx := context.Background()
	cfg := DefaultConfig()
	var next atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", rivertarget.DefaultConfig())
		if err != nil {
			b.Error(err)
			return
		}
		defer q.Close()
		for pb.Next() {
			if _, err := Run(ctx, q, cfg, next.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
