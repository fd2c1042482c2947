package sim_test

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// TestLimits: every bound is refused one past it, by Validate, and
// accepted at it.
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		want      string
		at, above func(c *sim.Config)
	}{
		{"workers must be at most 100000",
			func(c *sim.Config) { c.Workers = sim.MaxWorkers },
			func(c *sim.Config) { c.Workers = sim.MaxWorkers + 1 }},
		{"docs must be at most 1000000",
			func(c *sim.Config) { c.Docs, c.ArrivalGap = sim.MaxDocs, model.Millisecond },
			func(c *sim.Config) { c.Docs, c.ArrivalGap = sim.MaxDocs+1, model.Millisecond }},
		{"heartbeat interval must be at least 1ms",
			func(c *sim.Config) { c.Model.HeartbeatEvery = sim.MinHeartbeat },
			func(c *sim.Config) { c.Model.HeartbeatEvery = sim.MinHeartbeat - 1 }},
		{"lease must be at most 1h0m0s",
			func(c *sim.Config) { c.Model.Lease = sim.MaxLease },
			func(c *sim.Config) { c.Model.Lease = sim.MaxLease + 1 }},
		{"docs × arrival gap must be at most 720h0m0s",
			func(c *sim.Config) { c.Docs, c.ArrivalGap = 24, sim.MaxArrivalSpan/24 },
			func(c *sim.Config) { c.Docs, c.ArrivalGap = 24, sim.MaxArrivalSpan/24+1 }},
		{"docs × arrival gap", // would overflow if multiplied
			func(c *sim.Config) {},
			func(c *sim.Config) { c.Docs, c.ArrivalGap = sim.MaxDocs, 1<<62 }},
		{"times must be at most 720h0m0s",
			func(c *sim.Config) { c.Plan = mustParse("delay nth=1 for=720h; 429 at=720h for=720h") },
			func(c *sim.Config) { c.Plan = mustParse("delay nth=1 for=2562047h") }},
		{"times must be at most 720h0m0s",
			func(c *sim.Config) {},
			func(c *sim.Config) { c.Plan = mustParse("429 at=721h for=1s") }},
		{"drain limit must be at most 24h0m0s",
			func(c *sim.Config) { c.DrainLimit = sim.MaxDrainLimit },
			func(c *sim.Config) { c.DrainLimit = sim.MaxDrainLimit + 1 }},
	} {
		at, above := sim.DefaultConfig(), sim.DefaultConfig()
		tc.at(&at)
		tc.above(&above)
		if err := at.Validate(); err != nil {
			t.Errorf("%s: at the limit: %v", tc.want, err)
		}
		if err := above.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("past the limit: got %v, want %q", err, tc.want)
		}
	}
}

func mustParse(text string) faults.Plan {
	p, err := faults.Parse(text)
	if err != nil {
		panic(err)
	}
	return p
}
