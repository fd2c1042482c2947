package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// Workflow fixture vocabulary: job j's workflow has the job's key.

func wfEffect(j model.JobID, st model.Stage, applied bool) model.Event {
	return model.Event{Kind: model.EvWfEffect, Actor: w0, Job: j, Key: key(j), Stage: st, HasStage: true, OK: applied}
}

func wfRec(j model.JobID, id int64, kind string, st model.Stage, activity bool) model.Event {
	return model.Event{Kind: model.EvWfRecord, Actor: w0, Job: j, Key: key(j), N: id, Text: kind, Stage: st, HasStage: activity}
}

func wfReplay(j model.JobID, ok bool, why string) model.Event {
	return model.Event{Kind: model.EvWfReplay, Actor: w1, Job: j, Key: key(j), N: 3, OK: ok, Text: why}
}

// wfStage is one stage's workflow task: its effect, then the two events
// recorded with the stage's commit (ids id and id+1).
func wfStage(j model.JobID, st model.Stage, id int64) []model.Event {
	return one(work(j, 1, st, 0), wfEffect(j, st, true), wfRec(j, id, "ActivityTaskScheduled", st, true), wfRec(j, id+1, "ActivityTaskCompleted", st, true))
}

// wfWhole is job j's workflow from start to completion: events #1..#18.
func wfWhole(j model.JobID) []model.Event {
	return cat(one(wfRec(j, 1, "WorkflowExecutionStarted", 0, false)),
		wfStage(j, model.StageIngest, 2), wfStage(j, model.StageExtract, 4),
		wfStage(j, model.StageValidate, 6), wfStage(j, model.StageReview, 8),
		one(wfRec(j, 10, "WorkflowExecutionCompleted", 0, false)))
}

func TestDurableWorkflow(t *testing.T) {
	started := wfRec(1, 1, "WorkflowExecutionStarted", 0, false)
	ingest := model.StageIngest
	working := work(1, 1, ingest, 0) // #2 in the fixtures below
	runTable(t, Workflow, []fixture{
		{name: "every activity once, then the ack", history: cat(wfWhole(1), clean(1, 1, 1)), final: succeeded(1)},
		{name: "a takeover runs an activity whose record was lost: the service deduplicates it",
			history: one(started, working, wfEffect(1, ingest, true), wfReplay(1, true, ""), working, wfEffect(1, ingest, false),
				wfRec(1, 2, "ActivityTaskScheduled", ingest, true), wfRec(1, 3, "ActivityTaskCompleted", ingest, true))},
		{name: "an activity applied twice",
			history: one(started, working, wfEffect(1, ingest, true), wfEffect(1, ingest, true)),
			want:    []want{{1, []uint64{3, 4}, "j1 activity ingest of workflow acme:d1:v1 applied twice"}}},
		{name: "an effect deduplicated that was never applied",
			history: one(started, working, wfEffect(1, ingest, false)),
			want:    []want{{1, []uint64{3}, "deduplicated but never applied"}}},
		{name: "a replay that runs a recorded activity again",
			history: cat(one(started), wfStage(1, ingest, 2), one(wfEffect(1, ingest, false))),
			want:    []want{{1, []uint64{5, 6}, "j1 activity ingest of workflow acme:d1:v1 reached its service again after its completion was recorded"}}},
		{name: "an activity run ahead of its stage's work",
			history: one(started, working, wfEffect(1, ingest, true), wfEffect(1, model.StageExtract, true)),
			want:    []want{{1, []uint64{2, 4}, "j1 activity extract of workflow acme:d1:v1 ran outside its stage's work (w0's last work: j1 stage ingest)"}}},
		{name: "an activity run by a worker that never started work",
			history: one(started, with(wfEffect(1, ingest, true), func(e *model.Event) { e.Actor = w1 })),
			want:    []want{{1, []uint64{2}, "ran outside its stage's work"}}},
		{name: "a completion recorded with no effect",
			history: one(started, wfRec(1, 2, "ActivityTaskScheduled", ingest, true), wfRec(1, 3, "ActivityTaskCompleted", ingest, true)),
			want:    []want{{1, []uint64{3}, "recorded completed with no effect applied"}}},
		{name: "a history id skipped",
			history: one(started, working, wfEffect(1, ingest, true), wfRec(1, 3, "ActivityTaskScheduled", ingest, true)),
			want:    []want{{1, []uint64{1, 4}, "recorded history id 3 after id 1"}}},
		{name: "a history that does not start at id 1",
			history: one(wfRec(1, 2, "WorkflowExecutionStarted", 0, false)),
			want:    []want{{1, []uint64{1}, "recorded history id 2 after id 0"}}},
		{name: "a replay rejected",
			history: one(started, wfReplay(1, false, "nondeterministic workflow")),
			want:    []want{{1, []uint64{2}, "j1 replay of workflow acme:d1:v1 rejected: nondeterministic workflow"}}},
		{name: "acked with the workflow's completion never recorded",
			history: cat(one(started), clean(1, 1, 1)), final: succeeded(1),
			want: []want{{1, []uint64{1, 12}, "j1 acked as succeeded but workflow acme:d1:v1 never recorded its completion"}}},
		{name: "a job with no workflow is not judged", history: clean(1, 1, 1), final: succeeded(1)},
	})
}
