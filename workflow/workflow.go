package workflow

import (
	"errors"
	"slices"
	"strconv"
)

// A durable workflow, modeled the way Temporal runs one (seed 000, "Fila
// local vs. workflow durável" and failure 2): workflow code issues commands
// (schedule an activity, complete), the engine records them and their
// results as an event history, and a worker that picks the execution up
// after a crash rebuilds its state by Replay — re-running the workflow
// function against the history, taking every activity result from it, and
// comparing each command the code generates with the recorded one. Code
// that decides something from an unrecorded, varying source (an LLM called
// in the workflow body), or code changed by a deploy while the execution
// ran, generates different commands on replay and is rejected with
// [ErrNondeterministic]; the same call inside an activity is recorded once
// and replays cleanly.

// HistoryKind is the kind of a workflow history event.
type HistoryKind uint8

// History event kinds (Temporal's names, abridged).
const (
	WorkflowStarted   HistoryKind = iota // Input is the workflow's input
	ActivityScheduled                    // Name and Input of the activity
	ActivityCompleted                    // Result of the activity scheduled just before
	WorkflowCompleted                    // Result of the workflow
)

// historyKindNames ends with the name every other value prints: no engine
// path makes one, and a kind made by hand still prints, with no branch
// the engine never takes.
var historyKindNames = [...]string{"WorkflowExecutionStarted", "ActivityTaskScheduled", "ActivityTaskCompleted", "WorkflowExecutionCompleted", "HistoryKindInvalid"}

func (k HistoryKind) String() string {
	return historyKindNames[min(int(k), len(historyKindNames)-1)]
}

// HistoryEvent is one entry of a workflow's event history.
type HistoryEvent struct {
	ID     int // 1-based position in the history
	Kind   HistoryKind
	Name   string // activity name
	Input  string
	Result string
}

// String prints the event as "3 ActivityTaskCompleted classify → invoice".
func (e HistoryEvent) String() string { return strconv.Itoa(e.ID) + " " + e.What() }

// What is the event without its id, "ActivityTaskCompleted classify →
// invoice": what a command the code generates says, and what a trace of
// the history records (the id goes apart). Each case is one
// concatenation: one allocation.
func (e HistoryEvent) What() string {
	switch e.Kind {
	case WorkflowStarted:
		return e.Kind.String() + " input=" + e.Input
	case ActivityScheduled:
		return e.Kind.String() + " " + e.Name + "(" + e.Input + ")"
	case ActivityCompleted:
		return e.Kind.String() + " " + e.Name + " → " + e.Result
	case WorkflowCompleted:
		return e.Kind.String() + " result=" + e.Result
	}
	return e.Kind.String()
}

// AppendWhat appends [HistoryEvent.What] to b: no allocation into a
// buffer with room (a trace line built in place).
func (e HistoryEvent) AppendWhat(b []byte) []byte {
	b = append(b, e.Kind.String()...)
	switch e.Kind {
	case WorkflowStarted:
		b = append(append(b, " input="...), e.Input...)
	case ActivityScheduled:
		b = append(append(append(append(append(b, ' '), e.Name...), '('), e.Input...), ')')
	case ActivityCompleted:
		b = append(append(append(append(b, ' '), e.Name...), " → "...), e.Result...)
	case WorkflowCompleted:
		b = append(append(b, " result="...), e.Result...)
	}
	return b
}

// Activity is activity code: it may do anything, including nondeterministic
// calls; its result is recorded in the history and never recomputed on
// replay.
type Activity func(input string) string

// Workflow is workflow code and the activities it may schedule. Body must be
// deterministic given the history: everything it decides on must come from
// its input or from activity results.
type Workflow struct {
	Name       string
	Body       func(ctx *WorkflowContext, input string) string
	Activities map[string]Activity
}

// ErrNondeterministic is the replay's verdict on workflow code that
// generated a command its history does not have.
var ErrNondeterministic = errors.New("nondeterministic workflow")

// NondeterminismError names the first history event the replay could not
// match and the command the code generated instead.
type NondeterminismError struct {
	Event HistoryEvent // the recorded event (ID 0: the history had none left)
	Got   HistoryEvent // what the replayed code generated
}

func (e *NondeterminismError) Error() string { return string(e.AppendError(nil)) }

// AppendError appends [NondeterminismError.Error] to b (a trace line
// that states the verdict builds it in place).
func (e *NondeterminismError) AppendError(b []byte) []byte {
	b = append(append(b, ErrNondeterministic.Error()...), ": history event "...)
	if e.Event.ID != 0 {
		b = append(strconv.AppendInt(b, int64(e.Event.ID), 10), ' ')
		b = e.Event.AppendWhat(b)
	} else {
		b = append(b, "no more events"...)
	}
	return e.Got.AppendWhat(append(b, ", replay generated "...))
}

// Unwrap lets errors.Is(err, ErrNondeterministic) work.
func (e *NondeterminismError) Unwrap() error { return ErrNondeterministic }

// WorkflowContext is what workflow code sees: the way to schedule
// activities. Every command is first matched against the recorded history
// (a replay); past its end, commands are executed and recorded while the
// task's budget lasts, and the code is stopped at the first one beyond it.
type WorkflowContext struct {
	wf      Workflow
	history []HistoryEvent
	next    int // index of the next recorded event to match
	// budget is how many activities the context may still execute
	// before it suspends the code (Advance: a workflow task runs up to
	// its next activity; a replay, none); negative: no limit.
	budget   int
	Executed int // activities actually executed (a replay executes none)
	// Why the code was stopped, once it was: at a command beyond the
	// budget (suspended), or at the first mismatch. No command runs
	// after a stop.
	suspended bool
	mismatch  *NondeterminismError
}

// stop unwinds the workflow function of a stopped context (the context
// says why).
type stop struct{}

// ExecuteActivity schedules activity name with input and returns its
// result: read from the history while the history lasts, executed and
// recorded past its end. Where the code is stopped (suspended, or a
// mismatch), it unwinds the workflow function, which ends the task.
func (c *WorkflowContext) ExecuteActivity(name, input string) string {
	result, ok := c.TryExecuteActivity(name, input)
	if !ok {
		c.unwind()
	}
	return result
}

// TryExecuteActivity is [WorkflowContext.ExecuteActivity] for code that
// returns at once when it says false (the code is stopped, and the
// returned value is discarded): the task ends the same, without unwinding
// the function (a panic and its recovery cost a task more than the rest
// of its replay). A command after a stop unwinds the function as
// ExecuteActivity's does.
func (c *WorkflowContext) TryExecuteActivity(name, input string) (string, bool) {
	if c.stopped() {
		c.unwind()
	}
	cmd := HistoryEvent{Kind: ActivityScheduled, Name: name, Input: input}
	if c.next < len(c.history) {
		if !c.match(&cmd) || !c.match(&HistoryEvent{Kind: ActivityCompleted, Name: name}) {
			return "", false
		}
		return c.history[c.next-1].Result, true
	}
	if c.budget == 0 {
		c.suspended = true
		return "", false
	}
	act, ok := c.wf.Activities[name]
	if !ok {
		panic("workflow: workflow " + c.wf.Name + " schedules unknown activity " + name)
	}
	c.record(cmd)
	c.Executed++
	c.budget--
	c.record(HistoryEvent{Kind: ActivityCompleted, Name: name, Result: act(input)})
	return c.history[len(c.history)-1].Result, true
}

func (c *WorkflowContext) stopped() bool { return c.suspended || c.mismatch != nil }

// unwind ends the workflow function of a stopped context.
func (c *WorkflowContext) unwind() { panic(stop{}) }

// record appends e to the history; the context has matched every recorded
// event by then, so next follows the end.
func (c *WorkflowContext) record(e HistoryEvent) {
	e.ID = len(c.history) + 1
	c.history = append(c.history, e)
	c.next = len(c.history)
}

// match checks a generated command against the next recorded event: same
// kind, activity name and input; a completion of the workflow must also
// carry the same result. (An activity's completion is matched by name: its
// result is whatever was recorded.) Past the end of the history the
// recorded event is the zero one, which no command matches (a history
// that ends on a scheduled activity with no completion). A mismatch stops
// the code: false.
func (c *WorkflowContext) match(cmd *HistoryEvent) bool {
	want := &HistoryEvent{}
	if c.next < len(c.history) {
		want = &c.history[c.next]
	}
	if want.Kind != cmd.Kind || want.Name != cmd.Name || want.Input != cmd.Input ||
		cmd.Kind == WorkflowCompleted && want.Result != cmd.Result {
		c.mismatch = &NondeterminismError{Event: *want, Got: *cmd}
		return false
	}
	c.next++
	return true
}

// finish ends a body that returned result: a completion in the history
// must match it (replay has made sure it is the last event); past
// the history, it is recorded.
func (c *WorkflowContext) finish(result string) {
	done := HistoryEvent{Kind: WorkflowCompleted, Result: result}
	if c.next >= len(c.history) {
		c.record(done)
		return
	}
	c.match(&done)
}

// run runs the body on the context's history and reports how it ended:
// finished (nil), suspended, or a *NondeterminismError. The body either
// returned after TryExecuteActivity said it was stopped, or was unwound.
func (c *WorkflowContext) run() (isSuspended bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stop); !ok {
				panic(p)
			}
			isSuspended, err = c.verdict()
		}
	}()
	result := c.wf.Body(c, c.history[0].Input)
	if !c.stopped() {
		c.finish(result)
	}
	return c.verdict()
}

// verdict is how the code ended, from why the context stopped it.
func (c *WorkflowContext) verdict() (isSuspended bool, err error) {
	if c.mismatch != nil {
		return false, c.mismatch
	}
	return c.suspended, nil
}

// Start is the history of a new execution of a workflow on input: its
// WorkflowExecutionStarted event, which [Advance] goes on from.
func Start(input string) []HistoryEvent {
	return []HistoryEvent{{ID: 1, Kind: WorkflowStarted, Input: input}}
}

// ReplayWorkflow re-runs wf against a recorded history, as a worker that
// takes the execution over after a crash does: activities are not
// executed, and every command the code generates must match the history.
// A history of an execution still running replays up to its end, as
// Temporal's replayer accepts one (the code is suspended at its next
// command). It returns a *NondeterminismError (errors.Is
// ErrNondeterministic) at the first mismatch, and the context (whose
// Executed stays 0).
func ReplayWorkflow(wf Workflow, h []HistoryEvent) (*WorkflowContext, error) {
	ctx, _, err := replay(wf, h, 0)
	return ctx, err
}

// Step is what one workflow task did ([Advance]).
type Step struct {
	History  []HistoryEvent // the history given, with the events the task recorded appended
	Replayed int            // recorded events the code matched
	Executed int            // activities executed (and recorded)
	Done     bool           // the workflow completed: History ends with its WorkflowExecutionCompleted
}

// Advance is one workflow task on a history ([Start]'s, or one recorded
// since), as a worker runs it when it picks an execution up: it replays h
// (no recorded activity runs again), then executes at most budget new
// activities, recording each, and suspends the code at the next one; a
// body that returns is recorded as completed. budget 0 replays only; a
// negative budget runs the workflow to its end. h itself is not modified.
// A history the code does not match is a *NondeterminismError.
func Advance(wf Workflow, h []HistoryEvent, budget int) (Step, error) {
	ctx, isSuspended, err := replay(wf, h, budget)
	if err != nil {
		return Step{}, err
	}
	return Step{History: ctx.history, Replayed: len(h), Executed: ctx.Executed, Done: !isSuspended}, nil
}

// replay runs a workflow task with budget on a copy of h. It refuses what
// no execution records: a history that does not start with
// WorkflowExecutionStarted, or goes on after its WorkflowExecutionCompleted.
func replay(wf Workflow, h []HistoryEvent, budget int) (ctx *WorkflowContext, isSuspended bool, err error) {
	done := slices.IndexFunc(h, func(e HistoryEvent) bool { return e.Kind == WorkflowCompleted })
	if len(h) == 0 || h[0].Kind != WorkflowStarted || done >= 0 && done != len(h)-1 {
		return nil, false, errors.New("workflow: a workflow history starts with " + WorkflowStarted.String() + " and ends at its " + WorkflowCompleted.String())
	}
	ctx = &WorkflowContext{wf: wf, history: slices.Clip(h), next: 1, budget: budget}
	isSuspended, err = ctx.run()
	return ctx, isSuspended, err
}

// SampledLLM is a modeled LLM sampled at a temperature above zero: asked
// the same prompt again, it gives the next of its answers, so two
// executions of the same code see different answers. It is deterministic
// (a counter, not a clock or a global random source).
type SampledLLM struct {
	Answers []string
	Calls   int
}

// Complete answers a prompt (the prompt itself does not matter here).
func (m *SampledLLM) Complete(string) string {
	a := m.Answers[m.Calls%len(m.Answers)]
	m.Calls++
	return a
}
