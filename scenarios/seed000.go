package scenarios

import (
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// The scenarios of seed 000's chapter: the opening incident, the fencing
// token, the four failures, the relay, the deadline, the audited reprocess
// and the synthetic metrics.

var correctSays = Text{PtBR: "a arquitetura que o capítulo defende", En: "the design the chapter argues for"}

func fourEffects() Check {
	return metric(Text{PtBR: "um efeito por estágio (quatro)", En: "one effect per stage (four)"},
		func(m *sim.Metrics) int64 { return m.Effects }, 4)
}

func openingIncident() Scenario {
	return Scenario{
		Name: "opening-incident",
		Title: Text{
			PtBR: "Queda depois do commit, antes do ack: duas extrações, uma revisão",
			En:   "Crash after commit, before ack: two extractions, one review",
		},
		Claim: Text{
			PtBR: "Uma fila que reentrega garante só at-least-once: se o worker cai depois de gravar o resultado e antes do ack, o job volta e a extração roda de novo. Exactly-once fim a fim não existe de graça; o que existe é entrega at-least-once mais idempotência no efeito, e o commit no outbox é o único lugar que sabe que aquela chave já tem resultado.",
			En:   "A queue that redelivers only guarantees at-least-once: if the worker dies after committing its result and before the ack, the job comes back and extraction runs again. End-to-end exactly-once is not free; what exists is at-least-once delivery plus an idempotent effect, and the outbox commit is the only place that knows the key already has a result.",
		},
		Story: Text{
			PtBR: "Um documento, um worker. O worker extrai os campos, faz o commit do estágio extract no outbox e cai em after_commit_before_ack. O lease expira, o worker reiniciado pega o mesmo job (tentativa 2), retoma do checkpoint e extrai de novo. Na arquitetura correta o segundo commit volta com code=deduped: a extração rodou duas vezes, mas há um único evento por estágio e o operador vê uma revisão. Na variante no-idempotency o commit não consulta a chave, grava um segundo evento e o consumidor aplica o efeito duas vezes.",
			En:   "One document, one worker. The worker extracts the fields, commits the extract stage to the outbox and dies at after_commit_before_ack. The lease expires, the restarted worker leases the same job (attempt 2), resumes from the checkpoint and extracts again. In the correct design the second commit comes back with code=deduped: extraction ran twice, yet there is one event per stage and the operator sees one review. In the no-idempotency variant the commit never looks the key up, writes a second event and the consumer applies the effect twice.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "incidente de abertura; crash-recovery.test.mjs e o exercício intermediário", En: "opening incident; crash-recovery.test.mjs and the intermediate exercise"},
			Quote:   "Extração roda duas vezes (o worker não tem como saber que já tinha terminado antes de cair); o commit no outbox é o único lugar que sabe que aquela chave já tem resultado, então a segunda tentativa retorna o resultado existente em vez de criar um segundo evento. Uma revisão, não duas.",
		}},
		Seed:   1,
		Config: base(1, 1, 1, "crash after_commit_before_ack nth=2 worker=*"),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				metric(Text{PtBR: "a extração rodou duas vezes (at-least-once)", En: "extraction ran twice (at-least-once)"},
					func(m *sim.Metrics) int64 { return m.Extractions }, 2),
				events(Text{PtBR: "o segundo commit foi deduplicado pela chave", En: "the second commit was deduplicated by key"},
					match{kind: model.EvCommit, code: model.CodeDeduped, ok: 1}, 1, 1),
				appliedEffects(Text{PtBR: "uma revisão, não duas", En: "one review, not two"}, model.StageReview, 1),
				fourEffects(),
			}},
			{Variant: "no-idempotency",
				Says: Text{PtBR: "o commit não consulta a chave: cada tentativa cria um evento novo", En: "the commit never looks the key up: each attempt creates a new event"},
				Checks: []Check{
					violates(invariants.ExactlyOnce),
					metricAtLeast(Text{PtBR: "mais de um efeito por estágio", En: "more than one effect per stage"},
						func(m *sim.Metrics) int64 { return m.Effects }, 5),
				}},
		},
	}
}

func zombieWorker() Scenario {
	return Scenario{
		Name: "zombie-worker",
		Title: Text{
			PtBR: "Worker zumbi: pausa além do lease, ack com token velho rejeitado",
			En:   "Zombie worker: a pause past the lease, the stale ack rejected",
		},
		Claim: Text{
			PtBR: "Cada leaseNext() incrementa um fencing token, e ack, nack e heartbeat só aceitam o token do lease atual. Um worker zumbi — que acha que ainda tem o lease, mas ele já expirou e foi redistribuído — é rejeitado; sem isso, dois workers podem achar que são donos do mesmo job ao mesmo tempo.",
			En:   "Every leaseNext() increments a fencing token, and ack, nack and heartbeat accept only the current lease's token. A zombie worker — one that believes it still holds the lease although it expired and was redistributed — is rejected; without that, two workers can both believe they own the same job.",
		},
		Story: Text{
			PtBR: "Um documento, dois workers. O worker w0 pega o job (fence 1), termina o estágio ingest e pausa 40 s (uma pausa de GC ou de rede) antes de confirmar. O lease de 30 s expira e w1 pega o job com fence 2 — e também trava por 20 s logo depois, ainda dono de um lease válido. Quando o zumbi acorda, seu commit do ingest entra no outbox (o commit é idempotente pela chave), mas seu checkpoint com fence 1 volta stale_fence e não muda nada; w1 retoma e termina o job. Na variante no-fencing a fila aceita qualquer token: o zumbi avança o checkpoint e renova um lease que não é mais dele enquanto w1 ainda o detém.",
			En:   "One document, two workers. Worker w0 leases the job (fence 1), finishes the ingest stage and pauses for 40 s (a GC or network stall) before confirming. The 30 s lease expires and w1 leases the job with fence 2 — and stalls too, for 20 s, right after, still holding a valid lease. When the zombie wakes, its ingest commit goes into the outbox (commits are idempotent by key), but its checkpoint with fence 1 comes back stale_fence and changes nothing; w1 resumes and finishes the job. In the no-fencing variant the queue accepts any token: the zombie advances the checkpoint and renews a lease that is no longer its own while w1 still holds it.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "queue.mjs: lease, heartbeat e fencing token", En: "queue.mjs: lease, heartbeat and fencing token"},
			Quote:   "Se um worker \"zumbi\" (que achou que ainda estava com a lease, mas ela já expirou e foi redistribuída) tentar confirmar depois, a fila rejeita - sem isso, dois workers podem achar que são donos do mesmo job ao mesmo tempo.",
		}},
		Seed:   1,
		Config: base(1, 2, 1, "pause after_extract nth=1 worker=* for=40s; pause after_lease nth=2 worker=* for=20s"),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				metricAtLeast(Text{PtBR: "o token velho do zumbi foi rejeitado (stale_fence)", En: "the zombie's stale token was rejected (stale_fence)"},
					func(m *sim.Metrics) int64 { return m.StaleFences }, 1),
				fourEffects(),
			}},
			{Variant: "no-fencing",
				Says:   Text{PtBR: "ack, nack e heartbeat aceitam qualquer token", En: "ack, nack and heartbeat accept any token"},
				Checks: []Check{violates(invariants.Fencing)}},
		},
	}
}

func infiniteRetry() Scenario {
	return Scenario{
		Name: "infinite-retry",
		Title: Text{
			PtBR: "Falha transitória persistente: três tentativas e DLQ, nunca uma quarta",
			En:   "A persistent transient failure: three attempts, then the DLQ, never a fourth",
		},
		Claim: Text{
			PtBR: "Retry sem teto faz um job nunca sair da fila. retry-policy.mjs tem exatamente três saídas (retry, dead_letter e cancel), e retry só existe enquanto attempt < maxAttempts: sob falha transitória permanente, três tentativas e depois DLQ, nunca uma quarta.",
			En:   "A retry with no ceiling keeps a job in the queue forever. retry-policy.mjs has exactly three outcomes (retry, dead_letter e cancel), and retry exists only while attempt < maxAttempts: under a transient failure that never goes away, three attempts and then the DLQ, never a fourth.",
		},
		Story: Text{
			PtBR: "A extração do documento falha de forma transitória em toda tentativa enquanto as falhas duram. Na arquitetura correta: três tentativas com backoff, DLQ com max_attempts_exceeded, e nenhum lease para uma quarta tentativa. Depois que as falhas param (a fase de quiescência), o operador faz o redrive do job — a dependência foi consertada — e ele termina. Na variante unbounded-retry a falha transitória sempre merece mais uma tentativa: o job passa de maxAttempts.",
			En:   "The document's extraction fails transiently on every attempt while the faults last. In the correct design: three attempts with backoff, the DLQ with max_attempts_exceeded, and no lease for a fourth attempt. Once the faults stop (the quiescence phase), the operator redrives the job — the dependency was fixed — and it completes. In the unbounded-retry variant a transient failure is always worth one more try: the job goes past maxAttempts.",
		},
		Limits: Text{
			PtBR: "O orçamento de tokens por job (6.000, semana 43) é um terceiro limite: em algumas sementes um documento caro o esgota antes da terceira tentativa e vai para a DLQ com budget_exhausted — também correto, mas não o que este cenário mostra; por isso a semente fixa.",
			En:   "The per-job token budget (6,000, week 43) is a third limit: on some seeds a costly document spends it before the third attempt and goes to the DLQ with budget_exhausted — correct too, but not what this scenario shows; hence the fixed seed.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "falha 1: retry infinito", En: "failure 1: infinite retry"},
			Quote:   "O teste crash-recovery.test.mjs prova isso sob falha transitória permanente: três tentativas, depois DLQ, nunca uma quarta.",
		}},
		Seed:   1,
		Config: base(1, 1, 1, "transient doc=1 attempt=*"),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				dlqEntry(Text{PtBR: "DLQ com max_attempts_exceeded depois de exatamente três tentativas", En: "DLQ with max_attempts_exceeded after exactly three attempts"},
					1, model.CodeMaxAttemptsExceeded, 3),
				maxAttempt(Text{PtBR: "nenhum lease para uma quarta tentativa", En: "no lease for a fourth attempt"}, 3),
				jobState(Text{PtBR: "depois do redrive, o job termina", En: "after the redrive, the job succeeds"}, 1, model.Succeeded),
			}},
			{Variant: "unbounded-retry",
				Says:   Text{PtBR: "sem teto de tentativas para falhas transitórias", En: "no attempt ceiling for transient failures"},
				Checks: []Check{violates(invariants.BoundedRetries)}},
		},
	}
}

func dualWrite() Scenario {
	return Scenario{
		Name: "dual-write",
		Title: Text{
			PtBR: "Dual write sem outbox: o banco tem a chave, o broker não tem nada",
			En:   "Dual write without an outbox: the database has the key, the broker has nothing",
		},
		Claim: Text{
			PtBR: "Gravar no banco e publicar no broker como duas chamadas separadas, sem transação compartilhada, deixa uma janela: uma queda entre as duas deixa o resultado no banco e nenhum evento, e nada no sistema sabe que um evento deveria existir. O outbox grava resultado e evento juntos, e o relay publica depois, mesmo que o processo original já tenha morrido.",
			En:   "Writing to the database and publishing to the broker as two separate calls, with no shared transaction, leaves a window: a crash between them leaves the result in the database and no event, and nothing in the system knows an event should exist. The outbox writes result and event together, and the relay publishes later, even if the original process is gone.",
		},
		Story: Text{
			PtBR: "Um documento, um worker. A variante dual-write é o naiveDualWrite do capítulo: grava o resultado no banco, cruza after_db_write_before_publish e só então publica. A queda acontece exatamente ali; o worker reiniciado vê que o resultado existe, considera o estágio feito, e o evento nunca é publicado. Na arquitetura correta o commit grava resultado e evento no outbox; a queda em after_commit_before_ack não impede o relay de publicar, e o consumidor aplica os quatro efeitos.",
			En:   "One document, one worker. The dual-write variant is the chapter's naiveDualWrite: it writes the result to the database, crosses after_db_write_before_publish and only then publishes. The crash lands exactly there; the restarted worker sees the result exists, counts the stage as done, and the event is never published. In the correct design the commit writes result and event to the outbox; the crash at after_commit_before_ack does not stop the relay from publishing, and the consumer applies all four effects.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "falha 3: dual write banco/broker sem recuperação (naiveDualWrite)", En: "failure 3: database/broker dual write with no recovery (naiveDualWrite)"},
			Quote:   "O evento sumiu, e nada no sistema sabe que deveria existir um.",
		}, {Seed: Seed004,
			Section: Text{PtBR: "Redis Streams e frameworks de worker (outbox)", En: "Redis Streams and worker frameworks (outbox)"},
			Quote:   "Se publicar uma mensagem e gravar o job forem operações separadas, uma falha entre elas pode gerar job sem mensagem ou mensagem sem job.",
		}},
		Seed:   1,
		Config: base(1, 1, 1, "crash after_db_write_before_publish nth=1 worker=*; crash after_commit_before_ack nth=1 worker=*"),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				events(Text{PtBR: "o relay publicou os quatro eventos apesar da queda", En: "the relay published all four events despite the crash"},
					match{kind: model.EvPublish, ok: 1}, 4, -1),
				fourEffects(),
			}},
			{Variant: "dual-write",
				Says:   Text{PtBR: "resultado no banco e evento direto no broker, duas chamadas sem outbox", En: "result to the database and event straight to the broker, two calls with no outbox"},
				Checks: []Check{violates(invariants.NothingLost)}},
		},
	}
}

func crossTenant() Scenario {
	return Scenario{
		Name: "cross-tenant",
		Title: Text{
			PtBR: "Dois tenants, mesmo documentId: chaves e resultados nunca colidem",
			En:   "Two tenants, the same document id: keys and results never collide",
		},
		Claim: Text{
			PtBR: "A chave de idempotência é tenant, documento e versão da operação, nessa ordem, sempre. Um documentId que colide entre dois tenants nunca vira a mesma chave, porque o tenant está embutido na chave, não checado depois como uma regra separada que alguém pode esquecer de aplicar.",
			En:   "The idempotency key is tenant, document and operation version, in that order, always. A document id that collides between two tenants never becomes the same key, because the tenant is built into the key, not checked afterwards as a separate rule someone may forget to apply.",
		},
		Story: Text{
			PtBR: "Os tenants acme e globex enviam, cada um, o documento d1 na versão 1. Na arquitetura correta as chaves são acme:d1:v1 e globex:d1:v1: dois jobs, dois resultados e oito efeitos. Na variante key-without-tenant a chave é só d1:v1: o segundo envio cai na chave do primeiro e o globex recebe o job (ou o conflito de payload) do acme.",
			En:   "Tenants acme and globex each submit document d1 at version 1. In the correct design the keys are acme:d1:v1 and globex:d1:v1: two jobs, two results, eight effects. In the key-without-tenant variant the key is just d1:v1: the second submission lands on the first one's key and globex gets acme's job (or its payload conflict).",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "buildIdempotencyKey e a falha 4: idempotência global que mistura tenants", En: "buildIdempotencyKey and failure 4: global idempotency that mixes tenants"},
			Quote:   "O teste correspondente cria dois tenants com o mesmo documentId e a mesma operationVersion e prova que as chaves, e os resultados armazenados sob elas, nunca colidem.",
		}},
		Seed:   1,
		Config: base(2, 2, 2, ""),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				events(Text{PtBR: "dois jobs aceitos, um por tenant", En: "two jobs accepted, one per tenant"},
					match{kind: model.EvEnqueue, ok: 1}, 2, 2),
				metric(Text{PtBR: "oito efeitos: quatro estágios por tenant", En: "eight effects: four stages per tenant"},
					func(m *sim.Metrics) int64 { return m.Effects }, 8),
			}},
			{Variant: "key-without-tenant",
				Says:   Text{PtBR: "chave só com documento e versão (d1:v1)", En: "key from document and version only (d1:v1)"},
				Checks: []Check{violates(invariants.TenantIsolation)}},
		},
	}
}

func relayRepublish() Scenario {
	return Scenario{
		Name: "relay-republish",
		Title: Text{
			PtBR: "O relay cai entre publicar e marcar: o evento sai de novo e o consumidor absorve",
			En:   "The relay dies between publish and mark: the event goes out again and the consumer absorbs it",
		},
		Claim: Text{
			PtBR: "O relay lê a tabela de outbox, publica e depois marca a linha como publicada; uma queda entre os dois republica a linha. Por isso o consumidor guarda os eventIds já vistos, independente do estado do outbox: uma segunda entrega devolve { applied: false, reason: 'duplicate_event' } e o efeito continua um só.",
			En:   "The relay reads the outbox table, publishes and then marks the row published; a crash between the two republishes the row. That is why the consumer keeps the event ids it has seen, independently of the outbox: a second delivery returns { applied: false, reason: 'duplicate_event' } and the effect stays single.",
		},
		Story: Text{
			PtBR: "Um documento. O relay publica o evento do primeiro estágio e cai em relay_after_publish_before_mark, antes de marcar a linha. O relay reiniciado encontra a linha ainda pendente e publica de novo. Na arquitetura correta o consumidor reconhece o eventId e responde duplicate_event: quatro efeitos, um por estágio. Na variante consumer-no-dedupe o consumidor aplica toda entrega e o efeito do estágio ingest acontece duas vezes.",
			En:   "One document. The relay publishes the first stage's event and dies at relay_after_publish_before_mark, before marking the row. The restarted relay finds the row still pending and publishes it again. In the correct design the consumer recognises the event id and answers duplicate_event: four effects, one per stage. In the consumer-no-dedupe variant the consumer applies every delivery and the ingest stage's effect happens twice.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "exercício básico: deduplicar redelivery (createDedupingConsumer)", En: "basic exercise: dedupe redelivery (createDedupingConsumer)"},
			Quote:   "createDedupingConsumer() em examples/src/outbox.mjs guarda um Set de eventIds vistos, independente do estado do outbox - é isso que garante que mesmo uma republicação do relay (não só uma redelivery de fila) seja absorvida no ponto certo.",
		}},
		Seed:   1,
		Config: base(1, 1, 1, "crash relay_after_publish_before_mark nth=1"),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				events(Text{PtBR: "o evento foi publicado de novo depois da queda do relay", En: "the event was published again after the relay crash"},
					match{kind: model.EvPublish, ok: 1}, 5, -1),
				events(Text{PtBR: "o consumidor respondeu duplicate_event à republicação", En: "the consumer answered duplicate_event to the republished event"},
					match{kind: model.EvApply, code: model.CodeDuplicateEvent}, 1, -1),
				fourEffects(),
			}},
			{Variant: "consumer-no-dedupe",
				Says:   Text{PtBR: "o consumidor aplica toda entrega, sem registro de eventIds", En: "the consumer applies every delivery, with no ledger of event ids"},
				Checks: []Check{violates(invariants.ExactlyOnce)}},
		},
	}
}

func deadlineCancel() Scenario {
	return Scenario{
		Name: "deadline-cancel",
		Title: Text{
			PtBR: "O deadline passa enquanto o job espera: cancelado no lease, fora da DLQ e sem caminho de volta",
			En:   "The deadline passes while the job waits: cancelled at lease time, kept out of the DLQ, no way back",
		},
		Claim: Text{
			PtBR: "deadlineAt é um teto absoluto, independente de quantas tentativas restam. Um job cujo deadline já passou é cancelado no momento em que alguém tenta pegá-lo (leaseNext); cancelamento é um terceiro balde, separado da DLQ, e não existe caminho de reprocesso para um job cancelado.",
			En:   "deadlineAt is an absolute ceiling, whatever the attempts left. A job whose deadline has passed is cancelled the moment someone tries to lease it (leaseNext); cancellation is a third bucket, apart from the DLQ, and there is no reprocess path for a cancelled job.",
		},
		Story: Text{
			PtBR: "Um worker, dois documentos. O worker pega o primeiro e trava 20 s (sem perder o lease de 30 s); o segundo tem deadline de 5 s e fica esperando na fila. Quando o worker volta e chama leaseNext, o deadline do segundo já passou: ele é cancelado com deadline_exceeded, não vai para a DLQ, e as tentativas do operador de fazer redrive ou reprocesso dele são recusadas com cancelled_terminal. Na variante ignore-deadline a fila entrega o job mesmo assim, depois do deadline, e o cancelado pode até voltar.",
			En:   "One worker, two documents. The worker takes the first and stalls for 20 s (without losing its 30 s lease); the second has a 5 s deadline and waits in the queue. When the worker comes back and calls leaseNext, the second one's deadline has passed: it is cancelled with deadline_exceeded, does not go to the DLQ, and the operator's attempts to redrive or reprocess it are refused with cancelled_terminal. In the ignore-deadline variant the queue leases the job anyway, after its deadline, and a cancelled job can even come back.",
		},
		Limits: Text{
			PtBR: "Aqui o operador simulado tenta o proibido (redrive e reprocesso de um cancelado) a cada rodada; numa varredura comum ele só tenta de vez em quando, sorteado pela semente.",
			En:   "Here the simulated operator attempts the forbidden (redrive and reprocess of a cancelled job) every round; in an ordinary sweep it only tries now and then, as the seed draws it.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "os quatro relógios de um job; DLQ, quarentena e reprocesso auditável", En: "a job's four clocks; DLQ, quarantine and audited reprocess"},
			Quote:   "Cancelamento é um terceiro balde, separado da DLQ. Um job cujo deadlineAt já passou é cancelado no momento em que alguém tenta pegá-lo (leaseNext), e cancelamento não entra no mapa de DLQ - não existe caminho de reprocessFromDlq para um job cancelado.",
		}},
		Seed:   4,
		Config: with(base(2, 1, 1, "pause after_lease nth=1 worker=* for=20s; deadline doc=2 within=5s"), func(c *sim.Config) { c.TryCancelled = true }),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				events(Text{PtBR: "j2 foi cancelado no lease com deadline_exceeded", En: "j2 was cancelled at lease time with deadline_exceeded"},
					match{kind: model.EvCancelAtLease, code: model.CodeDeadlineExceeded, ok: 1, job: 2}, 1, 1),
				events(Text{PtBR: "j2 nunca entrou na DLQ", En: "j2 never entered the DLQ"},
					match{kind: model.EvDLQWrite, job: 2}, 0, 0),
				events(Text{PtBR: "o redrive de j2 pelo operador foi recusado (cancelled_terminal)", En: "the operator's redrive of j2 was refused (cancelled_terminal)"},
					match{kind: model.EvRedrive, code: model.CodeCancelledTerminal, job: 2}, 1, -1),
				events(Text{PtBR: "nenhum redrive de j2 foi aceito", En: "no redrive of j2 was accepted"},
					match{kind: model.EvRedrive, ok: 1, job: 2}, 0, 0),
				events(Text{PtBR: "nenhum reprocesso de j2 foi aceito", En: "no reprocess of j2 was accepted"},
					match{kind: model.EvReprocess, ok: 1, job: 2}, 0, 0),
				jobState(Text{PtBR: "j2 termina cancelado", En: "j2 ends cancelled"}, 2, model.Cancelled),
			}},
			{Variant: "ignore-deadline",
				Says:   Text{PtBR: "lease e retry ignoram deadlineAt; um cancelado pode voltar", En: "lease and retry ignore deadlineAt; a cancelled job can come back"},
				Checks: []Check{violates(invariants.BoundedRetries)}},
		},
	}
}

func reprocessAudited() Scenario {
	return Scenario{
		Name: "reprocess-audited",
		Title: Text{
			PtBR: "Reprocesso auditado: versão nova, entrada de auditoria e limite por tenant",
			En:   "Audited reprocess: a new version, an audit entry and a per-tenant limit",
		},
		Claim: Text{
			PtBR: "Reprocessar um job da DLQ é um comando, não uma retentativa automática: exige operatorId, cria um job novo com operationVersion + 1 (nunca ressuscita o job morto) e grava uma entrada de auditoria ligando o job antigo, o novo e quem decidiu. O capítulo registra a lacuna: não há limite de taxa por tenant no reprocesso — aqui há.",
			En:   "Reprocessing a DLQ job is a command, not an automatic retry: it needs an operatorId, creates a new job at operationVersion + 1 (it never resurrects the dead job) and writes an audit entry linking the old job, the new one and who decided. The chapter records the gap: there is no per-tenant rate limit on reprocess — here there is.",
		},
		Story: Text{
			PtBR: "Seis documentos de um mesmo tenant; cinco falham na validação de schema (poison) e vão para a DLQ. A cada 2 s o operador (op-ana) reprocessa o que encontra na quarentena. Na arquitetura correta cada reprocesso cria o job da versão 2 com uma entrada de auditoria, e o balde por tenant (3 por minuto) segura os pedidos excedentes com rate_limited até ele encher de novo; as versões novas terminam. Na variante reprocess-unaudited o job morto volta no mesmo lugar, sem operador, sem auditoria, sem versão nova e sem limite.",
			En:   "Six documents of one tenant; five fail schema validation (poison) and go to the DLQ. Every 2 s the operator (op-ana) reprocesses what is in quarantine. In the correct design each reprocess creates the version-2 job with an audit entry, and the per-tenant bucket (3 per minute) holds the excess requests with rate_limited until it refills; the new versions succeed. In the reprocess-unaudited variant the dead job comes back in place, with no operator, no audit entry, no new version and no limit.",
		},
		Limits: Text{
			PtBR: "Em algumas sementes documentos longos ocupam os dois workers até as falhas pararem, menos documentos são envenenados e o limite por tenant não chega a segurar pedidos.",
			En:   "On some seeds long documents keep both workers busy until the faults stop, fewer documents get poisoned and the per-tenant limit never has to hold a request.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "DLQ, quarentena e reprocesso auditável; custo, segurança e reversibilidade", En: "DLQ, quarantine and audited reprocess; cost, safety and reversibility"},
			Quote:   "não há limite de taxa por tenant no reprocesso de DLQ nesta implementação - um operador (ou uma automação de operador) mal configurado poderia reprocessar o mesmo documento morto repetidamente sem que o sistema o impeça.",
		}},
		Seed:   1,
		Config: base(6, 2, 1, "poison doc=1; poison doc=2; poison doc=3; poison doc=4; poison doc=5"),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				events(Text{PtBR: "cinco reprocessos aceitos, cada um com versão nova", En: "five reprocesses accepted, each with a new version"},
					match{kind: model.EvReprocess, ok: 1}, 5, 5),
				events(Text{PtBR: "o limite por tenant segurou pedidos (rate_limited)", En: "the per-tenant limit held requests back (rate_limited)"},
					match{kind: model.EvReprocess, code: model.CodeRateLimited}, 1, -1),
				metric(Text{PtBR: "os seis documentos terminam (cinco na versão 2)", En: "all six documents succeed (five at version 2)"},
					func(m *sim.Metrics) int64 { return m.Succeeded }, 6),
			}},
			{Variant: "reprocess-unaudited",
				Says:   Text{PtBR: "o reprocesso ressuscita o job morto, sem operador, auditoria, versão ou limite", En: "reprocess resurrects the dead job, with no operator, audit, version or limit"},
				Checks: []Check{violates(invariants.OperatorActions)}},
		},
	}
}

func syntheticMetrics() Scenario {
	return Scenario{
		Name: "synthetic-metrics",
		Title: Text{
			PtBR: "Métricas sintéticas de 12 documentos: espera na fila, inferência e espera por revisão separadas",
			En:   "Synthetic metrics for 12 documents: queue wait, inference and review wait kept apart",
		},
		Claim: Text{
			PtBR: "Métricas de fila separam tempo de espera, tempo de inferência e tempo de revisão humana — nunca um número único que os esconde. No ensaio do capítulo, 12 documentos sintéticos; a profundidade da fila, amostrada por tick, varia de 1 a 7, com pico no meio do lote.",
			En:   "Queue metrics keep waiting time, inference time and human review time apart — never a single number that hides them. In the chapter's run, 12 synthetic documents; the queue depth, sampled per tick, goes from 1 to 7, peaking mid-batch.",
		},
		Story: Text{
			PtBR: "Doze documentos de três tenants, sem falhas, com 4 workers e depois com 1. O mesmo documento tem a mesma inferência nos dois casos; o que muda é a espera na fila. Somar tudo num número só diria \"ficou mais lento\" sem dizer onde. Diferenças honestas em relação ao capítulo: lá a inferência é uma constante de 40 ms e a espera por revisão uma constante de 90 ms; aqui a inferência é a latência modelada de cada documento (segundos, como numa chamada de LLM de verdade) e a espera por revisão é o tempo entre o commit do estágio review e a entrada chegar ao operador (relay e broker), não o tempo de um revisor humano. A profundidade aqui conta os jobs vivos (pendentes, em lease ou aguardando retry) a cada tick de 100 ms.",
			En:   "Twelve documents from three tenants, no faults, with 4 workers and then with 1. The same document has the same inference time in both runs; what changes is the queue wait. Adding it all into one number would say \"it got slower\" without saying where. Honest differences from the chapter: there, inference is a fixed 40 ms constant and review wait a fixed 90 ms constant; here inference is each document's modeled latency (seconds, like a real LLM call) and review wait is the time from the review stage's commit until the entry reaches the operator (relay and broker), not a human reviewer's time. Depth here counts live jobs (pending, leased or waiting to retry) every 100 ms tick.",
		},
		Sources: []Source{{Seed: Seed000,
			Section: Text{PtBR: "o que os testes provam; examples/scripts/synthetic-metrics.mjs; checklist", En: "what the tests prove; examples/scripts/synthetic-metrics.mjs; checklist"},
			Quote:   "A profundidade da fila é amostrada por tick e varia de 1 a 7 no ensaio, com pico no meio do lote de doze documentos - evidência do formato da carga sintética, não uma capacidade de produção.",
		}},
		Seed:   1,
		Config: base(12, 4, 3, ""),
		Charts: []Chart{ChartDepth, ChartWaits},
		Arms: []Arm{
			{Variant: "correct", Label: "4 workers", Says: Text{PtBR: "quatro workers", En: "four workers"}, Checks: []Check{
				noViolation(),
				threeNumbers(),
				depthPeaksMidway(),
			}},
			{Variant: "correct", Label: "1 worker", Says: Text{PtBR: "um worker só: a mesma carga, mais espera", En: "a single worker: the same load, more waiting"},
				Tweak: func(c *sim.Config) { c.Workers = 1 },
				Checks: []Check{
					noViolation(),
					sameInference("4 workers"),
					compare(Text{PtBR: "a espera total na fila é bem maior (mais que o dobro)", En: "the total queue wait is much larger (more than double)"},
						"4 workers", totalQueueWait, false, 2, 1),
				}},
		},
	}
}
