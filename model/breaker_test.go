package model_test

import (
	"strconv"
	"testing"

	"github.com/durasim/durasim/model"
)

func breakerSys(t *testing.T) *harness {
	t.Helper()
	h := newSys(t, func(c *model.Config) {
		c.Breaker = model.BreakerConfig{Window: 4, MinSamples: 4, ThresholdPPM: 500_000, Cooldown: 1000 * ms, Canaries: 2}
	})
	for i := range 30 {
		h.enqueue("acme", "doc-"+strconv.Itoa(i))
	}
	return h
}

// outcome leases the next job and reports a success (ack) or a failure
// (a permanent error, dead-lettered).
func (h *harness) outcome(fail bool) {
	h.t.Helper()
	l := h.lease(w1)
	if fail {
		h.deadLetter(l, errPoison)
		return
	}
	h.ack(l)
}

func TestBreakerOpensOnFailureRatio(t *testing.T) {
	const S, F = false, true
	tests := []struct {
		name     string
		outcomes []bool
		want     []model.BreakerState // state after each outcome
	}{
		{"below MinSamples it never opens", []bool{F, F, F}, []model.BreakerState{0, 0, 0}},
		{"opens at MinSamples", []bool{F, F, F, F}, []model.BreakerState{0, 0, 0, model.Open}},
		{"opens at exactly the threshold", []bool{S, S, F, F}, []model.BreakerState{0, 0, 0, model.Open}},
		{"stays closed under the threshold", []bool{S, S, S, F}, []model.BreakerState{0, 0, 0, 0}},
		{"the window slides", []bool{F, S, S, S, S, F, F}, []model.BreakerState{0, 0, 0, 0, 0, 0, model.Open}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := breakerSys(t)
			for i, fail := range tt.outcomes {
				h.outcome(fail)
				if got := h.sys.BreakerState(); got != tt.want[i] {
					t.Fatalf("after outcome %d: %v, want %v", i+1, got, tt.want[i])
				}
			}
		})
	}
}

// openBreaker drives the breaker open with four failures at time 0.
func openBreaker(t *testing.T) *harness {
	t.Helper()
	h := breakerSys(t)
	for range 4 {
		h.outcome(true)
	}
	if h.sys.BreakerState() != model.Open {
		t.Fatalf("breaker %v after four failures", h.sys.BreakerState())
	}
	return h
}

func TestOpenBreakerLeasesNothing(t *testing.T) {
	h := openBreaker(t)
	leases := h.countEvents(model.EvLease)
	h.noLease(w1)
	h.advance(1000*ms - 1)
	h.noLease(w2)
	if h.countEvents(model.EvLease) != leases || h.sys.BreakerState() != model.Open {
		t.Fatalf("open breaker leased (state %v)", h.sys.BreakerState())
	}
	if n := h.heldBack(); n != 2 {
		t.Fatalf("%d refused leases recorded, want 2 (one per poll)", n)
	}
}

func TestHalfOpenAdmitsCanariesAndCloses(t *testing.T) {
	h := openBreaker(t)
	h.advance(1000 * ms)
	c1 := h.lease(w1)
	if h.sys.BreakerState() != model.HalfOpen {
		t.Fatalf("after the cool-down: %v, want half-open", h.sys.BreakerState())
	}
	c2 := h.lease(w2)
	h.noLease(w3) // at most Canaries in flight
	h.ack(c1)
	if h.sys.BreakerState() != model.HalfOpen {
		t.Fatalf("after one of two canaries: %v", h.sys.BreakerState())
	}
	h.noLease(w3) // the slot is not given back until the verdict
	h.ack(c2)
	if h.sys.BreakerState() != model.Closed {
		t.Fatalf("after both canaries succeeded: %v, want closed", h.sys.BreakerState())
	}
	for range 5 {
		h.lease(w3)
	}
}

func TestCanaryFailureReopens(t *testing.T) {
	h := openBreaker(t)
	h.advance(1000 * ms)
	h.outcome(true)
	if h.sys.BreakerState() != model.Open {
		t.Fatalf("after a failed canary: %v, want open", h.sys.BreakerState())
	}
	h.noLease(w1)
	h.advance(1000 * ms) // a new cool-down from the canary failure
	h.lease(w1)
	if h.sys.BreakerState() != model.HalfOpen {
		t.Fatalf("after the second cool-down: %v", h.sys.BreakerState())
	}
}

func TestBreakerTransitionsAreRecorded(t *testing.T) {
	h := openBreaker(t)
	h.advance(1000 * ms)
	h.outcome(false)
	h.outcome(false)
	var states []string
	for _, e := range h.log.Events {
		if e.Kind == model.EvBreaker {
			states = append(states, e.Text)
		}
	}
	want := []string{"state=open", "state=half-open", "state=closed"}
	if len(states) != len(want) {
		t.Fatalf("breaker events %v, want %v", states, want)
	}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("breaker events %v, want %v", states, want)
		}
	}
}

// Regression: a canary whose worker crashes never reports an outcome. Its
// lease expires; the half-open breaker must give that round up after a
// cool-down instead of refusing every lease (the redelivery included)
// forever.
func TestHalfOpenBreakerSurvivesACrashedCanary(t *testing.T) {
	h := openBreaker(t)
	h.advance(1000 * ms)
	h.lease(w1) // canary 1: its worker crashes
	c2 := h.lease(w2)
	h.ack(c2)
	h.advance(h.cfg().Lease + h.cfg().Breaker.Cooldown)
	if _, ok := h.sys.LeaseNext(w3); !ok {
		t.Fatalf("breaker %v leases nothing after a canary's lease expired", h.sys.BreakerState())
	}
}
