package sim_test

import (
	"slices"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// TestRoundTripPicksNewKindsOfLine: the first seeds always, then only a
// seed showing a kind of line no picked seed showed (accepted and refused
// count apart), up to the limit.
func TestRoundTripPicksNewKindsOfLine(t *testing.T) {
	res := func(seed uint64, refused, ok uint64) *sim.Result {
		return &sim.Result{Seed: seed, Hash: seed * 7, Events: 10, LineKinds: [2]uint64{refused, ok}}
	}
	lease, reprocess := uint64(1)<<model.EvLease, uint64(1)<<model.EvReprocess
	pick := sim.NewRoundTrip(2, 4)
	for _, r := range []*sim.Result{
		res(1, 0, lease), res(2, 0, lease), // the first two: picked whatever they show
		res(3, 0, lease),              // nothing new
		res(4, reprocess, lease),      // a refused reprocess: new
		res(5, reprocess, lease),      // nothing new
		res(6, 0, reprocess),          // an accepted reprocess: new
		res(7, 1<<model.EvBreaker, 0), // new, but the limit is reached
	} {
		pick.Add(r)
	}
	if got, want := pick.Seeds(), []uint64{1, 2, 4, 6}; !slices.Equal(got, want) {
		t.Fatalf("picked seeds %v, want %v", got, want)
	}
	if got, want := pick.String(), "the first 2 seeds and 2 later seeds showing kinds of line the first did not, with their traces kept (40 lines of 3 kinds"; len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("summary %q, want it to begin %q", got, want)
	}
}

// TestRoundTripReadsBackEveryKind: in a sweep of the standard workload,
// the picked seeds read back every kind of line the sweep made.
func TestRoundTripReadsBackEveryKind(t *testing.T) {
	cfg := sim.DefaultConfig()
	pick := sim.SweepRoundTrip()
	var all [2]uint64
	rn := sim.NewRunner()
	for seed := uint64(1); seed <= 300; seed++ {
		r, err := rn.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		all[0] |= r.LineKinds[0]
		all[1] |= r.LineKinds[1]
		pick.Add(r)
	}
	if got := pick.Kinds(); got != all {
		t.Fatalf("picked seeds %v show kinds %x, the sweep %x", pick.Seeds(), got, all)
	}
	if err := pick.Verify(cfg); err != nil {
		t.Fatal(err)
	}
}
