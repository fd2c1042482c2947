package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// What an event must carry to be a faithful record: the row its commit
// wrote, a reason for a refusal, the checkpoint a redrive keeps, a publish
// that succeeded.
func TestRecordedFacts(t *testing.T) {
	otherKey := func(e *model.Event) { e.Key = key(2) }
	base := one(enqueue(1), lease(1, 1, 1), commit(1, model.StageIngest, 1))
	runTable(t, Consistency, []fixture{
		{name: "publish, mark and apply name the committed row",
			history: cat(base, one(publish(1, model.StageIngest, 1), mark(1, model.StageIngest, 1), apply(1, model.StageIngest, 1)))},
		{name: "a publish naming another key",
			history: cat(base, one(with(publish(1, model.StageIngest, 1), otherKey))),
			want:    []want{{1, []uint64{3, 4}, "e1 publish names j1 acme:d2:v1 stage=ingest, not the row its commit wrote"}}},
		{name: "a mark naming another stage",
			history: cat(base, one(publish(1, model.StageIngest, 1), with(mark(1, model.StageIngest, 1), func(e *model.Event) { e.Stage = model.StageReview }))),
			want:    []want{{1, []uint64{3, 5}, "e1 mark_published names j1 acme:d1:v1 stage=review"}}},
		{name: "an apply naming another job",
			history: cat(base, one(publish(1, model.StageIngest, 1), with(apply(1, model.StageIngest, 1), func(e *model.Event) { e.Job = 2 }))),
			want:    []want{{2, []uint64{3, 5}, "e1 apply names j2 acme:d1:v1 stage=ingest"}}},
		{name: "a publish reported as failed",
			history: cat(base, one(with(publish(1, model.StageIngest, 1), func(e *model.Event) { e.OK = false }))),
			want:    []want{{1, []uint64{4}, "e1 publish reported as failed"}}},
		{name: "a refusal with no reason",
			history: one(enqueue(1), lease(1, 1, 1), with(heartbeat(1, 1), func(e *model.Event) { e.OK = false })),
			want:    []want{{1, []uint64{3}, "j1 heartbeat refused with no reason code"}}},
		{name: "a lease refused with no reason (the breaker's refusals say breaker_open)",
			history: one(enqueue(1), with(lease(1, 1, 1), func(e *model.Event) { e.OK, e.Fence, e.Attempt = false, 0, 0 })),
			want:    []want{{1, []uint64{2}, "j1 lease refused with no reason code"}}},
		{name: "a redrive that does not say where it resumes",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePermanentError), with(dlqWrite(1, model.CodePermanentError), func(e *model.Event) { e.N = 1 }),
				dead(1, 1, model.CodePermanentError), with(redrive(1), func(e *model.Event) { e.HasStage = false })),
			want: []want{{1, []uint64{6}, "j1 redriven without announcing the checkpoint it resumes from"}}},
	})
}
