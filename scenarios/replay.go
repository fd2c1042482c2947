package scenarios

import (
	"errors"
	"strconv"
	"strings"

	"github.com/durasim/durasim/workflow"
)

// llmInReplay is seed 000's failure 2: not a simulation of the queue but
// an experiment on the modeled durable workflow (workflow.Advance from
// workflow.Start, and workflow.ReplayWorkflow).
func llmInReplay() Scenario {
	return Scenario{
		Name: "llm-in-replay",
		Title: Text{
			PtBR: "LLM dentro de replay determinístico: no corpo do workflow é rejeitado, numa activity reexecuta limpo",
			En:   "An LLM inside deterministic replay: in the workflow body it is rejected, in an activity it replays cleanly",
		},
		Claim: Text{
			PtBR: "Um workflow durável (como no Temporal) retoma via Replay: reconstrói o estado a partir do Event History gravado, comparando os comandos gerados de novo com o que já foi registrado. Isso só funciona se o código do workflow for determinístico; uma chamada de LLM, cuja resposta pode variar entre execuções, precisa viver dentro de uma Activity, que o replay pula em vez de reexecutar. O capítulo documenta essa falha como risco de design, sem reproduzi-la.",
			En:   "A durable workflow (as in Temporal) resumes by Replay: it rebuilds its state from the recorded Event History, comparing the commands it generates again with those already recorded. That only works if the workflow code is deterministic; an LLM call, whose answer may vary between executions, must live inside an Activity, which replay skips instead of re-running. The chapter documents this failure as a design risk, without reproducing it.",
		},
		Story: Text{
			PtBR: "O workflow classify → extract → review-handoff roda num modelo pequeno de motor durável (workflow/workflow.go): a primeira execução grava o histórico; depois, como um worker que assume a execução após uma queda, o replay reexecuta o código contra esse histórico. O LLM modelado responde \"invoice\" na primeira chamada e \"receipt\" na seguinte, como um modelo amostrado com temperatura. Com a classificação dentro de uma activity, o replay lê a resposta do histórico, não chama o LLM e é aceito. Com a chamada direto no corpo do workflow, o replay pergunta de novo, recebe outra resposta, agenda extract-receipt onde o histórico tem extract-invoice e é rejeitado como não determinístico no evento 2.",
			En:   "The workflow classify → extract → review-handoff runs on a small model of a durable engine (workflow/workflow.go): the first execution records the history; then, like a worker taking the execution over after a crash, the replay re-runs the code against that history. The modeled LLM answers \"invoice\" on its first call and \"receipt\" on the next, like a model sampled with temperature. With the classification inside an activity, the replay reads the answer from the history, does not call the LLM and is accepted. With the call straight in the workflow body, the replay asks again, gets another answer, schedules extract-receipt where the history has extract-invoice and is rejected as nondeterministic at event 2.",
		},
		Limits: Text{
			PtBR: "É um modelo do contrato de replay, não o Temporal: não há cluster, task queue, timers nem versionamento de workflow. Ele mostra o mecanismo do erro de não determinismo, não o comportamento de um motor real.",
			En:   "This models the replay contract, not Temporal itself: there is no cluster, task queue, timers or workflow versioning. It shows the mechanism of the nondeterminism error, not a real engine's behaviour.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "fila local vs. workflow durável; falha 2: LLM dentro de replay determinístico sem activity", En: "local queue vs. durable workflow; failure 2: an LLM inside deterministic replay without an activity"},
			Quote:   "Qualquer coisa não determinística - uma chamada de rede, um Date.now(), e sobretudo uma chamada de LLM, cuja resposta pode variar entre execuções mesmo com o mesmo prompt - precisa viver dentro de uma Activity, que o Temporal trata como uma caixa preta re-executável e faz o replay pular, não reexecutar.",
		}},
		Charts: []Chart{ChartReplay},
		Arms: []Arm{
			{Variant: "correct", Label: "llm-in-activity",
				Says:   Text{PtBR: "a chamada ao LLM é uma activity", En: "the LLM call is an activity"},
				Custom: func() *Custom { return replayExperiment(true) },
				Checks: []Check{
					customCheck(Text{PtBR: "o replay é aceito", En: "the replay is accepted"}, func(c *Custom) error { return c.Err }),
					fact(Text{PtBR: "o replay não chama o LLM", En: "the replay does not call the LLM"}, factReplayCalls, 0),
				}},
			{Variant: "llm-in-workflow-body", Label: "llm-in-workflow-body",
				Says:   Text{PtBR: "a chamada ao LLM está no corpo do workflow", En: "the LLM call is in the workflow body"},
				Custom: func() *Custom { return replayExperiment(false) },
				Checks: []Check{
					customCheck(Text{PtBR: "o replay é rejeitado como não determinístico", En: "the replay is rejected as nondeterministic"}, func(c *Custom) error {
						if !errors.Is(c.Err, workflow.ErrNondeterministic) {
							return errorf("replay ended with %v", c.Err)
						}
						return nil
					}),
					fact(Text{PtBR: "o primeiro evento divergente é o 2 (o extract agendado)", En: "the first mismatching event is event 2 (the scheduled extract)"}, factMismatch, 2),
				}},
		},
	}
}

// Facts of the replay experiment, by index in Custom.Facts.
const (
	factRunCalls = iota
	factReplayCalls
	factHistory
	factMismatch
)

// fact holds when the custom arm's fact i equals want.
func fact(says Text, i int, want int64) Check {
	return customCheck(says, func(c *Custom) error {
		if got := c.Facts[i].Value; got != want {
			return errorf("%s: %d, want %d", c.Facts[i].Says.En, got, want)
		}
		return nil
	})
}

// documentWorkflow is seed 000's workflow; inActivity says where the LLM
// classification runs.
func documentWorkflow(llm *workflow.SampledLLM, inActivity bool) workflow.Workflow {
	fields := func(in string) string { return "fields:" + in }
	return workflow.Workflow{
		Name: "document",
		Activities: map[string]workflow.Activity{
			"classify":        func(in string) string { return llm.Complete("classify " + in) },
			"extract-invoice": fields,
			"extract-receipt": fields,
			"review-handoff":  func(in string) string { return "review:" + strings.TrimPrefix(in, "fields:") },
		},
		Body: func(ctx *workflow.WorkflowContext, doc string) string {
			var label string
			if inActivity {
				label = ctx.ExecuteActivity("classify", doc)
			} else {
				label = llm.Complete("classify " + doc)
			}
			extracted := ctx.ExecuteActivity("extract-"+label, doc)
			return ctx.ExecuteActivity("review-handoff", extracted)
		},
	}
}

// replayExperiment runs the workflow once, then replays its history.
func replayExperiment(inActivity bool) *Custom {
	llm := &workflow.SampledLLM{Answers: []string{"invoice", "receipt"}}
	wf := documentWorkflow(llm, inActivity)
	first, _ := workflow.Advance(wf, workflow.Start("acme:d1:v1"), -1) // the whole run in one task
	h := first.History
	runCalls := int64(llm.Calls)
	_, err := workflow.ReplayWorkflow(wf, h)
	c := &Custom{Err: err}
	mismatch := int64(0)
	var nd *workflow.NondeterminismError
	if errors.As(err, &nd) {
		mismatch = int64(nd.Event.ID)
	}
	c.Facts = []Fact{
		factRunCalls:    {Text{PtBR: "chamadas ao LLM na primeira execução", En: "LLM calls in the first execution"}, runCalls},
		factReplayCalls: {Text{PtBR: "chamadas ao LLM no replay", En: "LLM calls during the replay"}, int64(llm.Calls) - runCalls},
		factHistory:     {Text{PtBR: "eventos no histórico", En: "events in the history"}, int64(len(h))},
		factMismatch:    {Text{PtBR: "primeiro evento divergente (0: nenhum)", En: "first mismatching event (0: none)"}, mismatch},
	}
	c.Transcript, c.Messages = replayTranscript(h, nd, inActivity)
	c.Verdict = replayVerdict(err, nd)
	return c
}

// replayVerdict says in each language how the replay ended; the engine's
// own error text is English, so the Portuguese verdict is built from the
// error's fields instead.
func replayVerdict(err error, nd *workflow.NondeterminismError) Text {
	switch {
	case err == nil:
		return Text{PtBR: "replay aceito: os comandos batem com o histórico", En: "replay accepted: the commands match the history"}
	case nd == nil:
		return Text{PtBR: "replay interrompido por um erro do motor (em inglês): " + err.Error(), En: "replay failed: " + err.Error()}
	}
	got := nd.Got.Kind.String() + " " + commandName(nd.Got)
	if nd.Event.ID == 0 {
		return Text{
			PtBR: "replay rejeitado como não determinístico: o histórico acabou, mas o replay gerou " + got,
			En:   "replay rejected as nondeterministic: the history has no more events, yet the replay generated " + got,
		}
	}
	return Text{
		PtBR: "replay rejeitado como não determinístico: o evento " + strconv.Itoa(nd.Event.ID) + " do histórico é " + nd.Event.Kind.String() + " " + commandName(nd.Event) + ", mas o replay gerou " + got,
		En:   "replay rejected as nondeterministic: history event " + strconv.Itoa(nd.Event.ID) + " is " + nd.Event.Kind.String() + " " + commandName(nd.Event) + ", but the replay generated " + got,
	}
}

// replayTranscript lists the recorded history and what the replay did
// with it, as lines and as sequence-diagram messages.
func replayTranscript(h []workflow.HistoryEvent, nd *workflow.NondeterminismError, inActivity bool) ([]string, []Message) {
	var lines []string
	var msgs []Message
	same := func(s string) Text { return Text{PtBR: s, En: s} }
	for _, e := range h {
		lines = append(lines, "history "+e.String())
		msgs = append(msgs, historyMessage(e, same))
		if e.Kind == workflow.WorkflowStarted && !inActivity {
			msgs = append(msgs, Message{"workflow", "llm", Text{PtBR: "classify, no corpo do workflow: invoice", En: "classify, in the workflow body: invoice"}})
		}
	}
	msgs = append(msgs, Message{"worker", "worker", Text{PtBR: "queda: outro worker reexecuta o histórico (replay)", En: "crash: another worker replays the history"}})
	if !inActivity {
		msgs = append(msgs, Message{"workflow", "llm", Text{PtBR: "classify de novo, no corpo: receipt", En: "classify again, in the body: receipt"}})
	}
	for _, e := range h {
		if nd != nil && e.ID == nd.Event.ID {
			lines = append(lines, "replay  "+nd.Error())
			msgs = append(msgs,
				Message{"workflow", "history", Text{PtBR: "gera " + nd.Got.Kind.String() + " " + commandName(nd.Got), En: "generates " + nd.Got.Kind.String() + " " + commandName(nd.Got)}},
				Message{"history", "workflow", Text{PtBR: "não determinístico: o evento é " + e.String(), En: "nondeterministic: the event is " + e.String()}})
			return lines, msgs
		}
		if e.Kind == workflow.ActivityCompleted {
			lines = append(lines, "replay  "+e.Name+" result taken from event "+strconv.Itoa(e.ID)+", not executed")
			msgs = append(msgs, Message{"history", "workflow", Text{PtBR: e.Name + ": resultado lido do histórico (não executa)", En: e.Name + ": result read from the history (not executed)"}})
		}
	}
	lines = append(lines, "replay  accepted")
	msgs = append(msgs, Message{"history", "workflow", Text{PtBR: "replay aceito", En: "replay accepted"}})
	return lines, msgs
}

func historyMessage(e workflow.HistoryEvent, same func(string) Text) Message {
	if e.Kind == workflow.ActivityCompleted {
		return Message{"activity", "history", same(e.String())}
	}
	return Message{"workflow", "history", same(e.String())}
}

func commandName(e workflow.HistoryEvent) string {
	if e.Kind == workflow.WorkflowCompleted {
		return e.Result
	}
	return e.Name + "(" + e.Input + ")"
}
