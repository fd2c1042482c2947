package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// Every edge, moved past on the default configuration and on each seed's
// own (its swarm options applied), is refused with the words it expects.
func TestPastEdgesAreRefused(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		cfg := DefaultConfig()
		if seed > 1 {
			cfg = drawOptions(seed).apply(cfg)
		}
		for k := range pastEdges {
			if err := probeEdge(cfg, DefaultConfig(), seed, &pastEdges[k]); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A probe Validate takes, or refuses without naming the setting, is an
// EdgeError naming the seed, the setting and the command to reproduce.
func TestProbeEdgeFailsOnALenientEdge(t *testing.T) {
	taken := pastEdge{"nothing moved", "lease", func(*model.Config) {}}
	err := probeEdge(DefaultConfig(), DefaultConfig(), 7, &taken)
	var ee *EdgeError
	if !errors.As(err, &ee) || ee.Err != nil || !strings.Contains(err.Error(), "seed 7: its configuration with nothing moved passes Validate") ||
		!strings.Contains(err.Error(), "go run ./cmd/durasim run -seed 7") {
		t.Fatalf("taken edge: err = %v", err)
	}
	two := pastEdge{"lease 0", "lease", func(c *model.Config) { c.Lease, c.Deadline = 0, 0 }}
	err = probeEdge(DefaultConfig(), DefaultConfig(), 9, &two)
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "refused with more than one complaint") {
		t.Fatalf("two complaints: err = %v", err)
	}
	unnamed := pastEdge{"lease 0", "heartbeat", func(c *model.Config) { c.Lease = 0 }}
	err = probeEdge(DefaultConfig(), DefaultConfig(), 8, &unnamed)
	if !errors.As(err, &ee) || ee.Err == nil || !strings.Contains(err.Error(), `does not say "heartbeat": lease must be positive`) {
		t.Fatalf("unnamed edge: err = %v", err)
	}
}

// One seed in four draws a probe, and the sweep's first 2000 seeds probe
// every edge.
func TestSweepProbesEveryEdge(t *testing.T) {
	seen := make([]int, len(pastEdges))
	probes := 0
	for seed := uint64(1); seed <= 2000; seed++ {
		if k := drawOptions(seed).pastEdge; k > 0 {
			seen[k-1]++
			probes++
		}
	}
	if probes < 400 || probes > 600 {
		t.Errorf("%d of 2000 seeds probe an edge, want about 500", probes)
	}
	for k, n := range seen {
		if n == 0 {
			t.Errorf("no seed of 1..2000 probes %s", pastEdges[k].what)
		}
	}
}
