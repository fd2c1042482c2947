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
	if !strings.HasPrefix(line, "crash@extract=50.00% duplicate@review=50.00% lease-expiry@breaker-open=50.00% (of 3 pairs reached") {
		t.Errorf("rarest line: %s", line)
	}
}
