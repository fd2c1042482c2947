package workflow_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/durasim/durasim/workflow"
)

// classifyThenExtract is seed 000's classify → extract → review-handoff
// workflow. inActivity says where the LLM classification runs.
func classifyThenExtract(llm *workflow.SampledLLM, inActivity bool) workflow.Workflow {
	extract := func(in string) string { return "fields(" + in + ")" }
	return workflow.Workflow{
		Name: "document",
		Activities: map[string]workflow.Activity{
			"classify":        func(in string) string { return llm.Complete("classify " + in) },
			"extract-invoice": extract,
			"extract-receipt": extract,
			"review-handoff":  func(in string) string { return "review(" + in + ")" },
		},
		Body: func(ctx *workflow.WorkflowContext, doc string) string {
			var label string
			if inActivity {
				label = ctx.ExecuteActivity("classify", doc)
			} else {
				label = llm.Complete("classify " + doc) // the mistake: an LLM call in the workflow body
			}
			fields := ctx.ExecuteActivity("extract-"+label, doc)
			return ctx.ExecuteActivity("review-handoff", fields)
		},
	}
}

func newLLM() *workflow.SampledLLM {
	return &workflow.SampledLLM{Answers: []string{"invoice", "receipt"}}
}

func TestReplayOfActivityIsDeterministic(t *testing.T) {
	llm := newLLM()
	wf := classifyThenExtract(llm, true)
	run, err := workflow.Advance(wf, workflow.Start("acme:d1"), -1)
	if err != nil || !run.Done || run.Executed != 3 || llm.Calls != 1 {
		t.Fatalf("first execution: %d activities, %d LLM calls, done %v, %v; want 3, 1, done", run.Executed, llm.Calls, run.Done, err)
	}
	h := run.History
	for i := 0; i < 3; i++ { // any number of replays, by any worker
		ctx, err := workflow.ReplayWorkflow(wf, h)
		if err != nil {
			t.Fatalf("replay %d: %v", i+1, err)
		}
		if ctx.Executed != 0 {
			t.Fatalf("replay executed %d activities, want 0", ctx.Executed)
		}
	}
	if llm.Calls != 1 {
		t.Fatalf("replays called the LLM: %d calls, want 1", llm.Calls)
	}
}

func TestReplayOfLLMInBodyIsRejected(t *testing.T) {
	llm := newLLM()
	wf := classifyThenExtract(llm, false)
	h := runWhole(t, wf, "acme:d1")
	_, err := workflow.ReplayWorkflow(wf, h)
	if !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("replay: got %v, want ErrNondeterministic", err)
	}
	var nd *workflow.NondeterminismError
	if !errors.As(err, &nd) {
		t.Fatalf("replay error %T is not a *NondeterminismError", err)
	}
	if nd.Event.ID != 2 || nd.Event.Name != "extract-invoice" || nd.Got.Name != "extract-receipt" {
		t.Fatalf("first mismatch: history %v, generated %v; want event 2 extract-invoice vs extract-receipt", nd.Event, nd.Got)
	}
	if !strings.Contains(err.Error(), "2 ActivityTaskScheduled extract-invoice(acme:d1)") {
		t.Fatalf("error does not name the event: %v", err)
	}
}

func TestReplayChecksResultAndLength(t *testing.T) {
	wf := classifyThenExtract(newLLM(), true)
	h := runWhole(t, wf, "acme:d1")

	changed := append([]workflow.HistoryEvent(nil), h...)
	changed[len(changed)-1].Result = "something else"
	if _, err := workflow.ReplayWorkflow(wf, changed); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("different recorded result: got %v, want ErrNondeterministic", err)
	}
	longer := append(append([]workflow.HistoryEvent(nil), h...), workflow.HistoryEvent{ID: len(h) + 1, Kind: workflow.ActivityScheduled, Name: "x"})
	if _, err := workflow.ReplayWorkflow(wf, longer); err == nil || errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("events after the completion: got %v, want a plain error (no execution records one)", err)
	}
	// A running execution's history replays up to its end, as Temporal's
	// replayer accepts one: the code did nothing nondeterministic.
	if ctx, err := workflow.ReplayWorkflow(wf, h[:3]); err != nil || ctx.Executed != 0 {
		t.Fatalf("history of a running execution: %v (%d executed), want a clean replay", err, ctx.Executed)
	}
	// One that ends on an activity scheduled and never completed (no
	// task of this engine records one without the other) is refused there.
	_, err := workflow.ReplayWorkflow(wf, h[:2])
	if !errors.Is(err, workflow.ErrNondeterministic) || !strings.Contains(err.Error(), "history event no more events, replay generated ActivityTaskCompleted classify") {
		t.Fatalf("history ending on a scheduled activity: got %v", err)
	}
	changedInput := append([]workflow.HistoryEvent(nil), h...)
	changedInput[1].Input = "acme:d2"
	if _, err := workflow.ReplayWorkflow(wf, changedInput); !errors.Is(err, workflow.ErrNondeterministic) ||
		!strings.Contains(err.Error(), "history event 2 ActivityTaskScheduled classify(acme:d2), replay generated ActivityTaskScheduled classify(acme:d1)") {
		t.Fatalf("a recorded input the code does not generate: got %v", err)
	}
	if _, err := workflow.ReplayWorkflow(wf, h[1:]); err == nil || errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("history with no start: got %v, want a plain error", err)
	}
	if _, err := workflow.ReplayWorkflow(wf, nil); err == nil || errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("empty history: got %v, want a plain error", err)
	}
}

func TestSampledLLMVaries(t *testing.T) {
	llm := newLLM()
	a, b, c := llm.Complete("p"), llm.Complete("p"), llm.Complete("p")
	if a == b || a != c || llm.Calls != 3 {
		t.Fatalf("answers %q %q %q after %d calls", a, b, c, llm.Calls)
	}
}

func ExampleReplayWorkflow() {
	llm := &workflow.SampledLLM{Answers: []string{"invoice", "receipt"}}
	wf := workflow.Workflow{
		Name:       "document",
		Activities: map[string]workflow.Activity{"extract-invoice": strings.ToUpper, "extract-receipt": strings.ToUpper},
		Body: func(ctx *workflow.WorkflowContext, doc string) string {
			label := llm.Complete("classify " + doc) // not in an activity
			return ctx.ExecuteActivity("extract-"+label, doc)
		},
	}
	st, _ := workflow.Advance(wf, workflow.Start("d1"), -1)
	h := st.History
	for _, e := range h {
		fmt.Println(e)
	}
	_, err := workflow.ReplayWorkflow(wf, h)
	fmt.Println(err)
	// Output:
	// 1 WorkflowExecutionStarted input=d1
	// 2 ActivityTaskScheduled extract-invoice(d1)
	// 3 ActivityTaskCompleted extract-invoice → D1
	// 4 WorkflowExecutionCompleted result=D1
	// nondeterministic workflow: history event 2 ActivityTaskScheduled extract-invoice(d1), replay generated ActivityTaskScheduled extract-receipt(d1)
}

// TestAdvanceTaskByTask runs seed 000's workflow one activity per
// workflow task, as workers taking the execution over one after another
// do: each task replays what is recorded (no activity runs again) and
// executes one more; the history it builds is the one a single run records.
func TestAdvanceTaskByTask(t *testing.T) {
	llm := newLLM()
	wf := classifyThenExtract(llm, true)
	h := workflow.Start("acme:d1")
	for task := 1; ; task++ {
		if st, err := workflow.Advance(wf, h, 0); err != nil || st.Executed != 0 || len(st.History) != len(h) {
			t.Fatalf("task %d with no budget: %d executed, %d events (had %d), %v", task, st.Executed, len(st.History), len(h), err)
		}
		st, err := workflow.Advance(wf, h, 1)
		if err != nil {
			t.Fatalf("task %d: %v", task, err)
		}
		if st.Replayed != len(h) {
			t.Fatalf("task %d replayed %d events of %d", task, st.Replayed, len(h))
		}
		if st.Done {
			// the last activity's task also records the completion
			if st.Executed != 1 || len(st.History) != len(h)+3 || st.History[len(h)+2].Kind != workflow.WorkflowCompleted {
				t.Fatalf("completing task: %d executed, history %v", st.Executed, st.History[len(h):])
			}
			h = st.History
			break
		}
		if st.Executed != 1 || len(st.History) != len(h)+2 {
			t.Fatalf("task %d executed %d activities, recorded %d events; want 1 and 2", task, st.Executed, len(st.History)-len(h))
		}
		h = st.History
	}
	if llm.Calls != 1 {
		t.Fatalf("the classifier was called %d times, want 1 (replays read its answer)", llm.Calls)
	}
	want := runWhole(t, classifyThenExtract(newLLM(), true), "acme:d1")
	if fmt.Sprint(h) != fmt.Sprint(want) {
		t.Fatalf("task by task:\n%v\none run:\n%v", h, want)
	}
	if _, err := workflow.ReplayWorkflow(wf, h); err != nil {
		t.Fatalf("replay of the whole history: %v", err)
	}
	if st, err := workflow.Advance(wf, h, 1); err != nil || !st.Done || st.Executed != 0 || len(st.History) != len(h) {
		t.Fatalf("a task on a completed history: %+v, %v", st, err)
	}
}

func TestAdvanceRejects(t *testing.T) {
	wf := classifyThenExtract(newLLM(), true)
	h := runWhole(t, wf, "acme:d1")
	changed := append([]workflow.HistoryEvent(nil), h[:4]...)
	changed[3].Name = "extract-other"
	if _, err := workflow.Advance(wf, changed, 1); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("partial history the code does not match: got %v, want ErrNondeterministic", err)
	}
	longer := append(append([]workflow.HistoryEvent(nil), h...), workflow.HistoryEvent{ID: len(h) + 1, Kind: workflow.ActivityScheduled, Name: "x"})
	if _, err := workflow.Advance(wf, longer, 1); err == nil || errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("events past the completion: got %v, want a plain error", err)
	}
	if _, err := workflow.Advance(wf, nil, 1); err == nil || errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("empty history: got %v, want a plain error", err)
	}
	llm := newLLM()
	inBody := classifyThenExtract(llm, false)
	st, err := workflow.Advance(inBody, workflow.Start("acme:d1"), 1)
	if err != nil || st.Executed != 1 {
		t.Fatalf("first task of the LLM-in-body workflow: %+v, %v", st, err)
	}
	if _, err := workflow.Advance(inBody, st.History, 1); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("takeover of the LLM-in-body workflow: got %v, want ErrNondeterministic", err)
	}
}

// runWhole runs wf on input to its end in one workflow task.
func runWhole(t *testing.T, wf workflow.Workflow, input string) []workflow.HistoryEvent {
	t.Helper()
	st, err := workflow.Advance(wf, workflow.Start(input), -1)
	if err != nil || !st.Done {
		t.Fatalf("run of %s on %s: done %v, %v", wf.Name, input, st.Done, err)
	}
	return st.History
}

func TestHistoryPrints(t *testing.T) {
	for _, c := range []struct {
		e    workflow.HistoryEvent
		want string
	}{
		{workflow.HistoryEvent{ID: 1, Kind: workflow.WorkflowStarted, Input: "d1"}, "1 WorkflowExecutionStarted input=d1"},
		{workflow.HistoryEvent{ID: 2, Kind: workflow.ActivityScheduled, Name: "classify", Input: "d1"}, "2 ActivityTaskScheduled classify(d1)"},
		{workflow.HistoryEvent{ID: 3, Kind: workflow.ActivityCompleted, Name: "classify", Result: "invoice"}, "3 ActivityTaskCompleted classify → invoice"},
		{workflow.HistoryEvent{ID: 4, Kind: workflow.WorkflowCompleted, Result: "ok"}, "4 WorkflowExecutionCompleted result=ok"},
		{workflow.HistoryEvent{ID: 5, Kind: 9}, "5 HistoryKindInvalid"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%#v prints %q, want %q", c.e, got, c.want)
		}
	}
}

func TestUnknownActivityAndForeignPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		body func(*workflow.WorkflowContext, string) string
	}{
		{"unknown activity", func(ctx *workflow.WorkflowContext, in string) string { return ctx.ExecuteActivity("nope", in) }},
		{"body panics", func(*workflow.WorkflowContext, string) string { panic("boom") }},
	} {
		name, body := c.name, c.body
		func() {
			defer func() {
				if p := recover(); p == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			_, _ = workflow.Advance(workflow.Workflow{Name: "w", Body: body}, workflow.Start("x"), 1)
			t.Errorf("%s: Advance returned", name)
		}()
	}
}

// TestTryExecuteActivityStops checks the non-unwinding form: it says
// false where ExecuteActivity would unwind the body (a suspension, a
// mismatch), the task ends the same, and a command issued after a stop
// unwinds the body, running nothing.
func TestTryExecuteActivityStops(t *testing.T) {
	ran := 0
	act := func(in string) string { ran++; return in + "!" }
	var afterStop bool // the body goes on after a false
	body := func(ctx *workflow.WorkflowContext, in string) string {
		for _, name := range []string{"a", "b"} {
			out, ok := ctx.TryExecuteActivity(name, in)
			if !ok {
				if afterStop {
					ctx.TryExecuteActivity("b", in)
					t.Error("a command after a stop returned")
				}
				return "ignored"
			}
			in = out
		}
		return in
	}
	wf := workflow.Workflow{Name: "w", Body: body, Activities: map[string]workflow.Activity{"a": act, "b": act}}
	for _, afterStop = range []bool{false, true} {
		ran = 0
		st, err := workflow.Advance(wf, workflow.Start("x"), 1)
		if err != nil || st.Done || st.Executed != 1 || ran != 1 || len(st.History) != 3 {
			t.Fatalf("after stop %v: a task with budget 1: %+v, %v, %d run; want suspended after one activity", afterStop, st, err, ran)
		}
		st, err = workflow.Advance(wf, st.History, -1)
		if err != nil || !st.Done || st.History[len(st.History)-1].Result != "x!!" {
			t.Fatalf("after stop %v: the task to the end: %+v, %v", afterStop, st, err)
		}
		changed := append([]workflow.HistoryEvent(nil), st.History...)
		changed[1].Input = "y"
		_, err = workflow.ReplayWorkflow(wf, changed)
		if !errors.Is(err, workflow.ErrNondeterministic) || !strings.Contains(err.Error(), "history event 2 ActivityTaskScheduled a(y), replay generated ActivityTaskScheduled a(x)") {
			t.Fatalf("after stop %v: a replay of a changed input: %v", afterStop, err)
		}
		if ran != 2 {
			t.Fatalf("after stop %v: %d activities run, want 2 (replays run none)", afterStop, ran)
		}
	}
}
