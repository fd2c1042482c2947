package sim

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/internal/reuse"
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
// replays the stages before it.
//
// The workflow code is deployed while executions run: a rolling deploy has
// reached the odd-numbered worker processes and every process restarted
// after a crash, which run build 2; the others run build 1. Build 2 changed
// the extract activity's command (its input carries the new build: a new
// prompt), replaced the validate activity with another (validate.v2) and
// changed the workflow's result (stamped likewise). So a worker of one
// build that takes over an execution whose extract, validate or completion
// the other build recorded generates a command the history does not have, and
// the engine rejects the replay as nondeterministic, as Temporal does
// after an unversioned deploy; the worker then resets the workflow
// (Temporal's reset): a new run of it, from the job's current stage, under
// the worker's build, recorded with the stage's commit. Activities already
// applied are not applied again (the service is keyed by workflow, not
// run). A task that completes the workflow reads its result (a whole
// replay) before the job is acked.
//
// The oracle (invariants' durable-workflow) judges this from the trace
// alone: each activity's effect applied once, none after its completion
// was recorded in the run, and each replay's verdict recomputed from the
// recorded history and the replaying code (its build and the activities
// it marks, which every replay event states): a rejection of a history
// the code matches, or an acceptance of one it does not, is the engine's
// mistake.

// wfRuns is a run's workflow service: the engine's durable histories and
// the activities' idempotent service.
type wfRuns struct {
	on     bool
	defs   [len(wfCodes)]workflow.Workflow // the workflow code of each of wfCodes
	defsOf *run                            // the run whose wfActivity defs' activities call
	ids    map[string]int32                // index in flows, by workflow id (the job's key)
	flows  []wfFlow                        // each workflow's engine state (kept across seeds)
	cur    int32                           // the flow whose workflow task runs
	llm    workflow.SampledLLM             // the extract activity's classifier: varies call to call
	w      *worker                         // the worker whose workflow task runs (its activities' caller)
	buf    []byte                          // where an event's text is built (kept across seeds)
}

// wfFlow is the engine's state of one workflow: its current run's
// history and number (resets), and the service's applied effects.
type wfFlow struct {
	hist    []workflow.HistoryEvent
	run     int
	effects [model.StageDone]bool // by the activity's stage
}

// flow is the workflow with id key, made on its first task.
func (r *run) flow(key string) int32 {
	i, ok := r.wf.ids[key]
	if !ok {
		i = int32(len(r.wf.flows))
		r.wf.ids[key] = i
		r.wf.flows = append(r.wf.flows, wfFlow{})
	}
	return i
}

// wfSpec is one workflow code: its build, the stages whose command it
// changed (their input carries "|build=N"; model.StageDone: the
// workflow's result does) and those whose activity it replaced with
// another ("<stage>.v<build>", a new validator, say).
type wfSpec struct {
	build          int
	marks, renames []model.Stage
}

// wfCodes are the workflow codes: the fleet's builds (index 0, build 1 as
// first deployed; index 1, build 2 being rolled out), then each of build
// 2's changes on its own, which the deploy's replay test runs over every
// completed history (Temporal's replayer in the pipeline: which change
// breaks which histories).
var wfCodes = [...]wfSpec{
	{build: 1},
	{build: 2, marks: []model.Stage{model.StageExtract, model.StageDone}, renames: []model.Stage{model.StageValidate}},
	{build: 2, marks: []model.Stage{model.StageExtract}},
	{build: 2, renames: []model.Stage{model.StageValidate}},
	{build: 2, marks: []model.Stage{model.StageDone}},
}

// wfTests are the indices in wfCodes the replay test runs.
const wfTests = 2

// wfLabels are the modeled classifier's answers.
var wfLabels = []string{"invoice", "receipt"}

// resetWorkflows prepares the run's workflow service. A design whose
// stages do not commit through the outbox (the dual write) has no commit
// to make a task's events durable with, so it runs no workflow.
func (r *run) resetWorkflows(old *wfRuns) {
	// The storage and the workflow code are kept across seeds (the code's
	// activities call r, the same run struct every seed of a Runner).
	r.wf = wfRuns{on: r.cfg.WorkflowEvery > 0 && slices.Contains(r.design.Protocol.Steps, model.StepCommit),
		defs: old.defs, defsOf: old.defsOf, ids: old.ids, flows: reuse.Slice(old.flows), buf: old.buf}
	if !r.wf.on {
		return
	}
	r.wf.ids = reuse.Map(r.wf.ids)
	r.wf.llm = workflow.SampledLLM{Answers: wfLabels}
	if r.wf.defsOf == r {
		return
	}
	r.wf.defsOf = r
	acts := make(map[string]workflow.Activity, len(model.Stages())+1)
	for _, st := range model.Stages() {
		acts[st.String()] = func(in string) string { return r.wfActivity(st, in) }
		for c := range wfCodes {
			acts[wfActivityName(st, c)] = acts[st.String()]
		}
	}
	for c := range r.wf.defs {
		r.wf.defs[c] = workflow.Workflow{Name: "document", Body: wfBody(c), Activities: acts}
	}
}

// wfBody is build's workflow code: each stage from the one the job was at
// when its workflow (run) started, the next fed the previous one's result,
// with the build stamped on the input of the activities it marks (and on
// the result, if it marks StageDone). Its input is "key@stage".
func wfBody(code int) func(ctx *workflow.WorkflowContext, input string) string {
	stamp := "|build=" + strconv.Itoa(wfCodes[code].build)
	var marks [model.StageDone + 1]bool // by stage: the code stamps its input (StageDone: the result)
	for _, st := range wfCodes[code].marks {
		marks[st] = true
	}
	return func(ctx *workflow.WorkflowContext, input string) string {
		first, _ := strconv.Atoi(input[strings.LastIndexByte(input, '@')+1:])
		in := input
		for st := model.Stage(first); st < model.StageDone; st++ {
			if marks[st] {
				in += stamp
			}
			out, ok := ctx.TryExecuteActivity(wfActivityName(st, code), in)
			if !ok {
				return "" // suspended or rejected: the context says which
			}
			in = out
		}
		if marks[model.StageDone] {
			in += stamp
		}
		return in
	}
}

// wfActivityName is the activity code schedules for stage st.
func wfActivityName(st model.Stage, code int) string {
	if int(st) < len(wfActivityNames[code]) {
		return wfActivityNames[code][st]
	}
	return spellWfActivityName(st, code)
}

// wfActivityNames are wfActivityName of every code and stage, spelled
// once: every workflow task and replay asks for each.
var wfActivityNames = func() (t [len(wfCodes)][model.StageDone]string) {
	for c := range wfCodes {
		for st := range model.StageDone {
			t[c][st] = spellWfActivityName(st, c)
		}
	}
	return t
}()

func spellWfActivityName(st model.Stage, code int) string {
	if slices.Contains(wfCodes[code].renames, st) {
		return st.String() + ".v" + strconv.Itoa(wfCodes[code].build)
	}
	return st.String()
}

// wfBuild is the code (index in wfCodes) a worker process runs: build 2
// once the rolling deploy reached it — the odd-numbered workers, and
// every process restarted since.
func wfBuild(w *worker) int {
	if w.inc > 0 || w.id%2 == 1 {
		return 1
	}
	return 0
}

// wfCode states the workflow code a replay ran, for the oracle: its
// build, the activities it marks and those it renames.
func wfCode(code int) string { return wfCodeText[code] }

// wfCodeText is wfCode of each code, spelled once (every replay event
// states one).
var wfCodeText = func() (t [len(wfCodes)]string) {
	for c := range wfCodes {
		t[c] = spellWfCode(c)
	}
	return t
}()

func spellWfCode(code int) string {
	c := wfCodes[code]
	return "build=" + strconv.Itoa(c.build) + " marks=" + wfStageList(c.marks) + " renames=" + wfStageList(c.renames)
}

func wfStageList(sts []model.Stage) string {
	s := ""
	for i, st := range sts {
		if i > 0 {
			s += ","
		}
		s += st.String()
	}
	return s
}

// isWorkflowDoc says whether the worker's job runs as a workflow.
func (r *run) isWorkflowDoc(w *worker) bool {
	return r.wf.on && r.docs[w.doc].Index%r.cfg.WorkflowEvery == 0
}

// wfActivity is a stage's activity: its effect reaches the service, which
// applies it once per workflow and activity; its result is the stage's
// value (with the classifier's label, for extract).
func (r *run) wfActivity(st model.Stage, in string) string {
	w, f := r.wf.w, &r.wf.flows[r.wf.cur]
	job := r.sys.JobRef(w.lease.Job)
	e := r.simEvent(model.EvWfEffect, r.actor(w))
	e.Job, e.Tenant, e.Key, e.Stage, e.HasStage, e.OK = w.lease.Job, job.Tenant, job.Key, st, true, !f.effects[st]
	f.effects[st] = true
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
	r.wf.cur = r.flow(job.Key)
	f := &r.wf.flows[r.wf.cur]
	h := f.hist
	w.wfHist, w.wfBase, w.wfRun, w.wfReset = nil, len(h), f.run, h == nil
	if h == nil {
		h = workflow.Start(job.Key + "@" + strconv.Itoa(int(w.stage)))
	}
	build := wfBuild(w)
	r.wf.w = w
	st, err := workflow.Advance(r.wf.defs[build], h, wfBudget(h, w.stage))
	if !w.wfReset {
		r.wfReplayed(w, job.Key, build, len(h), st.Executed, err)
	}
	if errors.Is(err, workflow.ErrNondeterministic) {
		// The deploy changed a command this run recorded: reset the
		// workflow to a new run from here, under this worker's build,
		// durable with the stage's commit as any task's events.
		w.wfReset = true
		st, err = workflow.Advance(r.wf.defs[build], workflow.Start(job.Key+"@"+strconv.Itoa(int(w.stage))), 1)
	}
	r.wf.w = nil
	result, ok := wfResult(st.History, w.stage)
	if err == nil && !ok {
		err = errors.New("workflow: the task left no result of activity " + w.stage.String())
	}
	if err != nil {
		w.workErr = &model.WorkError{Code: model.CodePermanentError, Raw: err.Error()}
		w.failing = true
		r.cross(w, model.AfterExtract, 0)
		return false
	}
	w.value = hexValue(result[strings.LastIndexByte(result, '/')+1:])
	if w.wfReset || len(st.History) > len(h) {
		w.wfHist = st.History
	}
	w.wfDone = st.Done
	return true
}

// hexValue is strconv.ParseUint(s, 16, 64) with its error dropped, read
// digit by digit for what activities return (up to 16 lowercase hex
// digits: FormatUint's) and by strconv for anything else.
func hexValue(s string) uint64 {
	if len(s) == 0 || len(s) > 16 {
		v, _ := strconv.ParseUint(s, 16, 64)
		return v
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			v = v<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default: // not FormatUint's: strconv's verdict
			v, _ := strconv.ParseUint(s, 16, 64)
			return v
		}
	}
	return v
}

// wfBudget is a task's budget on h: one activity, or none for a stage redone
// after its activity was recorded (replay only).
func wfBudget(h []workflow.HistoryEvent, st model.Stage) int {
	if _, done := wfResult(h, st); done {
		return 0
	}
	return 1
}

// wfPersist makes the events of the worker's last workflow task durable,
// with its stage's commit: appended to the run it replayed, or, for a task
// that started a run (the first, or a reset), as that new run. A task that
// another worker's overtook (the run grew, or was replaced, since it read
// it) is dropped, as a stale task completion. A task that completed the
// workflow then reads its result, as the job's outcome: it replays the
// whole history once more, as a worker asked for the result does.
func (r *run) wfPersist(w *worker) {
	h, done := w.wfHist, w.wfDone
	if h == nil && !done {
		return // nothing to persist (a task with no new event, or no workflow)
	}
	w.wfHist, w.wfDone = nil, false
	key := r.sys.JobRef(w.lease.Job).Key
	f := &r.wf.flows[r.flow(key)]
	if len(f.hist) != w.wfBase || f.run != w.wfRun {
		return
	}
	if h != nil {
		from := w.wfBase
		if w.wfReset {
			from = 0
			f.run++
		}
		f.hist = h
		r.wfRecorded(w, h[from:])
	}
	if done {
		h = f.hist
		build := wfBuild(w)
		ctx, err := workflow.ReplayWorkflow(r.wf.defs[build], h)
		executed, result := 0, ""
		if ctx != nil {
			executed = ctx.Executed
		}
		if err == nil {
			result = " result=" + h[len(h)-1].Result
		}
		r.wfReplayedWith(w, key, build, len(h), executed, result, err)
		r.wfReplayTest(w, key, h)
	}
}

// wfReplayTest replays a completed history under each change being rolled
// out on its own, as a deploy pipeline's replay test does; the verdicts
// ("test " in the trace) change nothing, and the oracle judges them as
// any replay's.
func (r *run) wfReplayTest(w *worker, key string, h []workflow.HistoryEvent) {
	for c := wfTests; c < len(wfCodes); c++ {
		_, err := workflow.ReplayWorkflow(r.wf.defs[c], h)
		r.wfReplayedWith(w, key, c, len(h), 0, "", err)
	}
}

// wfRecorded emits a record event per history event made durable: its id,
// and its text without the id (kind, activity, input or result).
func (r *run) wfRecorded(w *worker, evs []workflow.HistoryEvent) {
	for _, he := range evs {
		job := r.sys.JobRef(w.lease.Job)
		e := r.simEvent(model.EvWfRecord, r.actor(w))
		r.wf.buf = he.AppendWhat(r.wf.buf[:0])
		e.Job, e.Tenant, e.Key, e.N, e.Text = w.lease.Job, job.Tenant, job.Key, int64(he.ID), string(r.wf.buf)
		if st, ok := stageNamed(he.Name); ok {
			e.Stage, e.HasStage = st, true
		}
		r.emit(e)
	}
}

// wfReplayed emits a task's replay of the replayed events of the
// workflow's history: the code it ran, and the engine's verdict.
func (r *run) wfReplayed(w *worker, key string, build, replayed, executed int, err error) {
	r.wfReplayedWith(w, key, build, replayed, executed, "", err)
}

// wfReplayedWith is wfReplayed for a replay that read the workflow's
// result (" result=..."; "" for a task).
func (r *run) wfReplayedWith(w *worker, key string, build, replayed, executed int, result string, err error) {
	e := r.simEvent(model.EvWfReplay, r.actor(w))
	e.Job, e.Tenant, e.Key, e.N, e.N2, e.OK = w.lease.Job, r.sys.JobRef(w.lease.Job).Tenant, key, int64(replayed), int64(executed), err == nil
	if build < wfTests && result == "" && err == nil { // a task's accepted replay: the code alone
		e.Text = wfCode(build)
		r.emit(e)
		return
	}
	// The text is built in the run's buffer: one allocation, its string.
	b := r.wf.buf[:0]
	if build >= wfTests {
		b = append(b, "test "...)
	}
	b = append(append(b, wfCode(build)...), result...)
	if err != nil {
		b = append(b, " rejected: "...)
		if nd, ok := err.(*workflow.NondeterminismError); ok { // the engine's own error, unwrapped
			b = nd.AppendError(b)
		} else {
			b = append(b, err.Error()...)
		}
	}
	e.Text, r.wf.buf = string(b), b
	r.emit(e)
}

// wfResult is the recorded result of stage st's activity in h.
func wfResult(h []workflow.HistoryEvent, st model.Stage) (string, bool) {
	for _, e := range h {
		if e.Kind != workflow.ActivityCompleted {
			continue
		}
		if n, ok := stageNamed(e.Name); ok && n == st {
			return e.Result, true
		}
	}
	return "", false
}

// stageNamed is the stage whose activity name is (any build's).
func stageNamed(name string) (model.Stage, bool) {
	// The names a history holds are wfActivityNames' own strings: equal
	// to one of them, most often at the same address (a pointer check).
	for c := range wfActivityNames {
		for st, n := range wfActivityNames[c] {
			if len(n) == len(name) && n == name {
				return model.Stage(st), true
			}
		}
	}
	name, _, _ = strings.Cut(name, ".")
	for _, st := range model.Stages() {
		if st.String() == name {
			return st, true
		}
	}
	return 0, false
}
