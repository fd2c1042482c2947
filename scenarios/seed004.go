package scenarios

import (
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// The scenarios of seed 004 (week 43): async request-reply and the SQLite
// lab.

func asyncRequestReply() Scenario {
	return Scenario{
		Name: "async-request-reply",
		Title: Text{
			PtBR: "Async request-reply: o id só volta depois do enqueue durável, e o status nunca cruza tenants",
			En:   "Async request-reply: the id comes back only after the durable enqueue, and status never crosses tenants",
		},
		Claim: Text{
			PtBR: "Um fluxo assíncrono pode retornar 202 com jobId e um endpoint de status, mas esse retorno só deve ocorrer após a aceitação durável: \"recebido no processo\" e \"registrado para recuperação\" são eventos diferentes. O endpoint de status informa resultado ou erro sanitizado, sem revelar jobs de outra identidade.",
			En:   "An asynchronous flow may return 202 with a jobId and a status endpoint, but only after the durable accept: \"received by the process\" and \"recorded for recovery\" are different events. The status endpoint returns a result or a sanitized error, without revealing jobs of another identity.",
		},
		Story: Text{
			PtBR: "Seis documentos de dois tenants. A API cai em after_accept_before_enqueue no segundo pedido; o cliente não recebeu resposta, tenta de novo com o mesmo documento (a mesma chave) e recebe um único job. Clientes consultam o status do próprio job e, de vez em quando, um id de outro tenant, que a API responde como inexistente. Na variante reply-before-enqueue a API devolve o id antes de gravar: a queda deixa o cliente com um jobId que nunca existiu. Na variante status-leaks-tenant o status responde qualquer id, de qualquer tenant.",
			En:   "Six documents from two tenants. The API dies at after_accept_before_enqueue on the second request; the client got no answer, tries again with the same document (the same key) and gets a single job. Clients query their own job's status and, now and then, an id of another tenant, which the API answers as not found. In the reply-before-enqueue variant the API hands out the id before writing: the crash leaves the client holding a jobId that never existed. In the status-leaks-tenant variant the status endpoint answers any id, for any tenant.",
		},
		Limits: Text{
			PtBR: "Aqui todo cliente consulta o status do próprio job e de um id qualquer, em momentos sorteados; se o id sorteado é de outro tenant depende da semente. O modelo não tem autenticação: o tenant de quem pergunta é dado, não verificado.",
			En:   "Here every client asks the status of its own job and of an arbitrary id, at drawn moments; whether that id belongs to another tenant depends on the seed. The model has no authentication: the asking tenant is given, not verified.",
		},
		Sources: []Source{{Seed: Seed004,
			Section: Text{PtBR: "queues, workers e o contrato de um async job", En: "queues, workers and the contract of an async job"},
			Quote:   "Um fluxo assíncrono pode retornar 202 com jobId e um endpoint de status, mas esse retorno só deve ocorrer após a aceitação durável conforme o contrato.",
		}},
		Seed:   1,
		Config: with(base(6, 2, 2, "crash after_accept_before_enqueue nth=2"), func(c *sim.Config) { c.ProbeStatus = true }),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				events(Text{PtBR: "a API caiu entre o aceite e o enqueue", En: "the API crashed between accept and enqueue"},
					match{kind: model.EvCrash}, 1, 1),
				events(Text{PtBR: "um job por documento, apesar da nova tentativa do cliente", En: "one job per document, despite the client's retry"},
					match{kind: model.EvEnqueue, ok: 1}, 6, 6),
				events(Text{PtBR: "consultas a jobs de outro tenant respondidas como inexistentes", En: "queries about another tenant's jobs answered as not found"},
					match{kind: model.EvStatus, code: model.CodeNotFound}, 1, -1),
				metric(Text{PtBR: "os seis jobs terminam", En: "all six jobs succeed"},
					func(m *sim.Metrics) int64 { return m.Succeeded }, 6),
			}},
			{Variant: "reply-before-enqueue",
				Says:   Text{PtBR: "a API responde com o id antes do enqueue durável", En: "the API replies with the id before the durable enqueue"},
				Checks: []Check{violates(invariants.NothingLost)}},
			{Variant: "status-leaks-tenant",
				Says:   Text{PtBR: "o status responde por qualquer id, de qualquer tenant", En: "status answers for any id, whichever tenant asks"},
				Checks: []Check{violates(invariants.TenantIsolation)}},
		},
	}
}

func sqliteLab() Scenario {
	return Scenario{
		Name: "sqlite-lab",
		Title: Text{
			PtBR: "O laboratório SQLite da semana 43: j1 duas vezes dá um ticket, j2 inválido termina dead",
			En:   "Week 43's SQLite lab: j1 twice gives one ticket, the invalid j2 ends dead",
		},
		Claim: Text{
			PtBR: "No laboratório, uma transação registra o ticket e o estado final do job no mesmo banco. Jobs inválidos entram em dead, e um job já concluído pode ser chamado de novo sem criar outro ticket. Como conferir: reexecução após reinício mantém um ticket; falha dentro da transação não deixa efeito parcial; erro permanente não entra em retry infinito.",
			En:   "In the lab, one transaction records the ticket and the job's final state in the same database. Invalid jobs go dead, and a job already done can be called again without creating another ticket. How to check: re-running after a restart keeps one ticket; a failure inside the transaction leaves no partial effect; a permanent error never enters an infinite retry.",
		},
		Story: Text{
			PtBR: "O laboratório modelado: dois documentos de um tenant, um worker. O cliente envia j1 duas vezes (como rodar python jobs.py de novo) e recebe o mesmo job; o worker cai depois do commit e antes do ack, e o reinício reexecuta o job. j2 tem subject vazio: falha na validação (poison_schema). Na arquitetura correta j1 tem um ticket (um efeito de revisão), e j2 termina dead com um código, na primeira tentativa — depois o operador o reprocessa como versão 2, um job novo; o j2 original continua dead. Na variante no-idempotency o reinício cria um segundo ticket; na variante retry-permanent o j2 inválido é retentado até esgotar as tentativas.",
			En:   "The lab, modeled: two documents of one tenant, one worker. The client sends j1 twice (like running python jobs.py again) and gets the same job; the worker dies after the commit and before the ack, and the restart re-runs the job. j2 has an empty subject: it fails validation (poison_schema). In the correct design j1 has one ticket (one review effect), and j2 ends dead with a code, on its first attempt — the operator later reprocesses it as version 2, a new job; the original j2 stays dead. In the no-idempotency variant the restart creates a second ticket; in the retry-permanent variant the invalid j2 is retried until its attempts run out.",
		},
		Limits: Text{
			PtBR: "Os números deste relatório vêm do armazenamento durável do próprio simulador, que modela o SQLite. A arquitetura correta também roda contra um SQLite real (pacote sqlstore, evento a evento, comparado com o modelo): acrescente -backend sqlite ao comando de replay da variante correct em \"Como reproduzir\"; as variantes ingênuas existem só no modelo.",
			En:   "This report's numbers come from the simulator's own durable store, which models SQLite. The correct design also runs against a real SQLite (package sqlstore, event by event, compared with the model): add -backend sqlite to the correct arm's replay command under \"How to reproduce\"; the naive variants exist in the model only.",
		},
		Sources: []Source{{Seed: Seed004,
			Section: Text{PtBR: "job durável e efeito único no mesmo banco (jobs.py, jobs-lab.sqlite)", En: "durable job and single effect in the same database (jobs.py, jobs-lab.sqlite)"},
			Quote:   "A saída identifica j1 concluído e j2 em dead. Execute novamente: a unicidade de job_id preserva um ticket para j1.",
		}},
		Seed: 1,
		Config: with(base(2, 1, 1, "crash after_commit_before_ack nth=4 worker=*; poison doc=2"), func(c *sim.Config) {
			c.Resubmit = []int32{1}
		}),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				events(Text{PtBR: "o segundo envio de j1 devolveu o mesmo job", En: "j1's second submission returned the same job"},
					match{kind: model.EvEnqueue, code: model.CodeDeduped, job: 1}, 1, 1),
				ticketsOf(1, 1),
				dlqEntry(Text{PtBR: "j2 termina dead com poison_schema na primeira tentativa", En: "j2 ends dead with poison_schema on its first attempt"},
					2, model.CodePoisonSchema, 1),
				jobState(Text{PtBR: "o j2 original continua dead", En: "the original j2 stays dead"}, 2, model.Dead),
			}},
			{Variant: "no-idempotency",
				Says:   Text{PtBR: "sem unicidade: o commit não consulta a chave", En: "no uniqueness: the commit never looks the key up"},
				Checks: []Check{violates(invariants.ExactlyOnce)}},
			{Variant: "retry-permanent",
				Says:   Text{PtBR: "o erro de validação é retentado como transitório", En: "the validation error is retried as transient"},
				Checks: []Check{violates(invariants.BoundedRetries)}},
		},
	}
}

// ticketsOf holds when job id has want review effects (seed 004's tickets).
func ticketsOf(id model.JobID, want int64) Check {
	return events(Text{PtBR: "j1 tem um ticket (um efeito de revisão)", En: "j1 has one ticket (one review effect)"},
		match{kind: model.EvApply, ok: 1, job: id, stage: model.StageReview, hasStage: true}, want, want)
}
