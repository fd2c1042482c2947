package scenarios

import (
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/sim"
)

var catalogue = []Scenario{
	{
		Name:   "opening-incident",
		Source: "seed 000, opening incident and crash-recovery.test.mjs",
		Title: Text{
			PtBR: "Queda depois do commit, antes do ack: duas extrações, uma revisão",
			En:   "Crash after commit, before ack: two extractions, one review",
		},
		Story: Text{
			PtBR: "O worker termina a extração, grava o resultado no outbox e cai antes do ack. A fila reentrega o job; a extração roda de novo (at-least-once), mas o commit deduplica pela chave e o operador vê uma única revisão.",
			En:   "The worker finishes extraction, commits the result to the outbox and dies before the ack. The queue redelivers the job; extraction runs again (at-least-once), but the commit dedupes on the key and the operator sees a single review.",
		},
		Seed:   1,
		Config: base(1, 1, 1, "crash after_commit_before_ack nth=2 worker=*"),
		Arms: []Arm{
			{Variant: "correct", Checks: []Check{
				noViolation(),
				metric(Text{PtBR: "a extração rodou duas vezes", En: "extraction ran twice"},
					func(m *sim.Metrics) int64 { return m.Extractions }, 2),
				metric(Text{PtBR: "um efeito por estágio (quatro)", En: "one effect per stage (four)"},
					func(m *sim.Metrics) int64 { return m.Effects }, 4),
			}},
			{Variant: "no-idempotency", Checks: []Check{violates(invariants.ExactlyOnce)}},
		},
	},
	{
		Name:   "zombie-worker",
		Source: "seed 000, queue.mjs (fencing token)",
		Title: Text{
			PtBR: "Worker zumbi: pausa além do lease, ack velho rejeitado",
			En:   "Zombie worker: pause past the lease, stale ack rejected",
		},
		Story: Text{
			PtBR: "Um worker pausa (GC, rede) depois de extrair, por mais tempo que o lease. A fila redistribui o job com um novo fencing token; quando o zumbi acorda, seu ack com o token antigo é rejeitado e não muda nada.",
			En:   "A worker pauses (GC, network) after extracting, for longer than its lease. The queue redistributes the job under a new fencing token; when the zombie wakes, its ack with the old token is rejected and changes nothing.",
		},
		Seed:   1,
		Config: base(1, 2, 1, "pause after_extract nth=1 worker=* for=1m"),
		Arms: []Arm{
			{Variant: "correct", Checks: []Check{
				noViolation(),
				{Says: Text{PtBR: "o token velho foi rejeitado", En: "the stale fence was rejected"},
					Test: func(r *sim.Result) error { return atLeast(r.Metrics.StaleFences, 1) }},
			}},
			{Variant: "no-fencing", Checks: []Check{violates(invariants.Fencing)}},
		},
	},
	{
		Name:   "infinite-retry",
		Source: "seed 000, failure 1",
		Title: Text{
			PtBR: "Falha transitória persistente: três tentativas e DLQ, nunca uma quarta",
			En:   "Persistent transient failure: three attempts then DLQ, never a fourth",
		},
		Story: Text{
			PtBR: "A extração falha de forma transitória em toda tentativa. A política tem exatamente três saídas e só tenta de novo enquanto attempt < maxAttempts: três tentativas, depois DLQ com max_attempts_exceeded.",
			En:   "Extraction fails transiently on every attempt. The policy has exactly three outcomes and retries only while attempt < maxAttempts: three attempts, then the DLQ with max_attempts_exceeded.",
		},
		Seed:   1,
		Config: base(1, 1, 1, "transient doc=1 attempt=*"),
		Arms: []Arm{
			{Variant: "correct", Checks: []Check{
				noViolation(),
				{Says: Text{PtBR: "exatamente três tentativas antes da DLQ", En: "exactly three attempts before the DLQ"},
					Test: func(r *sim.Result) error { return firstDocAttempts(r, 3) }},
			}},
			{Variant: "unbounded-retry", Checks: []Check{violates(invariants.BoundedRetries)}},
		},
	},
	{
		Name:   "cross-tenant",
		Source: "seed 000, failure 4",
		Title: Text{
			PtBR: "Dois tenants, mesmo documentId: chaves e resultados nunca colidem",
			En:   "Two tenants, same document id: keys and results never collide",
		},
		Story: Text{
			PtBR: "Dois tenants enviam documentos com o mesmo documentId e a mesma versão. Com o tenant dentro da chave, cada um tem seu resultado; com a chave só do documento, o segundo tenant recebe o resultado (ou o conflito) do primeiro.",
			En:   "Two tenants submit documents with the same document id and version. With the tenant inside the key each gets its own result; with a document-only key, the second tenant gets the first one's result (or its conflict).",
		},
		Seed:   1,
		Config: base(2, 2, 2, ""),
		Arms: []Arm{
			{Variant: "correct", Checks: []Check{noViolation()}},
			{Variant: "key-without-tenant", Checks: []Check{violates(invariants.TenantIsolation)}},
		},
	},
	{
		Name:   "dual-write",
		Source: "seed 000, failure 3 (naiveDualWrite)",
		Title: Text{
			PtBR: "Dual write sem outbox: o banco tem a chave, o broker não tem nada",
			En:   "Dual write without an outbox: the database has the key, the broker has nothing",
		},
		Story: Text{
			PtBR: "O worker grava o resultado no banco e cai antes de publicar no broker. Sem outbox, nada durável lembra que um evento era devido; com o outbox, o relay publica depois da queda.",
			En:   "The worker writes the result to the database and dies before publishing to the broker. Without an outbox nothing durable remembers that an event is owed; with the outbox, the relay publishes after the crash.",
		},
		Seed:   1,
		Config: base(1, 1, 1, "crash after_db_write_before_publish nth=1 worker=*; crash after_commit_before_ack nth=1 worker=*"),
		Arms: []Arm{
			{Variant: "correct", Checks: []Check{noViolation(),
				metric(Text{PtBR: "um efeito por estágio (quatro)", En: "one effect per stage (four)"},
					func(m *sim.Metrics) int64 { return m.Effects }, 4)}},
			{Variant: "dual-write", Checks: []Check{violates(invariants.NothingLost)}},
		},
	},
}

func atLeast(got, want int64) error {
	if got < want {
		return errorf("got %d, want at least %d", got, want)
	}
	return nil
}

func firstDocAttempts(r *sim.Result, want int32) error {
	if len(r.Metrics.Docs) == 0 {
		return errorf("no job ran")
	}
	if got := r.Metrics.Docs[0].Attempts; got != want {
		return errorf("job j1 had %d attempts, want %d", got, want)
	}
	return nil
}
