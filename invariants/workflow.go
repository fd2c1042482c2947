package invariants

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
//   - the history's ids run 1, 2, 3... with no gap or repeat, and start
//     again at 1 only for a new run of a workflow (a reset) after a replay
//     of its current run was rejected;
//   - each replay's verdict is due: from the recorded history of the run
//     (each event's kind, activity, input and result, as wf_record states
//     them) and the code the replay ran (its build and the activities
//     whose input it stamps with the build, as wf_replay states them),
//     the checker generates the commands of the document workflow (each
//     stage from the one its input names, fed the previous activity's
//     recorded result, then the completion with the last result) and
//     compares them with the history. A rejection of a history the code
//     matches, and an acceptance of one it does not, are violations
//     naming the replay and the first event that differs; so is a replay
//     of a history other than the one recorded (more or fewer events);
//   - a replay test's verdict ("test build=..."; a deploy pipeline's
//     replay of a completed history under code being rolled out) is
//     judged alike, and allows no reset;
//   - a replay says it executed as many activities as its task issued
//     effects; a rejection names the first event that differs; an
//     activity's completion is recorded right after its scheduling;
//   - a result read (a replay with " result=") is of a completed run, and
//     is the result its completion records;
//   - a job acked as succeeded has its workflow's completion recorded and
//     its result read.

// History kinds as the trace names them (package workflow's names).
const (
	wfStarted           = "WorkflowExecutionStarted"
	wfActivityScheduled = "ActivityTaskScheduled"
	wfActivityCompleted = "ActivityTaskCompleted"
	wfCompleted         = "WorkflowExecutionCompleted"
)

// wfActivity is what the history showed of one activity of one workflow:
// the seq of its applied effect and of its recorded completion (0: none).
type wfActivity struct{ applied, completed uint64 }

// wfExecution is what the history showed of one workflow's current run.
type wfExecution struct {
	lastID   int64  // the last history id recorded
	lastSeq  uint64 // the event that recorded it
	finished uint64 // the event that recorded its completion
	rejected uint64 // a replay of the run that was rejected (a reset may follow)
	// the rejecting worker and its start of stage work: what it runs in
	// that work is the reset's new run, recorded with its commit
	rejectedBy   model.Actor
	rejectedWork uint64
	read         uint64 // a replay that read the completed run's result
	events       []wfEntry
}

// wfEntry is one recorded history event, as its wf_record states it.
type wfEntry struct {
	seq                       uint64
	kind, name, input, result string
}

// wfTables are the checker's tables, made on a run's first workflow event,
// and each worker's last start of stage work (by worker id), kept for
// every run: a workflow's first event comes after it.
type wfTables struct {
	keys  map[string]int32         // index in flows, by workflow (the job's key)
	flows []wfFlow                 // kept across runs as capacity
	odd   map[stageKey]*wfActivity // activities of stages past StageDone (no trace line names one)
	work  []wfWork
	codes []*wfCode // the codes replays stated, parsed (a run states a handful)
	// chunk is where executions' histories are carved from (newEvents),
	// kept across runs; buf is where a text to look for is spelled.
	chunk []wfEntry
	buf   []byte
}

// wfFlow is what the history showed of one workflow: its current run,
// once a record or a replay of it came (hasX), and its activities.
type wfFlow struct {
	x    wfExecution
	hasX bool
	acts [model.StageDone + 1]wfActivity // by stage
}

// flow is the workflow with key, made on its first event. The pointer
// holds until the next flow is made.
func (t *wfTables) flow(key string) *wfFlow {
	i, ok := t.keys[key]
	if !ok {
		i = int32(len(t.flows))
		t.keys[key] = i
		t.flows = append(t.flows, wfFlow{})
	}
	return &t.flows[i]
}

// act is the activity of stage st of workflow f (key).
func (t *wfTables) act(f *wfFlow, key string, st model.Stage) *wfActivity {
	if int(st) < len(f.acts) {
		return &f.acts[st]
	}
	if t.odd == nil {
		t.odd = map[stageKey]*wfActivity{}
	}
	a := t.odd[stageKey{key, st}]
	if a == nil {
		a = new(wfActivity)
		t.odd[stageKey{key, st}] = a
	}
	return a
}

// wfRoom is the events a new execution's history gets room for: a whole
// run of the document workflow (start, five activities, completion).
const wfRoom = 12

// newEvents is an empty history with room for wfRoom events, from the
// tables' chunk: a run's histories cost no allocation once the chunk has
// served a run as large (a longer one grows out of it by append).
func (t *wfTables) newEvents() []wfEntry {
	if len(t.chunk)+wfRoom > cap(t.chunk) {
		t.chunk = make([]wfEntry, 0, max(32*wfRoom, 2*cap(t.chunk))) // the old one stays with the histories cut from it
	}
	n := len(t.chunk)
	t.chunk = t.chunk[:n+wfRoom]
	return t.chunk[n : n : n+wfRoom]
}

// wfWork is a worker's last start of stage work (an extract event).
type wfWork struct {
	seq   uint64
	inc   int32
	job   model.JobID
	stage model.Stage
	// effects the worker issued since this start, its last replay or its
	// last record: what its next replay must say it executed
	effects int64
}

func (t *wfTables) reset() {
	if t.keys != nil {
		clear(t.keys)
	}
	t.flows, t.odd = reuse.Slice(t.flows), nil
	t.work = reuse.Slice(t.work)
	t.chunk = t.chunk[:0] // the histories cut from it went with flows
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
	if t.keys == nil {
		t.keys = map[string]int32{}
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
		s.wfReplay(e)
	}
}

// wfReplay judges a replay's verdict from the run's recorded history and
// the code the replay ran.
func (s *Suite) wfReplay(e *model.Event) {
	f := s.wf.flow(e.Key)
	x := &f.x
	if int(e.N) != len(x.events) {
		s.report(Workflow, e.Job, fmt.Sprintf("%v replay of workflow %s read %d events, its recorded history holds %d", e.Job, e.Key, e.N, len(x.events)), nonZero(x.lastSeq, e.Seq)...)
		return
	}
	text, test := strings.CutPrefix(e.Text, "test ")
	text, why, _ := strings.Cut(text, " rejected: ")
	code, result, read := strings.Cut(text, " result=")
	if w := s.wfWorkOf(e.Actor); w.seq != 0 && w.effects != e.N2 {
		s.report(Workflow, e.Job, fmt.Sprintf("%v replay of workflow %s says it executed %d activities, its task issued %d effects", e.Job, e.Key, e.N2, w.effects), nonZero(w.seq, e.Seq)...)
	}
	s.wfCount(e.Actor, -1)
	at, want := wfMismatch(x.events, s.wf.code(code))
	if read {
		s.wfRead(e, x, result)
	}
	switch {
	case !e.OK && at >= 0 && !s.wf.names(why, x.events, at):
		s.report(Workflow, e.Job, fmt.Sprintf("%v replay of workflow %s rejected naming another event than the first its code (%s) does not generate, event %s: %s", e.Job, e.Key, code, wfEventText(x.events, at), why), e.Seq)
	case !e.OK && at < 0:
		s.report(Workflow, e.Job, fmt.Sprintf("%v replay of workflow %s rejected, but its code (%s) generates each of its %d recorded events: %s", e.Job, e.Key, code, len(x.events), e.Text), nonZero(x.lastSeq, e.Seq)...)
	case e.OK && at >= len(x.events):
		s.report(Workflow, e.Job, fmt.Sprintf("%v replay of workflow %s accepted, but its code (%s) generates %s where the history ends", e.Job, e.Key, code, want), nonZero(x.lastSeq, e.Seq)...)
	case e.OK && at >= 0:
		en := x.events[at]
		s.report(Workflow, e.Job, fmt.Sprintf("%v replay of workflow %s accepted, but its code (%s) generates %s where event %d records %s", e.Job, e.Key, code, want, at+1, en.text()), en.seq, e.Seq)
	}
	if !e.OK && !test { // a replay test's rejection fails no task: no reset follows
		x.rejected, x.rejectedBy, x.rejectedWork = e.Seq, e.Actor, s.wfWorkOf(e.Actor).seq
	}
	f.hasX = true
}

// wfRead checks a replay that read the workflow's result: the run is
// completed, and the result is the one its completion records.
func (s *Suite) wfRead(e *model.Event, x *wfExecution, result string) {
	if x.finished == 0 {
		s.report(Workflow, e.Job, fmt.Sprintf("%v workflow %s's result read, but its run has recorded no completion", e.Job, e.Key), nonZero(x.lastSeq, e.Seq)...)
		return
	}
	if last := x.events[len(x.events)-1]; last.result != result {
		s.report(Workflow, e.Job, fmt.Sprintf("%v workflow %s's result read as %q, its completion records %q", e.Job, e.Key, result, last.result), last.seq, e.Seq)
	}
	x.read = e.Seq
}

// wfEventText is how a rejection names event i of the run: "<id> <text>",
// or "no more events" past its end.
func wfEventText(evs []wfEntry, i int) string { return string(appendWfEventText(nil, evs, i)) }

func appendWfEventText(b []byte, evs []wfEntry, i int) []byte {
	if i >= len(evs) {
		return append(b, "no more events"...)
	}
	return evs[i].appendText(append(strconv.AppendInt(b, int64(i+1), 10), ' '))
}

// names says whether a rejection's reason names event i of the run:
// strings.Contains(why, "history event "+wfEventText(evs, i)+","), with
// the text spelled in the tables' buffer rather than a new string.
func (t *wfTables) names(why string, evs []wfEntry, i int) bool {
	const anchor = "history event "
	want := append(appendWfEventText(append(t.buf[:0], anchor...), evs, i), ',')
	t.buf = want
	for k := strings.Index(why, anchor); k >= 0; k = strings.Index(why, anchor) {
		if why = why[k:]; len(why) >= len(want) && why[:len(want)] == string(want) {
			return true
		}
		why = why[len(anchor):]
	}
	return false
}

// wfCode is a replay's code ("build=N marks=a,b renames=c") as
// wfMismatch reads it: the build's stamp on an input ("|build=N"), the
// stages whose input it stamps (and whether the result is), and each
// stage's activity name ("c.vN" for those renamed).
type wfCode struct {
	code        string
	stamp       string
	stamped     [model.StageDone]bool
	stampedDone bool
	names       [model.StageDone]string
}

// code returns the parsed code, parsing it on its first replay.
func (t *wfTables) code(code string) *wfCode {
	for _, c := range t.codes {
		if c.code == code {
			return c
		}
	}
	c := parseWfCode(code)
	if len(t.codes) == 64 { // not a fleet's builds: keep no more
		t.codes = t.codes[:0]
	}
	t.codes = append(t.codes, c)
	return c
}

func parseWfCode(code string) *wfCode {
	build, marks, _ := strings.Cut(strings.TrimPrefix(code, "build="), " marks=")
	marks, renames, _ := strings.Cut(marks, " renames=")
	stamped, renamed := strings.Split(marks, ","), strings.Split(renames, ",")
	c := &wfCode{code: code, stamp: "|build=" + build, stampedDone: slices.Contains(stamped, model.StageDone.String())}
	for st := range model.StageDone {
		c.stamped[st] = slices.Contains(stamped, st.String())
		c.names[st] = st.String()
		if slices.Contains(renamed, st.String()) {
			c.names[st] += ".v" + build
		}
	}
	return c
}

// wfWant is what the code generates where the history departs from it:
// spelled only when a report needs it.
type wfWant struct {
	kind  uint8 // wfWantText, wfWantEntry, wfWantCompletion
	text  string
	entry wfEntry
}

const (
	wfWantText       = iota // text
	wfWantEntry             // entry, as wf_record prints it
	wfWantCompletion        // the completion of activity entry.name
)

func (w wfWant) String() string {
	switch w.kind {
	case wfWantEntry:
		return w.entry.text()
	case wfWantCompletion:
		return wfActivityCompleted + " " + w.entry.name
	}
	return w.text
}

// stamped is in with the stamp when on: what an input or result is after
// the code stamps it.
func stamped(in, stamp string, on bool) string {
	if on {
		return in + stamp
	}
	return in
}

// isStamped says whether x is in with the stamp when on, building nothing.
func isStamped(x, in, stamp string, on bool) bool {
	if !on {
		return x == in
	}
	return len(x) == len(in)+len(stamp) && x[:len(in)] == in && x[len(in):] == stamp
}

// wfMismatch generates the document workflow's commands under code
// (the activities whose input gets "|build=N", "done" for the result;
// those scheduled as "c.vN") against the recorded events, and returns
// the index of the first event the code does not generate and what it
// generates there; -1 when every event is generated (the history may end
// anywhere along the code's path).
func wfMismatch(evs []wfEntry, c *wfCode) (int, wfWant) {
	if len(evs) == 0 || evs[0].kind != wfStarted {
		return 0, wfWant{text: wfStarted}
	}
	in := evs[0].input
	first, err := strconv.Atoi(in[strings.LastIndexByte(in, '@')+1:])
	if err != nil {
		return 0, wfWant{text: wfStarted + " input=key@stage"}
	}
	i := 1
	for st := model.Stage(first); st < model.StageDone; st++ {
		on := c.stamped[st] // the input is in, stamped when on
		if i >= len(evs) {
			return -1, wfWant{} // the run goes on from here
		}
		name := c.names[st]
		if evs[i].kind != wfActivityScheduled || evs[i].name != name || !isStamped(evs[i].input, in, c.stamp, on) {
			return i, wfWant{kind: wfWantEntry, entry: wfEntry{kind: wfActivityScheduled, name: name, input: stamped(in, c.stamp, on)}}
		}
		// a scheduled activity's completion is recorded with it: a
		// history that ends before it is one the code cannot go on from
		if i+1 >= len(evs) || evs[i+1].kind != wfActivityCompleted || evs[i+1].name != name {
			return i + 1, wfWant{kind: wfWantCompletion, entry: wfEntry{name: name}}
		}
		in, i = evs[i+1].result, i+2
	}
	switch {
	case i < len(evs) && (evs[i].kind != wfCompleted || !isStamped(evs[i].result, in, c.stamp, c.stampedDone)):
		return i, wfWant{kind: wfWantEntry, entry: wfEntry{kind: wfCompleted, result: stamped(in, c.stamp, c.stampedDone)}}
	case i+1 < len(evs):
		return i + 1, wfWant{text: "no more events"}
	}
	return -1, wfWant{}
}

// parseWfEntry reads a wf_record's text: "<kind> name(input)", "<kind>
// name → result", "<kind> input=X", "<kind> result=X".
func parseWfEntry(e *model.Event) wfEntry {
	en := wfEntry{seq: e.Seq}
	var rest string
	en.kind, rest, _ = strings.Cut(e.Text, " ")
	switch en.kind {
	case wfStarted:
		en.input = strings.TrimPrefix(rest, "input=")
	case wfActivityScheduled:
		en.name, en.input, _ = strings.Cut(strings.TrimSuffix(rest, ")"), "(")
	case wfActivityCompleted:
		en.name, en.result, _ = strings.Cut(rest, " → ")
	case wfCompleted:
		en.result = strings.TrimPrefix(rest, "result=")
	}
	return en
}

// text prints an entry as its wf_record does.
func (en wfEntry) text() string { return string(en.appendText(nil)) }

func (en wfEntry) appendText(b []byte) []byte {
	b = append(b, en.kind...)
	switch en.kind {
	case wfStarted:
		return append(append(b, " input="...), en.input...)
	case wfActivityScheduled:
		return append(append(append(append(append(b, ' '), en.name...), '('), en.input...), ')')
	case wfActivityCompleted:
		return append(append(append(append(b, ' '), en.name...), " → "...), en.result...)
	}
	return append(append(b, " result="...), en.result...)
}

func (s *Suite) wfEffect(e *model.Event) {
	s.wfInStage(e)
	s.wfCount(e.Actor, 1)
	f := s.wf.flow(e.Key)
	a := s.wf.act(f, e.Key, e.Stage)
	if a.completed != 0 && !s.wfInReset(e, &f.x) {
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
}

// wfInReset says whether an effect comes in the stage work where its
// worker rejected the workflow's run: the reset's new run executes the
// activity anew (its record comes with the stage's commit).
func (s *Suite) wfInReset(e *model.Event, x *wfExecution) bool {
	return x.rejected != 0 && x.rejectedBy == e.Actor && s.wfWorkOf(e.Actor).seq == x.rejectedWork
}

// wfCount adds n to the effects a worker issued since its last start of
// work, replay or record; n < 0 starts the count again.
func (s *Suite) wfCount(a model.Actor, n int64) {
	if id := int(a.ID); a.Role == model.RoleWorker && id >= 0 && id < len(s.wf.work) && s.wf.work[id].inc == a.Incarnation {
		if n < 0 {
			s.wf.work[id].effects = 0
		} else {
			s.wf.work[id].effects += n
		}
	}
}

// wfWorkOf is a worker's last start of stage work (zero: none).
func (s *Suite) wfWorkOf(a model.Actor) wfWork {
	if id := int(a.ID); a.Role == model.RoleWorker && id >= 0 && id < len(s.wf.work) && s.wf.work[id].inc == a.Incarnation {
		return s.wf.work[id]
	}
	return wfWork{}
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
	f := s.wf.flow(e.Key)
	x := &f.x
	en := parseWfEntry(e)
	if e.N == 1 && en.kind == wfStarted && x.lastID > 0 && x.rejected != 0 {
		// a reset: a new run, whose activities complete anew
		*x = wfExecution{events: x.events[:0]}
		for _, st := range model.Stages() {
			f.acts[st].completed = 0
		}
	}
	s.wfCount(e.Actor, -1)
	if en.kind == wfActivityCompleted {
		if n := len(x.events); n == 0 || x.events[n-1].kind != wfActivityScheduled || x.events[n-1].name != en.name {
			s.report(Workflow, e.Job, fmt.Sprintf("%v workflow %s recorded activity %s completed with no scheduling of it just before", e.Job, e.Key, en.name), nonZero(x.lastSeq, e.Seq)...)
		}
	}
	if x.events == nil {
		x.events = s.wf.newEvents()
	}
	x.events = append(x.events, en)
	if e.N != x.lastID+1 {
		s.report(Workflow, e.Job, fmt.Sprintf("%v workflow %s recorded history id %d after id %d", e.Job, e.Key, e.N, x.lastID), nonZero(x.lastSeq, e.Seq)...)
	}
	x.lastID, x.lastSeq = e.N, e.Seq
	switch en.kind {
	case wfActivityCompleted:
		a := s.wf.act(f, e.Key, e.Stage)
		if a.applied == 0 {
			s.report(Workflow, e.Job, fmt.Sprintf("%v activity %v of workflow %s recorded completed with no effect applied", e.Job, e.Stage, e.Key), e.Seq)
		}
		if a.completed == 0 {
			a.completed = e.Seq
		}
	case wfCompleted:
		x.finished = e.Seq
	}
	f.hasX = true
}

// wfAcked checks a final ack of a job whose key names a workflow.
func (s *Suite) wfAcked(e *model.Event) {
	if len(s.wf.keys) == 0 || !e.OK {
		return
	}
	var x wfExecution
	i, ok := s.wf.keys[e.Key]
	if ok {
		x, ok = s.wf.flows[i].x, s.wf.flows[i].hasX
	}
	switch {
	case ok && x.finished == 0:
		s.report(Workflow, e.Job, fmt.Sprintf("%v acked as succeeded but workflow %s never recorded its completion", e.Job, e.Key), nonZero(x.lastSeq, e.Seq)...)
	case ok && x.read == 0:
		s.report(Workflow, e.Job, fmt.Sprintf("%v acked as succeeded but workflow %s's result was never read", e.Job, e.Key), nonZero(x.finished, e.Seq)...)
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
