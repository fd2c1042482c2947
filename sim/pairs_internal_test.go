package sim

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// The tracker reads pairs from events alone: a crash of a worker holding a
// job at its extract stage, a broker duplicate of a review event, and a
// lease found expired only while the breaker is not closed.
func TestPairTracker(t *testing.T) {
	w := model.Actor{Role: model.RoleWorker}
	var tr pairTracker
	tr.reset()
	for _, e := range []model.Event{
		{Kind: model.EvEnqueue, Job: 1, OK: true},
		{Kind: model.EvAdvance, Job: 1, Stage: model.StageExtract, HasStage: true, OK: true},
		{Kind: model.EvCrash, Actor: w, Job: 1},
		{Kind: model.EvCommit, Job: 1, EventID: 4, Stage: model.StageReview, HasStage: true, OK: true},
		{Kind: model.EvPublish, EventID: 4, Stage: model.StageReview, HasStage: true, N: 9, OK: true},
		{Kind: model.EvFault, Actor: model.Actor{Role: model.RoleBroker}, N: 9, Text: "duplicate"},
		{Kind: model.EvLeaseExpired, Job: 1}, // breaker closed: not the conjunction
	} {
		tr.observe(&e)
	}
	want := map[string]bool{"crash@extract": true, "duplicate@review": true}
	for i := 0; i < pairCount; i++ {
		if tr.set.Has(i) != want[PairName(i)] {
			t.Errorf("pair %s: reached %v, want %v", PairName(i), tr.set.Has(i), want[PairName(i)])
		}
	}
	for _, e := range []model.Event{
		{Kind: model.EvBreaker, Text: "state=half-open", OK: true},
		{Kind: model.EvLeaseExpired, Job: 1},
	} {
		tr.observe(&e)
	}
	if !tr.set.Has(rareIndex(0)) {
		t.Errorf("a lease expired while the breaker is half-open is not %s", PairName(rareIndex(0)))
	}
	var c pairCounts
	c.add(tr.set)
	c.add(PairSet{})
	line := c.rarestLine(2)
	if !strings.HasPrefix(line, "crash@extract=50.00% duplicate@review=50.00% lease-expiry@breaker-open=50.00% (seeds reaching each, fault × pipeline state and rare paths in one run: 3 reached of the 37 that can occur, 34 under 1% of the seeds; 43 cannot occur)") {
		t.Errorf("rarest line: %s", line)
	}
}

// TestSweepReachesEveryPair: the standard sweep's seeds (`durasim run
// -seeds 1:2000`) reach every pair that can occur in at least 1% of them
// (issue 25, item 5: the swarm's touchy-breaker and stalling seeds are
// there for the two rarest), and never one that cannot occur — if they do,
// cannotOccur is wrong, and a conjunction the list hides goes unmeasured.
func TestSweepReachesEveryPair(t *testing.T) {
	const seeds = 2000
	var c pairCounts
	cfg := DefaultConfig()
	rn := NewRunner()
	for seed := uint64(1); seed <= seeds; seed++ {
		res, err := rn.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		c.add(res.Pairs)
	}
	for i, n := range c {
		switch why := cannotOccur(i); {
		case why != "" && n > 0:
			t.Errorf("%s reached by %d seeds, but listed as one that cannot occur (%s)", PairName(i), n, why)
		case why == "" && int64(n)*1_000_000 < seeds*minPairShare:
			t.Errorf("%s reached by %d of %d seeds, under %d ppm", PairName(i), n, seeds, minPairShare)
		}
	}
}
