package sim_test

import (
	"testing"

	"github.com/durasim/durasim/sim"
)

// BenchmarkSeed runs whole seeds of the standard swarm workload and
// reports simulated events per second and seeds per second.
func BenchmarkSeed(b *testing.B) {
	cfg := sim.DefaultConfig()
	var events uint64
	b.ReportAllocs()
	rn := sim.NewRunner()
	for i := 0; b.Loop(); i++ {
		res, err := rn.Run(cfg, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/secs, "events/s")
	b.ReportMetric(float64(b.N)/secs, "seeds/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/seed")
}

// BenchmarkLargeRun is one long run: many workers, many documents.
func BenchmarkLargeRun(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.Workers, cfg.Docs = 200, 20_000
	cfg.ArrivalGap = cfg.ArrivalGap / 50
	var events uint64
	for i := 0; b.Loop(); i++ {
		res, err := sim.Run(cfg, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
