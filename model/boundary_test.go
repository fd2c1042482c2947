package model_test

import (
	"testing"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/model"
)

// The pipeline's boundaries are numbers 1 to 11 of the shared vocabulary
// (hashed into traces), each crossed by an actor the model has.
func TestPipelineBoundaries(t *testing.T) {
	bs := model.Boundaries()
	if len(bs) != 11 || model.BoundarySet.System() != "the pipeline" {
		t.Fatalf("%d boundaries of %q", len(bs), model.BoundarySet.System())
	}
	for i, b := range bs {
		if b != model.Boundary(i+1) || !model.BoundarySet.Has(b) {
			t.Errorf("boundary %d is %v", i+1, b)
		}
		if model.BoundaryRole(b) == model.RoleNone {
			t.Errorf("%v is crossed by a %v, which the model has no role for", b, b.Actor())
		}
	}
	if model.BoundarySet.Has(boundary.AfterFetch) || model.BoundaryRole(model.NoBoundary) != model.RoleNone ||
		model.BoundaryRole(boundary.RescuerAfterStuck) != model.RoleNone {
		t.Error("the pipeline has a target's boundary, or a role for none or for the rescuer")
	}
	for b, want := range map[model.Boundary]model.Role{model.AfterLease: model.RoleWorker, model.RelayAfterPublishBeforeMark: model.RoleRelay,
		model.ConsumerAfterApply: model.RoleConsumer, model.AfterAcceptBeforeEnqueue: model.RoleAPI} {
		if got := model.BoundaryRole(b); got != want {
			t.Errorf("BoundaryRole(%v) = %v, want %v", b, got, want)
		}
	}
}
