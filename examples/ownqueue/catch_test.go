package ownqueue_test

import (
	"context"
	"testing"
	"time"

	"github.com/durasim/durasim/examples/ownqueue"
	"github.com/durasim/durasim/internal/catchtime"
	"github.com/durasim/durasim/targetsim"
)

// catchTrials and catchSeeds are the time-to-catch search: that many
// disjoint ranges of that many seeds (TestSweep's count), as `durasim
// mutants -trials` searches the model's variants and River's designs.
const (
	catchTrials = 20
	catchSeeds  = sweepSeeds
)

// BenchmarkTimeToCatch is a planted bug's time to catch (build with its
// tag: go test -tags ownqueue_bug_early_redelivery -run NONE -bench
// TimeToCatch ./examples/ownqueue): in each trial the sweep runs seeds in
// order until one fails; the figure is the median over trials of seeds to
// catch times seconds per seed (package catchtime). Without a tag nothing
// is caught, and each trial counts the seeds it ran.
func BenchmarkTimeToCatch(b *testing.B) {
	ctx := context.Background()
	q := ownqueue.NewTarget(ownqueue.DefaultConfig())
	cfg := sweepConfig()
	var fig catchtime.Figure
	var seeds []float64
	caught := 0
	for b.Loop() {
		seeds, caught = seeds[:0], 0
		var wall time.Duration
		ran := 0
		for trial := range catchTrials {
			start := time.Now()
			n := catchSeeds
			for i := 1; i <= catchSeeds; i++ {
				res, err := targetsim.Run(ctx, q, cfg, uint64(trial*catchSeeds+i))
				if err != nil {
					b.Fatal(err)
				}
				ran++
				if res.Failed() {
					n, caught = i, caught+1
					break
				}
			}
			seeds = append(seeds, float64(n))
			wall += time.Since(start)
		}
		fig = catchtime.Of(seeds, wall, ran)
	}
	median, _ := catchtime.MedianWorst(seeds)
	b.ReportMetric(float64(caught), "caught-trials")
	b.ReportMetric(median, "seeds-to-catch")
	b.ReportMetric(fig.SecondsPerSeed*1e6, "µs/seed")
	b.ReportMetric(fig.MedianSeconds*1e3, "ms-to-catch")
}
