package sim

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/workflow"
)

// Durable workflows in the swarm. With Config.WorkflowEvery = n, the job of
// every n-th document runs its stages as the activities of a durable
// workflow (package workflow), the way seed 000's Temporal worker runs
// them: at the end of each stage's work the worker runs a workflow task
// (workflow.Advance) on the execution's durable history, which replays
// every recorded activity without running it again and executes the
// stage's activity if the history does not hold it yet. The activity's
// side effect goes to an idempotent service keyed by workflow and
// activity; the events the task recorded become durable with the stage's
// commit. So a worker that crashes or freezes between the two leaves an
// effect without its record, and the worker that takes over runs the
// activity again (the service deduplicates it); a stage retried after a
// failure retries its activity; and every later stage is a takeover that
// replays the stages before it. The oracle (invariants' durable-workflow)
// judges this from the trace alone: each activity's effect applied once,
// none after its completion was recorded, no replay of this deterministic
// code rejected.

// wfRuns is a run's workflow service: the engine's durable histories and
// the activities' idempotent service.
type wfRuns struct {
	on      bool
	def     workflow.Workflow
	hist    map[string][]workflow.HistoryEvent // by workflow id (the job's key)
	effects map[string]bool                    // applied effects by workflow id + "/" + activity
	llm     workflow.SampledLLM                // the extract activity's classifier: varies call to call
	w       *worker                            // the worker whose workflow task runs (its activities' caller)
}

// wfLabels are the modeled classifier's answers.
var wfLabels = []string{"invoice", "receipt"}

// resetWorkflows prepares the run's workflow service. A design whose
// stages do not commit through the outbox (the dual write) has no commit
// to make a task's events durable with, so it runs no workflow.
func (r *run) resetWorkflows(old *wfRuns) {
	r.wf = wfRuns{on: r.cfg.WorkflowEvery > 0 && slices.Contains(r.design.Protocol.Steps, model.StepCommit)}
	if !r.wf.on {
		return
	}
	r.wf.hist, r.wf.effects = old.hist, old.effects
	if r.wf.hist == nil {
		r.wf.hist, r.wf.effects = map[string][]workflow.HistoryEvent{}, map[string]bool{}
	}
	clear(r.wf.hist)
	clear(r.wf.effects)
	r.wf.llm = workflow.SampledLLM{Answers: wfLabels}
	acts := make(map[string]workflow.Activity, len(model.Stages()))
	for _, st := range model.Stages() {
		acts[st.String()] = func(in string) string { return r.wfActivity(st, in) }
	}
	r.wf.def = workflow.Workflow{Name: "document", Body: wfBody, Activities: acts}
}

// wfBody is the workflow code: each stage from the one the job was at
// when its workflow started, the next fed the previous one's result. Its
// input is "key@stage".
func wfBody(ctx *workflow.WorkflowContext, input string) string {
	first, _ := strconv.Atoi(input[strings.LastIndexByte(input, '@')+1:])
	in := input
	for st := model.Stage(first); st < model.StageDone; st++ {
		in = ctx.ExecuteActivity(st.String(), in)
	}
	return in
}

// isWorkflowDoc says whether the worker's job runs as a workflow.
func (r *run) isWorkflowDoc(w *worker) bool {
	return r.wf.on && r.docs[w.doc].Index%r.cfg.WorkflowEvery == 0
}

// wfActivity is a stage's activity: its effect reaches the service, which
// applies it once per workflow and activity; its result is the stage's
// value (with the classifier's label, for extract).
func (r *run) wfActivity(st model.Stage, in string) string {
	w := r.wf.w
	job := r.sys.JobRef(w.lease.Job)
	id := job.Key + "/" + st.String()
	e := r.simEvent(model.EvWfEffect, r.actor(w))
	e.Job, e.Tenant, e.Key, e.Stage, e.HasStage, e.OK = w.lease.Job, job.Tenant, job.Key, st, true, !r.wf.effects[id]
	r.wf.effects[id] = true
	r.emit(e)
	out := strconv.FormatUint(w.value, 16)
	if st == model.StageExtract {
		out = r.wf.llm.Complete(in) + "/" + out
	}
	return out
}

// wfTask runs the workflow task at the end of the stage's work and takes
// the stage's value from the history it leaves; false: the engine failed
// the task, and the worker reports the stage failed.
func (r *run) wfTask(w *worker) bool {
	job := r.sys.JobRef(w.lease.Job)
	h := r.wf.hist[job.Key]
	if h == nil {
		h = []workflow.HistoryEvent{{ID: 1, Kind: workflow.WorkflowStarted, Input: job.Key + "@" + strconv.Itoa(int(w.stage))}}
		r.wf.hist[job.Key] = h
		r.wfRecorded(w, h)
	}
	name := w.stage.String()
	budget := 1
	if _, done := wfResult(h, name); done {
		budget = 0 // a stage redone after its activity was recorded: replay only
	}
	r.wf.w = w
	st, err := workflow.Advance(r.wf.def, h, budget)
	r.wf.w = nil
	result, ok := wfResult(st.History, name)
	if err == nil && !ok {
		err = errors.New("workflow: the task left no result of activity " + name)
	}
	r.wfReplayed(w, job.Key, st.Replayed, st.Executed, err)
	if err != nil {
		w.workErr = &model.WorkError{Code: model.CodePermanentError, Raw: err.Error()}
		w.failing = true
		r.cross(w, model.AfterExtract, 0)
		return false
	}
	w.value, _ = strconv.ParseUint(result[strings.LastIndexByte(result, '/')+1:], 16, 64)
	w.wfHist, w.wfBase = nil, len(h)
	if len(st.History) > len(h) {
		w.wfHist = st.History
	}
	return true
}

// wfPersist makes the events of the worker's last workflow task durable,
// with its stage's commit; a task that another worker's overtook (the
// history grew since it read it) is dropped, as a stale task completion.
// A workflow that completed is replayed whole once more, as a worker
// asked for its result would.
func (r *run) wfPersist(w *worker) {
	h := w.wfHist
	w.wfHist = nil
	if h == nil {
		return
	}
	key := r.sys.JobRef(w.lease.Job).Key
	if len(r.wf.hist[key]) != w.wfBase {
		return
	}
	r.wf.hist[key] = h
	r.wfRecorded(w, h[w.wfBase:])
	if h[len(h)-1].Kind == workflow.WorkflowCompleted {
		ctx, err := workflow.ReplayWorkflow(r.wf.def, h)
		executed := 0
		if ctx != nil {
			executed = ctx.Executed
		}
		r.wfReplayed(w, key, len(h), executed, err)
	}
}

// wfRecorded emits a record event per history event made durable.
func (r *run) wfRecorded(w *worker, evs []workflow.HistoryEvent) {
	for _, he := range evs {
		job := r.sys.JobRef(w.lease.Job)
		e := r.simEvent(model.EvWfRecord, r.actor(w))
		e.Job, e.Tenant, e.Key, e.N, e.Text = w.lease.Job, job.Tenant, job.Key, int64(he.ID), he.Kind.String()
		if st, ok := stageNamed(he.Name); ok {
			e.Stage, e.HasStage = st, true
		}
		r.emit(e)
	}
}

func (r *run) wfReplayed(w *worker, key string, replayed, executed int, err error) {
	e := r.simEvent(model.EvWfReplay, r.actor(w))
	e.Job, e.Tenant, e.Key, e.N, e.N2, e.OK = w.lease.Job, r.sys.JobRef(w.lease.Job).Tenant, key, int64(replayed), int64(executed), err == nil
	if err != nil {
		e.Text = err.Error()
	}
	r.emit(e)
}

// wfResult is the recorded result of activity name in h.
func wfResult(h []workflow.HistoryEvent, name string) (string, bool) {
	for _, e := range h {
		if e.Kind == workflow.ActivityCompleted && e.Name == name {
			return e.Result, true
		}
	}
	return "", false
}

func stageNamed(name string) (model.Stage, bool) {
	for _, st := range model.Stages() {
		if st.String() == name {
			return st, true
		}
	}
	return 0, false
}
