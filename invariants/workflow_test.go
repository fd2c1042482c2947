package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// Workflow fixture vocabulary: job j's workflow has the job's key, starts
// at ingest ("key@0"), and its activities' results are "r<stage>" (extract's
// "invoice/r1"); build 1's code feeds each activity the previous result,
// build 2's stamps extract's input with "|build=2".

const (
	build1 = "build=1 marks= renames="
	build2 = "build=2 marks=extract,done renames=validate"
)

func wfEffect(j model.JobID, st model.Stage, applied bool) model.Event {
	return model.Event{Kind: model.EvWfEffect, Actor: w0, Job: j, Key: key(j), Stage: st, HasStage: true, OK: applied}
}

func wfRec(j model.JobID, id int64, text string, st model.Stage, activity bool) model.Event {
	return model.Event{Kind: model.EvWfRecord, Actor: w0, Job: j, Key: key(j), N: id, Text: text, Stage: st, HasStage: activity}
}

func wfStart(j model.JobID) model.Event {
	return wfRec(j, 1, "WorkflowExecutionStarted input="+key(j)+"@0", 0, false)
}

// wfReplay is a replay of n recorded events by code, rejected when why is
// not "".
func wfReplay(j model.JobID, n int64, code, why string) model.Event {
	e := model.Event{Kind: model.EvWfReplay, Actor: w1, Job: j, Key: key(j), N: n, OK: why == "", Text: code}
	if why != "" {
		e.Text += " rejected: " + why
	}
	return e
}

// wfIn is the input build's code gives activity st of job j.
func wfIn(j model.JobID, st model.Stage, build int) string {
	in := map[model.Stage]string{model.StageIngest: key(j) + "@0", model.StageExtract: wfOut(model.StageIngest),
		model.StageValidate: wfOut(model.StageExtract), model.StageReview: wfOut(model.StageValidate)}[st]
	if st == model.StageExtract && build == 2 {
		in += "|build=2"
	}
	return in
}

func wfOut(st model.Stage) string {
	if st == model.StageExtract {
		return "invoice/r1"
	}
	return "r" + string(rune('0'+st))
}

func wfSched(j model.JobID, id int64, st model.Stage, build int) model.Event {
	return wfRec(j, id, "ActivityTaskScheduled "+st.String()+"("+wfIn(j, st, build)+")", st, true)
}

func wfDone(j model.JobID, id int64, st model.Stage) model.Event {
	return wfRec(j, id, "ActivityTaskCompleted "+st.String()+" → "+wfOut(st), st, true)
}

// wfStage is one stage's workflow task by build's code: its effect, then
// the two events recorded with the stage's commit (ids id and id+1).
func wfStage(j model.JobID, st model.Stage, id int64, build int) []model.Event {
	return one(work(j, 1, st, 0), wfEffect(j, st, true), wfSched(j, id, st, build), wfDone(j, id+1, st))
}

// wfWhole is job j's workflow from start to completion by build 1: events
// #1..#19, the last the replay of the whole history.
func wfWhole(j model.JobID) []model.Event {
	return cat(one(wfStart(j)),
		wfStage(j, model.StageIngest, 2, 1), wfStage(j, model.StageExtract, 4, 1),
		wfStage(j, model.StageValidate, 6, 1), wfStage(j, model.StageReview, 8, 1),
		one(wfRec(j, 10, "WorkflowExecutionCompleted result=r3", 0, false), wfReplay(j, 10, build1+" result=r3", "")))
}

// wfToExtract is job j's workflow through extract by build's code
// (events #1..#9, ids 1..5).
func wfToExtract(j model.JobID, build int) []model.Event {
	return cat(one(wfStart(j)), wfStage(j, model.StageIngest, 2, 1), wfStage(j, model.StageExtract, 4, build))
}

// wfFrom is job j's run started at stage st (a reset) by build 1's code:
// st's activity, fed the start's input, then the later stages' (events
// #1..#5 for st, and four more per later stage).
func wfFrom(j model.JobID, st model.Stage) []model.Event {
	in := key(j) + "@" + string(rune('0'+st))
	h := cat(one(wfRec(j, 1, "WorkflowExecutionStarted input="+in, 0, false)),
		one(work(j, 1, st, 0), wfEffect(j, st, true), wfRec(j, 2, "ActivityTaskScheduled "+st.String()+"("+in+")", st, true), wfDone(j, 3, st)))
	for next, id := st+1, int64(4); next < model.StageDone; next, id = next+1, id+2 {
		h = cat(h, wfStage(j, next, id, 1))
	}
	return h
}

// wfPastExtract is job j's run started at review by build 1, to its
// completion (events #1..#6, ids 1..4).
func wfPastExtract(j model.JobID) []model.Event {
	return cat(wfFrom(j, model.StageReview), one(wfRec(j, 4, "WorkflowExecutionCompleted result=r3", 0, false)))
}

func TestDurableWorkflow(t *testing.T) {
	started := wfStart(1)
	ingest, extract, validate := model.StageIngest, model.StageExtract, model.StageValidate
	working := work(1, 1, ingest, 0) // #2 in the fixtures below
	rejected := "nondeterministic workflow: history event 4 ActivityTaskScheduled extract(r0), replay generated ActivityTaskScheduled extract(r0|build=2)"
	runTable(t, Workflow, []fixture{
		{name: "every activity once, then the ack", history: cat(wfWhole(1), clean(1, 1, 1)), final: succeeded(1)},
		{name: "a takeover runs an activity whose record was lost: the service deduplicates it",
			history: one(started, working, wfEffect(1, ingest, true), wfReplay(1, 1, build1, ""), working, wfEffect(1, ingest, false),
				wfSched(1, 2, ingest, 1), wfDone(1, 3, ingest))},
		{name: "an activity applied twice",
			history: one(started, working, wfEffect(1, ingest, true), wfEffect(1, ingest, true)),
			want:    []want{{1, []uint64{3, 4}, "j1 activity ingest of workflow acme:d1:v1 applied twice"}}},
		{name: "activities of two stages no trace line names, each applied once: kept apart",
			history: one(started, work(1, 1, 9, 0), wfEffect(1, 9, true), work(1, 1, 10, 0), wfEffect(1, 10, true))},
		{name: "an activity of a stage no trace line names, applied twice",
			history: one(started, work(1, 1, 9, 0), wfEffect(1, 9, true), wfEffect(1, 9, true)),
			want:    []want{{1, []uint64{3, 4}, "applied twice"}}},
		{name: "an effect deduplicated that was never applied",
			history: one(started, working, wfEffect(1, ingest, false)),
			want:    []want{{1, []uint64{3}, "deduplicated but never applied"}}},
		{name: "a replay that runs a recorded activity again",
			history: cat(one(started), wfStage(1, ingest, 2, 1), one(wfEffect(1, ingest, false))),
			want:    []want{{1, []uint64{5, 6}, "j1 activity ingest of workflow acme:d1:v1 reached its service again after its completion was recorded"}}},
		{name: "an activity run ahead of its stage's work",
			history: one(started, working, wfEffect(1, ingest, true), wfEffect(1, extract, true)),
			want:    []want{{1, []uint64{2, 4}, "j1 activity extract of workflow acme:d1:v1 ran outside its stage's work (w0's last work: j1 stage ingest)"}}},
		{name: "an activity run by a worker that never started work",
			history: one(started, with(wfEffect(1, ingest, true), func(e *model.Event) { e.Actor = w1 })),
			want:    []want{{1, []uint64{2}, "ran outside its stage's work"}}},
		{name: "a completion recorded with no effect",
			history: one(started, wfSched(1, 2, ingest, 1), wfDone(1, 3, ingest)),
			want:    []want{{1, []uint64{3}, "recorded completed with no effect applied"}}},
		{name: "a history id skipped",
			history: one(started, working, wfEffect(1, ingest, true), wfSched(1, 3, ingest, 1)),
			want:    []want{{1, []uint64{1, 4}, "recorded history id 3 after id 1"}}},
		{name: "a history that does not start at id 1",
			history: one(with(started, func(e *model.Event) { e.N = 2 })),
			want:    []want{{1, []uint64{1}, "recorded history id 2 after id 0"}}},
		{name: "acked with the workflow's completion never recorded",
			history: cat(one(started), clean(1, 1, 1)), final: succeeded(1),
			want: []want{{1, []uint64{1, 12}, "j1 acked as succeeded but workflow acme:d1:v1 never recorded its completion"}}},
		{name: "a job with no workflow is not judged", history: clean(1, 1, 1), final: succeeded(1)},

		// Replays judged from the history and the code that replayed it.
		{name: "build 2 replays a run whose extract build 1 scheduled: rejected, and the reset's new run goes on",
			history: cat(wfToExtract(1, 1), one(work(1, 1, validate, 0), wfReplay(1, 5, build2, rejected),
				wfStart(1), wfEffect(1, validate, true), wfRec(1, 2, "ActivityTaskScheduled validate("+key(1)+"@2)", validate, true),
				wfRec(1, 3, "ActivityTaskCompleted validate → r2", validate, true)))},
		{name: "a stage redone after its activity was recorded, rejected: the reset's run executes it anew (deduplicated)",
			history: cat(wfToExtract(1, 1), one(work(1, 1, extract, 0), with(wfReplay(1, 5, build2, rejected), func(e *model.Event) { e.Actor = w0 }),
				wfEffect(1, extract, false), wfRec(1, 1, "WorkflowExecutionStarted input="+key(1)+"@1", 0, false)))},
		{name: "after a rejection, another worker's effect of a recorded activity is still a replay's side effect",
			history: cat(wfToExtract(1, 1), one(work(1, 1, extract, 0), wfReplay(1, 5, build2, rejected), wfEffect(1, extract, false))),
			want:    []want{{1, []uint64{9, 12}, "j1 activity extract of workflow acme:d1:v1 reached its service again after its completion was recorded"}}},
		{name: "build 1 replays a run whose extract build 2 scheduled: rejected",
			history: cat(wfToExtract(1, 2), one(wfReplay(1, 5, build1, "nondeterministic workflow: history event 4 ActivityTaskScheduled extract(r0|build=2), replay generated ActivityTaskScheduled extract(r0)")))},
		{name: "a rejection that names another event than the first that differs",
			history: cat(wfToExtract(1, 2), one(wfReplay(1, 5, build1, "nondeterministic workflow: history event 2 ActivityTaskScheduled ingest(acme:d1:v1@0), replay generated ActivityTaskScheduled extract(r0)"))),
			want:    []want{{1, []uint64{10}, "rejected naming another event than the first its code (build=1 marks= renames=) does not generate, event 4 ActivityTaskScheduled extract(r0|build=2)"}}},
		{name: "a rejection of a history that ends on a scheduled activity names no more events",
			history: one(started, working, wfEffect(1, ingest, true), wfSched(1, 2, ingest, 1), wfReplay(1, 2, build1, "nondeterministic workflow: history event no more events, replay generated ActivityTaskCompleted ingest"))},
		{name: "build 2 replays a completed run whose result build 1 recorded: rejected at the completion",
			history: cat(wfPastExtract(1), one(wfReplay(1, 4, build2, "nondeterministic workflow: history event 4 WorkflowExecutionCompleted result=r3, replay generated WorkflowExecutionCompleted result=r3|build=2")))},
		{name: "build 2 replays a run whose validate build 1 scheduled: rejected at its activity's name",
			history: cat(wfFrom(1, validate), one(wfReplay(1, 5, build2, "nondeterministic workflow: history event 2 ActivityTaskScheduled validate(acme:d1:v1@2), replay generated ActivityTaskScheduled validate.v2(acme:d1:v1@2)")))},
		{name: "build 2 accepts a run whose validate build 1 scheduled",
			history: cat(wfFrom(1, validate), one(wfReplay(1, 5, build2, ""))),
			want:    []want{{1, []uint64{4, 10}, "generates ActivityTaskScheduled validate.v2(acme:d1:v1@2) where event 2 records ActivityTaskScheduled validate(acme:d1:v1@2)"}}},
		{name: "build 2 accepts a completed run whose result build 1 recorded",
			history: cat(wfPastExtract(1), one(wfReplay(1, 4, build2, ""))),
			want:    []want{{1, []uint64{6, 7}, "generates WorkflowExecutionCompleted result=r3|build=2 where event 4 records WorkflowExecutionCompleted result=r3"}}},
		{name: "a replay that says it executed an activity its task never ran",
			history: cat(one(started), wfStage(1, ingest, 2, 1), one(work(1, 1, extract, 0), withN2(1, with(wfReplay(1, 3, build1, ""), func(e *model.Event) { e.Actor = w0 })))),
			want:    []want{{1, []uint64{6, 7}, "j1 replay of workflow acme:d1:v1 says it executed 1 activities, its task issued 0 effects"}}},
		{name: "a task's replay counts the effects its task issued",
			history: cat(one(started), wfStage(1, ingest, 2, 1), one(with(work(1, 1, extract, 0), func(e *model.Event) { e.Actor = w1 }),
				with(wfEffect(1, extract, true), func(e *model.Event) { e.Actor = w1 }), withN2(1, wfReplay(1, 3, build1, ""))))},
		{name: "a result read from a run with no completion",
			history: cat(wfToExtract(1, 1), one(wfReplay(1, 5, build1+" result=invoice/r1", ""))),
			want:    []want{{1, []uint64{9, 10}, "j1 workflow acme:d1:v1's result read, but its run has recorded no completion"}}},
		{name: "a result read that is not the completion's",
			history: one(cat(wfWhole(1)[:18], one(wfReplay(1, 10, build1+" result=r2", "")))...),
			want:    []want{{1, []uint64{18, 19}, "j1 workflow acme:d1:v1's result read as \"r2\", its completion records \"r3\""}}},
		{name: "acked with the workflow's result never read",
			history: cat(wfWhole(1)[:18], clean(1, 1, 1)), final: succeeded(1),
			want: []want{{1, []uint64{18, 29}, "j1 acked as succeeded but workflow acme:d1:v1's result was never read"}}},
		{name: "build 2 replays a run that has not reached extract: accepted",
			history: cat(one(started), wfStage(1, ingest, 2, 1), one(wfReplay(1, 3, build2, "")))},
		{name: "a replay test rejects a completed run under a change it does not replay: no reset follows",
			history: cat(wfPastExtract(1), one(wfReplay(1, 4, "test build=2 marks=done renames=", "nondeterministic workflow: history event 4 WorkflowExecutionCompleted result=r3, replay generated WorkflowExecutionCompleted result=r3|build=2"), wfStart(1))),
			want:    []want{{1, []uint64{6, 8}, "recorded history id 1 after id 4"}}},
		{name: "a replay test that accepts a run its code does not generate",
			history: cat(wfFrom(1, model.StageValidate), one(wfReplay(1, 5, "test build=2 marks= renames=validate", ""))),
			want:    []want{{1, []uint64{4, 10}, "generates ActivityTaskScheduled validate.v2(acme:d1:v1@2) where event 2 records ActivityTaskScheduled validate(acme:d1:v1@2)"}}},
		{name: "a rejection of a history the code generates",
			history: cat(wfToExtract(1, 1), one(wfReplay(1, 5, build1, "nondeterministic workflow"))),
			want:    []want{{1, []uint64{9, 10}, "j1 replay of workflow acme:d1:v1 rejected, but its code (build=1 marks= renames=) generates each of its 5 recorded events"}}},
		{name: "a rejection of a whole history the code generates",
			history: one(cat(wfWhole(1)[:18], one(wfReplay(1, 10, build1, "nondeterministic workflow")))...),
			want:    []want{{1, []uint64{18, 19}, "generates each of its 10 recorded events"}}},
		{name: "an acceptance of a history the code does not generate",
			history: cat(wfToExtract(1, 1), one(wfReplay(1, 5, build2, ""))),
			want:    []want{{1, []uint64{8, 10}, "j1 replay of workflow acme:d1:v1 accepted, but its code (build=2 marks=extract,done renames=validate) generates ActivityTaskScheduled extract(r0|build=2) where event 4 records ActivityTaskScheduled extract(r0)"}}},
		{name: "an acceptance of a history whose activity completion is another's",
			history: one(started, working, wfEffect(1, ingest, true), wfSched(1, 2, ingest, 1), wfRec(1, 3, "ActivityTaskCompleted extract → r0", ingest, true), wfReplay(1, 3, build1, "")),
			want: []want{{1, []uint64{4, 5}, "j1 workflow acme:d1:v1 recorded activity extract completed with no scheduling of it just before"},
				{1, []uint64{5, 6}, "generates ActivityTaskCompleted ingest where event 3 records ActivityTaskCompleted extract → r0"}}},
		{name: "an acceptance of a history that ends on a scheduled activity",
			history: one(started, working, wfEffect(1, ingest, true), wfSched(1, 2, ingest, 1), wfReplay(1, 2, build1, "")),
			want:    []want{{1, []uint64{4, 5}, "generates ActivityTaskCompleted ingest where the history ends"}}},
		{name: "an acceptance of a completion with another result",
			history: one(cat(wfWhole(1)[:17], one(wfRec(1, 10, "WorkflowExecutionCompleted result=r9", 0, false), wfReplay(1, 10, build1, "")))...),
			want:    []want{{1, []uint64{18, 19}, "generates WorkflowExecutionCompleted result=r3 where event 10 records WorkflowExecutionCompleted result=r9"}}},
		{name: "an acceptance of a history that goes on after its completion",
			history: one(cat(wfWhole(1)[:18], one(wfRec(1, 11, "WorkflowExecutionCompleted result=r3", 0, false), wfReplay(1, 11, build1, "")))...),
			want:    []want{{1, []uint64{19, 20}, "generates no more events where event 11 records WorkflowExecutionCompleted result=r3"}}},
		{name: "an acceptance of a history that does not start with its start",
			history: one(wfSched(1, 1, ingest, 1), wfReplay(1, 1, build1, "")),
			want:    []want{{1, []uint64{1, 2}, "generates WorkflowExecutionStarted where event 1 records ActivityTaskScheduled ingest"}}},
		{name: "an acceptance of a start that names no stage",
			history: one(wfRec(1, 1, "WorkflowExecutionStarted input=acme", 0, false), wfReplay(1, 1, build1, "")),
			want:    []want{{1, []uint64{1, 2}, "generates WorkflowExecutionStarted input=key@stage where event 1 records WorkflowExecutionStarted input=acme"}}},
		{name: "a replay of more events than were recorded",
			history: cat(wfToExtract(1, 1), one(wfReplay(1, 7, build1, ""))),
			want:    []want{{1, []uint64{9, 10}, "j1 replay of workflow acme:d1:v1 read 7 events, its recorded history holds 5"}}},
		{name: "a new run with no replay rejected",
			history: cat(wfToExtract(1, 1), one(wfStart(1))),
			want:    []want{{1, []uint64{9, 10}, "recorded history id 1 after id 5"}}},
	})
}
