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
