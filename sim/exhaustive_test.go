package sim_test

import (
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// Every single-fault and two-fault plan on the small workload: the correct
// design survives all of them, and every boundary of the design receives a
// fault that takes effect.
func TestExhaustiveCorrect(t *testing.T) {
	rep, err := sim.Exhaustive(sim.ExhaustiveConfig("correct"), 1, !testing.Short())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failures > 0 {
		t.Fatalf("%d of %d plans failed; first: %v\nplan:\n%s", rep.Failures, rep.Plans(), rep.First.Violations, rep.FirstPlan)
	}
	covered, total := rep.Coverage(model.Correct())
	if covered != total {
		t.Fatalf("boundary coverage %d/%d (faults per boundary %v, crossings %v)", covered, total, rep.Faulted, rep.Crossings)
	}
	t.Logf("%d single and %d pair plans, coverage %d/%d", rep.Singles, rep.Pairs, covered, total)
}

// Single faults expose the variants whose bug needs one fault, at the
// boundaries the mistake is about.
func TestExhaustiveExposesVariants(t *testing.T) {
	cases := map[string]model.Boundary{
		"ack-before-commit":    model.AfterAck,
		"mark-before-publish":  model.RelayAfterMarkBeforePublish,
		"dual-write":           model.AfterDBWriteBeforePublish,
		"reply-before-enqueue": model.AfterAcceptBeforeEnqueue,
		"no-idempotency":       model.AfterCommitBeforeAck,
	}
	for _, variant := range model.VariantNames() {
		b, ok := cases[variant]
		if !ok {
			continue
		}
		rep, err := sim.Exhaustive(sim.ExhaustiveConfig(variant), 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Exposing[b] == 0 {
			t.Errorf("%s: no single fault at %v exposes it (exposing per boundary %v)", variant, b, rep.Exposing)
		}
	}
}
