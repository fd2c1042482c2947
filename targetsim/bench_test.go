package targetsim

import (
	"context"
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
