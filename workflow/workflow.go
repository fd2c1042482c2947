package workflow

import (
	"errors"
	"fmt"
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
// in the workflow body) generates different commands on replay and is
// rejected with [ErrNondeterministic]; the same call inside an activity is
// recorded once and replays cleanly.

// HistoryKind is the kind of a workflow history event.
type HistoryKind uint8

// History event kinds (Temporal's names, abridged).
const (
	WorkflowStarted   HistoryKind = iota // Input is the workflow's input
	ActivityScheduled                    // Name and Input of the activity
	ActivityCompleted                    // Result of the activity scheduled just before
	WorkflowCompleted                    // Result of the workflow
)

var historyKindNames = [...]string{"WorkflowExecutionStarted", "ActivityTaskScheduled", "ActivityTaskCompleted", "WorkflowExecutionCompleted"}

func (k HistoryKind) String() string {
	if int(k) < len(historyKindNames) {
		return historyKindNames[k]
	}
	return "history(" + strconv.Itoa(int(k)) + ")"
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
func (e HistoryEvent) String() string {
	s := strconv.Itoa(e.ID) + " " + e.Kind.String()
	switch e.Kind {
	case WorkflowStarted:
		s += " input=" + e.Input
	case ActivityScheduled:
		s += " " + e.Name + "(" + e.Input + ")"
	case ActivityCompleted:
		s += " " + e.Name + " → " + e.Result
	case WorkflowCompleted:
		s += " result=" + e.Result
	}
	return s
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

func (e *NondeterminismError) Error() string {
	want := "no more events"
	if e.Event.ID != 0 {
		want = e.Event.String()
	}
	return fmt.Sprintf("%v: history event %s, replay generated %s %s", ErrNondeterministic, want, e.Got.Kind, commandText(e.Got))
}

// Unwrap lets errors.Is(err, ErrNondeterministic) work.
func (e *NondeterminismError) Unwrap() error { return ErrNondeterministic }

func commandText(c HistoryEvent) string {
	if c.Kind == WorkflowCompleted {
		return "result=" + c.Result
	}
	return c.Name + "(" + c.Input + ")"
}

// WorkflowContext is what workflow code sees: the way to schedule
// activities. It runs in one of two modes, a first execution that records
// the history or a replay that checks against it.
type WorkflowContext struct {
	wf       *Workflow
	history  []HistoryEvent
	replay   bool
	next     int // replay: index of the next recorded event to match
	Executed int // activities actually executed (a replay executes none)
}

// nondeterminism unwinds the workflow function at the first mismatch.
type nondeterminism struct{ err *NondeterminismError }

// ExecuteActivity schedules activity name with input and returns its
// result: executed and recorded on a first execution, read from the
// history on replay.
func (c *WorkflowContext) ExecuteActivity(name, input string) string {
	cmd := HistoryEvent{Kind: ActivityScheduled, Name: name, Input: input}
	if c.replay {
		c.match(cmd)
		c.match(HistoryEvent{Kind: ActivityCompleted, Name: name})
		return c.history[c.next-1].Result
	}
	act, ok := c.wf.Activities[name]
	if !ok {
		panic("model: workflow " + c.wf.Name + " schedules unknown activity " + name)
	}
	c.record(cmd)
	c.Executed++
	c.record(HistoryEvent{Kind: ActivityCompleted, Name: name, Result: act(input)})
	return c.history[len(c.history)-1].Result
}

func (c *WorkflowContext) record(e HistoryEvent) {
	e.ID = len(c.history) + 1
	c.history = append(c.history, e)
}

// match checks a generated command against the next recorded event: same
// kind, activity name and input; a completion of the workflow must also
// carry the same result. (An activity's completion is matched by name: its
// result is whatever was recorded.)
func (c *WorkflowContext) match(cmd HistoryEvent) {
	if c.next >= len(c.history) {
		panic(nondeterminism{&NondeterminismError{Got: cmd}})
	}
	want := c.history[c.next]
	if want.Kind != cmd.Kind || want.Name != cmd.Name || want.Input != cmd.Input ||
		cmd.Kind == WorkflowCompleted && want.Result != cmd.Result {
		panic(nondeterminism{&NondeterminismError{Event: want, Got: cmd}})
	}
	c.next++
}

// RunWorkflow executes wf on input for the first time and returns its
// event history. ctx reports how many activities were executed.
func RunWorkflow(wf Workflow, input string) (h []HistoryEvent, ctx *WorkflowContext) {
	ctx = &WorkflowContext{wf: &wf}
	ctx.record(HistoryEvent{Kind: WorkflowStarted, Input: input})
	result := wf.Body(ctx, input)
	ctx.record(HistoryEvent{Kind: WorkflowCompleted, Result: result})
	return ctx.history, ctx
}

// ReplayWorkflow re-runs wf against a recorded history, as a worker that
// takes the execution over after a crash does: activities are not
// executed, and every command the code generates must match the history.
// It returns a *NondeterminismError (errors.Is ErrNondeterministic) at the
// first mismatch, and the context (whose Executed stays 0).
func ReplayWorkflow(wf Workflow, h []HistoryEvent) (ctx *WorkflowContext, err error) {
	if len(h) == 0 || h[0].Kind != WorkflowStarted {
		return nil, errors.New("model: a workflow history starts with " + WorkflowStarted.String())
	}
	ctx = &WorkflowContext{wf: &wf, history: h, replay: true, next: 1}
	defer func() {
		if p := recover(); p != nil {
			nd, ok := p.(nondeterminism)
			if !ok {
				panic(p)
			}
			err = nd.err
		}
	}()
	result := wf.Body(ctx, h[0].Input)
	ctx.match(HistoryEvent{Kind: WorkflowCompleted, Result: result})
	if ctx.next < len(h) {
		return ctx, &NondeterminismError{Event: h[ctx.next], Got: HistoryEvent{Kind: WorkflowCompleted, Result: result}}
	}
	return ctx, nil
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
