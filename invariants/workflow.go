package invariants

import (
	"fmt"

	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/model"
)

// Durable workflows (invariant durable-workflow): a job that runs its
// stages as the activities of a durable workflow records, in the trace,
// each activity's side effect as the service saw it (wf_effect: applied,
// or deduplicated by the service), each event appended to the workflow's
// durable history (wf_record) and each workflow task's replay
// (wf_replay). From those alone, never from the engine's own counters:
//   - an activity's effect is applied once: a second applied effect, or a
//     deduplication with none applied before, is a violation;
//   - a replay issues no new side effect: no effect of an activity after
//     its completion was recorded (the recorded result is what a replay
//     returns);
//   - an activity runs in its own stage's work: its effect follows the
//     caller's start of that stage's work on that job (an engine that ran
//     activities ahead would apply a later stage's effect early);
//   - an activity's completion is recorded only after its effect;
//   - the history's ids run 1, 2, 3... with no gap or repeat;
//   - no replay of the recorded history is rejected (the workflow code
//     is deterministic: a rejection is the engine's mistake);
//   - a job acked as succeeded has its workflow's completion recorded.

// History kinds as the trace names them (package workflow's names).
const (
	wfActivityCompleted = "ActivityTaskCompleted"
	wfCompleted         = "WorkflowExecutionCompleted"
)

// wfActivity is what the history showed of one activity of one workflow:
// the seq of its applied effect and of its recorded completion (0: none).
type wfActivity struct{ applied, completed uint64 }

// wfExecution is what the history showed of one workflow.
type wfExecution struct {
	lastID   int64  // the last history id recorded
	lastSeq  uint64 // the event that recorded it
	finished uint64 // the event that recorded its completion
}

// wfTables are the checker's tables, made on a run's first workflow event,
// and each worker's last start of stage work (by worker id), kept for
// every run: a workflow's first event comes after it.
type wfTables struct {
	acts  map[stageKey]wfActivity
	execs map[string]wfExecution
	work  []wfWork
}

// wfWork is a worker's last start of stage work (an extract event).
type wfWork struct {
	seq   uint64
	inc   int32
	job   model.JobID
	stage model.Stage
}

func (t *wfTables) reset() {
	if t.acts != nil {
		clear(t.acts)
		clear(t.execs)
	}
	t.work = reuse.Slice(t.work)
}

// wfWorkStarted notes a worker's start of stage work.
func (s *Suite) wfWorkStarted(e *model.Event) {
	if e.Actor.Role != model.RoleWorker || e.Actor.ID < 0 {
		return
	}
	id := int(e.Actor.ID)
	for len(s.wf.work) <= id {
		s.wf.work = append(s.wf.work, wfWork{})
	}
	s.wf.work[id] = wfWork{seq: e.Seq, inc: e.Actor.Incarnation, job: e.Job, stage: e.Stage}
}

func (t *wfTables) ready() {
	if t.acts == nil {
		t.acts, t.execs = map[stageKey]wfActivity{}, map[string]wfExecution{}
	}
}

// workflowEvent checks one workflow event against the history before it.
func (s *Suite) workflowEvent(e *model.Event) {
	s.wf.ready()
	switch e.Kind {
	case model.EvWfEffect:
		s.wfEffect(e)
	case model.EvWfRecord:
		s.wfRecord(e)
	case model.EvWfReplay:
		if !e.OK {
			s.report(Workflow, e.Job, fmt.Sprintf("%v replay of workflow %s rejected: %s", e.Job, e.Key, e.Text), e.Seq)
		}
	}
}

func (s *Suite) wfEffect(e *model.Event) {
	s.wfInStage(e)
	k := stageKey{e.Key, e.Stage}
	a := s.wf.acts[k]
	if a.completed != 0 {
		s.report(Workflow, e.Job, fmt.Sprintf("%v activity %v of workflow %s reached its service again after its completion was recorded: a replay issued a side effect", e.Job, e.Stage, e.Key), a.completed, e.Seq)
	}
	switch {
	case e.OK && a.applied != 0:
		s.report(Workflow, e.Job, fmt.Sprintf("%v activity %v of workflow %s applied twice", e.Job, e.Stage, e.Key), a.applied, e.Seq)
	case e.OK:
		a.applied = e.Seq
	case a.applied == 0:
		s.report(Workflow, e.Job, fmt.Sprintf("%v activity %v of workflow %s deduplicated but never applied", e.Job, e.Stage, e.Key), e.Seq)
	}
	s.wf.acts[k] = a
}

// wfInStage checks that an activity's effect comes in its own stage's
// work: the caller's last start of work was that stage of that job.
func (s *Suite) wfInStage(e *model.Event) {
	var w wfWork
	if id := int(e.Actor.ID); e.Actor.Role == model.RoleWorker && id >= 0 && id < len(s.wf.work) {
		w = s.wf.work[id]
	}
	if w.seq != 0 && w.inc == e.Actor.Incarnation && w.job == e.Job && w.stage == e.Stage {
		return
	}
	s.report(Workflow, e.Job, fmt.Sprintf("%v activity %v of workflow %s ran outside its stage's work (%v's last work: %v stage %v)", e.Job, e.Stage, e.Key, e.Actor, w.job, w.stage), nonZero(w.seq, e.Seq)...)
}

func (s *Suite) wfRecord(e *model.Event) {
	x := s.wf.execs[e.Key]
	if e.N != x.lastID+1 {
		s.report(Workflow, e.Job, fmt.Sprintf("%v workflow %s recorded history id %d after id %d", e.Job, e.Key, e.N, x.lastID), nonZero(x.lastSeq, e.Seq)...)
	}
	x.lastID, x.lastSeq = e.N, e.Seq
	switch e.Text {
	case wfActivityCompleted:
		k := stageKey{e.Key, e.Stage}
		a := s.wf.acts[k]
		if a.applied == 0 {
			s.report(Workflow, e.Job, fmt.Sprintf("%v activity %v of workflow %s recorded completed with no effect applied", e.Job, e.Stage, e.Key), e.Seq)
		}
		if a.completed == 0 {
			a.completed = e.Seq
		}
		s.wf.acts[k] = a
	case wfCompleted:
		x.finished = e.Seq
	}
	s.wf.execs[e.Key] = x
}

// wfAcked checks a final ack of a job whose key names a workflow.
func (s *Suite) wfAcked(e *model.Event) {
	if s.wf.execs == nil || !e.OK {
		return
	}
	if x, ok := s.wf.execs[e.Key]; ok && x.finished == 0 {
		s.report(Workflow, e.Job, fmt.Sprintf("%v acked as succeeded but workflow %s never recorded its completion", e.Job, e.Key), nonZero(x.lastSeq, e.Seq)...)
	}
}

// nonZero drops the zero seqs (an event that was not there).
func nonZero(seqs ...uint64) []uint64 {
	out := seqs[:0]
	for _, q := range seqs {
		if q != 0 {
			out = append(out, q)
		}
	}
	return out
}
