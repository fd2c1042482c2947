package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

func TestDLQHygiene(t *testing.T) {
	env := model.Envelope{
		Job: 1, CorrelationID: key(1), Tenant: "acme", OriginalQueue: "pipeline",
		AgentID: "extractor", AgentVersion: "1.4.0", PromptVersion: "p7", ModelName: "model-sim",
		Attempts: 1, Reason: model.CodePoisonSchema, SchemaPaths: []string{"$.fields.total"}, PayloadRef: 42, ErrorRef: 43,
	}
	dlq := func(change func(e *model.Envelope)) Final {
		e := env
		change(&e)
		return Final{DLQ: []model.Envelope{e}}
	}
	audit := func(operator string) Final {
		return Final{Audit: []model.AuditEntry{{Action: "redrive", OldJob: 1, NewJob: 1, Operator: operator, Tenant: "acme"}}}
	}
	text := func(s string) model.Event {
		return model.Event{Kind: model.EvFault, Actor: w0, Job: 1, Text: s}
	}
	emptySecret := Config{Model: testCfg.Model, Secrets: []string{"", "never said"}}
	deadPoison := one(enqueue(1), lease(1, 1, 1), dlqWrite(1, model.CodePoisonSchema), dead(1, 1, model.CodePoisonSchema))
	runTable(t, DLQHygiene, []fixture{
		{name: "codes and hashes only", history: deadPoison, final: Final{DLQ: []model.Envelope{env}, Audit: audit("op").Audit}},
		{name: "reason that is not a DLQ code",
			history: one(enqueue(1), lease(1, 1, 1), dlqWrite(1, model.CodeTransient)),
			final:   dlq(func(e *model.Envelope) { e.Reason = model.CodeTransient }),
			want: []want{
				{1, []uint64{3}, `j1 dead-lettered with reason "transient_error", not a DLQ reason code`},
				{1, []uint64{3}, `DLQ entry of j1 has reason "transient_error", not a DLQ reason code`},
			}},
		{name: "raw error kept in the envelope",
			history: deadPoison, final: dlq(func(e *model.Envelope) { e.RawError = testCfg.Secrets[1] }),
			want: []want{{1, []uint64{3}, "DLQ entry of j1 keeps the raw error text"}}},
		{name: "personal data in a schema path",
			history: deadPoison, final: dlq(func(e *model.Envelope) { e.SchemaPaths = []string{"$.cpf[123.456.789-00]"} }),
			want: []want{{1, []uint64{3}, "DLQ entry of j1: SchemaPaths[0] holds a CPF number"}}},
		{name: "document text in an event",
			history: one(text("parse failed: " + testCfg.Secrets[0])),
			want:    []want{{1, []uint64{1}, "fault event text holds document text or raw error (secret 1)"}}},
		{name: "CPF number in an event", history: one(text("cpf=987.654.321-00")),
			want: []want{{1, []uint64{1}, "fault event text holds a CPF number"}}},
		{name: "e-mail address in an event", history: one(text("to ana.silva@example.com.br")),
			want: []want{{1, []uint64{1}, "fault event text holds an e-mail address"}}},
		{name: "an empty secret matches nothing", cfg: &emptySecret, history: one(text("ambiguous-commit"))},
		{name: "secrets named by their position in the configuration", cfg: &emptySecret, history: one(text("he never said")),
			want: []want{{1, []uint64{1}, "fault event text holds document text or raw error (secret 2)"}}},
		{name: "labels that only look like personal data", history: one(text("state=open phase=drained n=123.456.789 a@b @example.org"))},
		{name: "e-mail address as the auditing operator", final: audit("ana@example.com"),
			want: []want{{1, nil, "audit entry of j1: Operator holds an e-mail address"}}},
		{name: "e-mail address in a key", history: one(enqueueAs(1, "acme", "acme:ana@example.com:v1")),
			want: []want{{1, []uint64{1}, "j1 key holds an e-mail address"}}},
	})
}
