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
	h, run := workflow.RunWorkflow(wf, "acme:d1")
	if run.Executed != 3 || llm.Calls != 1 {
		t.Fatalf("first execution: %d activities, %d LLM calls; want 3 and 1", run.Executed, llm.Calls)
	}
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
	h, _ := workflow.RunWorkflow(wf, "acme:d1")
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
	h, _ := workflow.RunWorkflow(wf, "acme:d1")

	changed := append([]workflow.HistoryEvent(nil), h...)
	changed[len(changed)-1].Result = "something else"
	if _, err := workflow.ReplayWorkflow(wf, changed); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("different recorded result: got %v, want ErrNondeterministic", err)
	}
	longer := append(append([]workflow.HistoryEvent(nil), h...), workflow.HistoryEvent{ID: len(h) + 1, Kind: workflow.ActivityScheduled, Name: "x"})
	if _, err := workflow.ReplayWorkflow(wf, longer); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("history longer than the code: got %v, want ErrNondeterministic", err)
	}
	if _, err := workflow.ReplayWorkflow(wf, h[:3]); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("history shorter than the code: got %v, want ErrNondeterministic", err)
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
	h, _ := workflow.RunWorkflow(wf, "d1")
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
	h := []workflow.HistoryEvent{{ID: 1, Kind: workflow.WorkflowStarted, Input: "acme:d1"}}
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
	want, _ := workflow.RunWorkflow(classifyThenExtract(newLLM(), true), "acme:d1")
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
	h, _ := workflow.RunWorkflow(wf, "acme:d1")
	changed := append([]workflow.HistoryEvent(nil), h[:4]...)
	changed[3].Name = "extract-other"
	if _, err := workflow.Advance(wf, changed, 1); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("partial history the code does not match: got %v, want ErrNondeterministic", err)
	}
	longer := append(append([]workflow.HistoryEvent(nil), h...), workflow.HistoryEvent{ID: len(h) + 1, Kind: workflow.ActivityScheduled, Name: "x"})
	if _, err := workflow.Advance(wf, longer, 1); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("events past the completion: got %v, want ErrNondeterministic", err)
	}
	if _, err := workflow.Advance(wf, nil, 1); err == nil || errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("empty history: got %v, want a plain error", err)
	}
	llm := newLLM()
	inBody := classifyThenExtract(llm, false)
	h2 := []workflow.HistoryEvent{{ID: 1, Kind: workflow.WorkflowStarted, Input: "acme:d1"}}
	st, err := workflow.Advance(inBody, h2, 1)
	if err != nil || st.Executed != 1 {
		t.Fatalf("first task of the LLM-in-body workflow: %+v, %v", st, err)
	}
	if _, err := workflow.Advance(inBody, st.History, 1); !errors.Is(err, workflow.ErrNondeterministic) {
		t.Fatalf("takeover of the LLM-in-body workflow: got %v, want ErrNondeterministic", err)
	}
}
