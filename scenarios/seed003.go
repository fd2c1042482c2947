package scenarios

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// The scenarios of seed 003 (dead-letter queues and poison messages) and
// the DLQ recovery of seed 004.

// poisonPlan makes documents from..to poison (schema-invalid).
func poisonPlan(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "poison doc=%d\n", i)
	}
	return b.String()
}

// breakerOff makes the circuit breaker never open: it would need more
// outcomes than any run has.
func breakerOff(c *sim.Config) {
	c.Model.Breaker.Window, c.Model.Breaker.MinSamples, c.Model.Breaker.ThresholdPPM = 1<<20, 1<<20, 1_000_000
}

func poisonDLQ() Scenario {
	return Scenario{
		Name: "poison-dlq",
		Title: Text{
			PtBR: "Poison message: schema inválido vai para a DLQ na primeira tentativa, com código e envelope, sem texto cru",
			En:   "A poison message: an invalid schema goes to the DLQ on the first attempt, with a code and the envelope, and no raw text",
		},
		Claim: Text{
			PtBR: "Uma poison message falha de forma determinística em qualquer tentativa; erros permanentes (schema inválido, estouro de contexto e violação de FK/unique) vão para a DLQ no primeiro ciclo, sem gastar tentativas. O motivo gravado é um código classificado, nunca a mensagem crua do erro: a mensagem de um parser pode conter um trecho do documento.",
			En:   "A poison message fails deterministically on every attempt; permanent errors (invalid schema, context overflow, FK/unique violations) go to the DLQ on the first cycle, without spending attempts. The recorded reason is a classified code, never the raw error message: a parser's message may quote the document.",
		},
		Story: Text{
			PtBR: "Três documentos; o segundo falha na validação de schema (poison_schema), e a mensagem do parser cita o texto da fatura, com CPF e e-mail. Na arquitetura correta ele vai para a DLQ na primeira tentativa, com o envelope de diagnóstico (versões de agente e prompt, tokens, tentativas e caminhos do schema) guardando documento e erro só por hash; o operador depois reprocessa como versão 2. A variante raw-error-in-dlq guarda a mensagem crua no envelope e vaza o documento para a DLQ; a variante retry-permanent trata o erro como transitório e o retenta em vez de mandá-lo para a DLQ. Os números abaixo da tabela mostram o que isso custa, e o que não custa.",
			En:   "Three documents; the second fails schema validation (poison_schema), and the parser's message quotes the invoice text, CPF and e-mail included. In the correct design it goes to the DLQ on the first attempt, with the diagnostic envelope (agent and prompt versions, tokens, attempts, schema paths) keeping document and error by hash only; the operator later reprocesses it as version 2. The raw-error-in-dlq variant keeps the raw message in the envelope and leaks the document into the DLQ; the retry-permanent variant treats the error as transient and retries it instead of dead-lettering it. The numbers under the table show what that costs, and what it does not.",
		},
		Sources: []Source{{Seed: Seed003,
			Section: Text{PtBR: "o que são poison messages; como implementar a segregação de falhas", En: "what poison messages are; how to segregate failures"},
			Quote:   "Erros permanentes são desviados para a DLQ no primeiro ciclo, sem gastar tentativas desnecessárias.",
		}, {Seed: Seed000,
			Section: Text{PtBR: "DLQ, quarentena e reprocesso auditável", En: "DLQ, quarantine and audited reprocess"},
			Quote:   "O motivo gravado junto do job na DLQ é um código classificado (permanent_error, max_attempts_exceeded), nunca a mensagem crua do erro - a mensagem de um parser pode conter um trecho do documento, e um painel de operação de fila não é lugar para isso vazar.",
		}},
		Seed:   1,
		Config: base(3, 2, 1, "poison doc=2"),
		Charts: []Chart{ChartDepth},
		Claims: []Claim{
			{Arm: "retry-permanent", Other: "correct", Figure: FigAttempts, Rel: More,
				Why: Text{PtBR: "o erro permanente é retentado em vez de ir para a DLQ na primeira tentativa", En: "the permanent error is retried instead of going to the DLQ on the first attempt"}},
			{Arm: "retry-permanent", Other: "correct", Figure: FigDLQTokens, Rel: Equal,
				Why: Text{PtBR: "as retentativas refazem só o estágio validate, que não chama o LLM, então a extração de j2 é paga uma vez só", En: "the retries re-run only the validate stage, which makes no LLM call, so j2's extraction is paid once"}},
			{Arm: "retry-permanent", Other: "correct", Figure: FigTokens, Rel: Less,
				Why: Text{PtBR: "a arquitetura correta paga também a extração da versão 2 de j2, o reprocesso do operador; na retry-permanent o j2 esgota as tentativas, vai para a DLQ com max_attempts_exceeded e o redrive do operador (mesma chave) o retoma do checkpoint depois que as falhas param, sem extrair de novo", En: "the correct design also pays the extraction of j2's version 2, the operator's reprocess; in retry-permanent j2 runs out of attempts, goes to the DLQ with max_attempts_exceeded, and the operator's redrive (same key) resumes it from its checkpoint once the faults stop, with no new extraction"}},
		},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				dlqEntry(Text{PtBR: "j2 na DLQ com poison_schema na primeira tentativa", En: "j2 in the DLQ with poison_schema on the first attempt"},
					2, model.CodePoisonSchema, 1),
				events(Text{PtBR: "nenhum retry do erro permanente", En: "no retry of the permanent error"},
					match{kind: model.EvRetry, ok: 1, job: 2}, 0, 0),
				events(Text{PtBR: "o operador reprocessou j2 como versão 2", En: "the operator reprocessed j2 as version 2"},
					match{kind: model.EvReprocess, ok: 1, job: 2}, 1, 1),
			}},
			{Variant: "raw-error-in-dlq",
				Says:   Text{PtBR: "o envelope da DLQ guarda a mensagem crua do erro", En: "the DLQ envelope keeps the raw error message"},
				Checks: []Check{violates(invariants.DLQHygiene)}},
			{Variant: "retry-permanent",
				Says:   Text{PtBR: "todo erro é tratado como transitório", En: "every error is treated as transient"},
				Checks: []Check{violates(invariants.BoundedRetries)}},
		},
	}
}

func redriveKeys() Scenario {
	return Scenario{
		Name: "redrive-keys",
		Title: Text{
			PtBR: "Redrive com a mesma chave não refaz nada; com chave nova duplica os efeitos anteriores",
			En:   "A redrive with the same key redoes nothing; with a fresh key it duplicates the earlier effects",
		},
		Claim: Text{
			PtBR: "Redrive devolve um item para processamento depois de corrigir a causa. O documento da semana 43 pede para preservar a operação lógica e a proteção de idempotência — criar uma chave nova sem necessidade pode duplicar um efeito anterior. O executeBulkRedrive do texto sobre DLQs faz justamente isso: reenfileira com idempotencyKey = correlationId:redrive:N.",
			En:   "A redrive sends an item back for processing after its cause was fixed. Week 43 asks to preserve the logical operation and its idempotency protection — creating a new key without need can duplicate an earlier effect. The DLQ article's executeBulkRedrive does exactly that: it re-enqueues with idempotencyKey = correlationId:redrive:N.",
		},
		Story: Text{
			PtBR: "Um documento. O estágio ingest faz commit e seu efeito é aplicado; depois a extração falha de forma transitória em toda tentativa (a dependência está fora do ar). Três tentativas, DLQ com max_attempts_exceeded. Quando a dependência volta (fim das falhas), o operador faz o redrive. Na arquitetura correta o job volta com a mesma chave e retoma do checkpoint: o ingest não é refeito e cada estágio tem um efeito. Na variante redrive-fresh-key a chave vira acme:d1:v1:redrive:1, o job recomeça do primeiro estágio e o efeito do ingest é aplicado de novo — a cobrança em dobro do texto.",
			En:   "One document. The ingest stage commits and its effect is applied; then extraction fails transiently on every attempt (the dependency is down). Three attempts, DLQ with max_attempts_exceeded. When the dependency is back (the faults end), the operator redrives it. In the correct design the job comes back with the same key and resumes from its checkpoint: ingest is not redone and each stage has one effect. In the redrive-fresh-key variant the key becomes acme:d1:v1:redrive:1, the job starts over from the first stage and the ingest effect is applied again — the article's double charge.",
		},
		Limits: Text{
			PtBR: "Como em infinite-retry, em algumas sementes o orçamento de tokens termina antes da terceira tentativa (budget_exhausted); o redrive e a chave se comportam igual.",
			En:   "As in infinite-retry, on some seeds the token budget runs out before the third attempt (budget_exhausted); the redrive and its key behave the same.",
		},
		Sources: []Source{{Seed: Seed004,
			Section: Text{PtBR: "dead-letter patterns e recuperação supervisionada", En: "dead-letter patterns and supervised recovery"},
			Quote:   "Preserve sua operação lógica e a proteção de idempotência; criar uma chave nova sem necessidade pode duplicar um efeito anterior.",
		}, {Seed: Seed003,
			Section: Text{PtBR: "redrive determinístico; executeBulkRedrive", En: "deterministic redrive; executeBulkRedrive"},
			Quote:   "Se o agente executou uma cobrança financeira no passo 1 e falhou no passo 2, o redrive não pode cobrar o cliente novamente.",
		}},
		Seed:   1,
		Config: base(1, 1, 1, "transient doc=1 attempt=*"),
		Charts: []Chart{ChartDepth},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				dlqEntry(Text{PtBR: "DLQ com max_attempts_exceeded depois de três tentativas", En: "DLQ with max_attempts_exceeded after three attempts"},
					1, model.CodeMaxAttemptsExceeded, 3),
				events(Text{PtBR: "o operador fez o redrive", En: "the operator redrove the job"},
					match{kind: model.EvRedrive, ok: 1, job: 1}, 1, -1),
				appliedEffects(Text{PtBR: "o efeito do ingest aconteceu uma vez só", En: "the ingest effect happened once"}, model.StageIngest, 1),
				fourEffects(),
			}},
			{Variant: "redrive-fresh-key",
				Says: Text{PtBR: "o redrive usa uma chave nova (correlationId:redrive:N)", En: "the redrive uses a fresh key (correlationId:redrive:N)"},
				Checks: []Check{
					violates(invariants.ExactlyOnce),
					result(Text{PtBR: "o efeito do ingest foi aplicado de novo", En: "the ingest effect was applied again"}, func(r *sim.Result) error {
						return atLeast(applied(r, model.StageIngest), 2)
					}),
				}},
		},
	}
}

func retryStorm() Scenario {
	const burstEnd = 3 // seconds: the end of the 429 burst
	strategy := func(s model.Strategy) func(c *sim.Config) {
		return func(c *sim.Config) { c.Model.Retry.Strategy = s }
	}
	return Scenario{
		Name: "retry-storm",
		Title: Text{
			PtBR: "Tempestade de retries contra um provedor limitado: atraso fixo, exponencial e full jitter",
			En:   "A retry storm against a rate-limited provider: fixed delay, exponential and full jitter",
		},
		Claim: Text{
			PtBR: "Retries lineares ou desordenados sobrecarregam os provedores de inferência: quando dezenas de workers reexecutam em paralelo, esgotam as cotas de taxa. O full jitter, T = random_uniform(0, min(T_max, T_base × 2^r)), impede que workers concorrentes sincronizem suas chamadas contra a API.",
			En:   "Linear or uncoordinated retries overload inference providers: when dozens of workers retry in parallel they exhaust the rate quotas. Full jitter, T = random_uniform(0, min(T_max, T_base × 2^r)), keeps concurrent workers from synchronizing their calls against the API.",
		},
		Story: Text{
			PtBR: "Cem documentos chegam juntos para cem workers; o provedor modelado aceita 50 chamadas por segundo e, nos primeiros 3 s, responde 429 a tudo (uma rajada). Cada job tem até 6 tentativas, base 200 ms e teto 20 s. O disjuntor está desligado nas três variantes para isolar o efeito do backoff (ele é o assunto do cenário circuit-breaker). Atraso fixo: as seis tentativas, a 200 ms uma da outra, caem todas dentro da rajada; os jobs vão para a DLQ e só terminam depois do redrive do operador. Exponencial sem jitter: os jobs que falharam juntos voltam juntos, em ondas (veja o gráfico de chamadas). Full jitter: as retentativas se espalham por vários segundos. O que os números dizem, com uma nota honesta sobre 429 e tokens, está logo abaixo da tabela de resultados.",
			En:   "A hundred documents arrive together for a hundred workers; the modeled provider accepts 50 calls per second and, for the first 3 s, answers 429 to everything (a burst). Each job has up to 6 attempts, base 200 ms and cap 20 s. The circuit breaker is off in all three arms to isolate the effect of backoff (it is the circuit-breaker scenario's subject). Fixed delay: the six attempts, 200 ms apart, all fall inside the burst; the jobs go to the DLQ and finish only after the operator's redrive. Plain exponential: jobs that failed together come back together, in waves (see the calls chart). Full jitter: the retries spread over several seconds. What the numbers say, with an honest note on 429s and tokens, is right under the outcome table.",
		},
		Sources: []Source{{Seed: Seed003,
			Section: Text{PtBR: "por que retries ingênuos provocam desastres de custo e latência", En: "why naive retries cause cost and latency disasters"},
			Quote:   "A variação estocástica impede que workers concorrentes sincronizem suas chamadas contra a API.",
		}, {Seed: Seed004,
			Section: Text{PtBR: "retries com classificação, espera e limite", En: "retries with classification, wait and limit"},
			Quote:   "Exponential backoff aumenta o intervalo entre tentativas; jitter evita que muitos workers retomem juntos.",
		}},
		Seed: 1,
		Config: with(base(100, 100, 4, "429 at=0ms for=3s"), func(c *sim.Config) {
			c.ArrivalGap = model.Millisecond
			c.Model.MaxAttempts = 6
			breakerOff(c)
		}),
		Charts: []Chart{ChartCalls, ChartDepth},
		Claims: []Claim{
			{Arm: "fixed", Other: "full-jitter", Figure: FigDLQEntries, Rel: More,
				Why: Text{PtBR: "com atraso fixo de 200 ms as seis tentativas caem dentro da rajada de 429", En: "with a fixed 200 ms delay the six attempts fall inside the 429 burst"}},
			{Arm: "fixed", Other: "full-jitter", Figure: FigRateLimited, Rel: More,
				Why: Text{PtBR: "toda tentativa dentro da rajada recebe 429", En: "every attempt inside the burst gets a 429"}},
			{Arm: "fixed", Other: "full-jitter", Figure: FigLastSettled, Rel: More,
				Why: Text{PtBR: "os jobs só terminam depois que o operador os tira da DLQ com redrive, num ritmo limitado", En: "the jobs finish only once the operator redrives them out of the DLQ, at a limited rate"}},
			{Arm: "exponential", Other: "full-jitter", Figure: FigExtractions, Rel: Less,
				Why: Text{PtBR: "as esperas do exponencial puro são em média duas vezes maiores, então menos tentativas caem dentro da rajada; o que o jitter compra é não sincronizar (gráfico de chamadas), não menos chamadas", En: "plain exponential waits twice as long on average, so fewer attempts fall inside the burst; what jitter buys is not synchronizing (the calls chart), not fewer calls"}},
			{Arm: "exponential", Other: "full-jitter", Figure: FigTokens, Rel: Equal,
				Why: Text{PtBR: "neste modelo um 429 não gasta tokens, e cada variante paga uma extração bem-sucedida por documento", En: "in this model a 429 costs no tokens, and every arm pays for one successful extraction per document"}},
		},
		Arms: []Arm{
			{Variant: "correct", Label: "full-jitter", Says: Text{PtBR: "backoff exponencial com full jitter", En: "exponential backoff with full jitter"},
				Tweak: strategy(model.FullJitter),
				Checks: []Check{
					noViolation(),
					drained(),
				}},
			{Variant: "correct", Label: "exponential", Says: Text{PtBR: "backoff exponencial sem jitter", En: "exponential backoff without jitter"},
				Tweak: strategy(model.Exponential),
				Checks: []Check{
					noViolation(),
					compare(Text{PtBR: "as retentativas voltam em ondas: o pico de chamadas/s depois da rajada passa do dobro do full jitter", En: "retries come back in waves: the peak calls/s after the burst is more than twice full jitter's"},
						"full-jitter", func(r *sim.Result) int64 { return peakFrom(r.Metrics.CallsPerSecond, burstEnd) }, false, 2, 1),
				}},
			{Variant: "correct", Label: "fixed", Says: Text{PtBR: "atraso fixo (linear)", En: "fixed (linear) delay"},
				Tweak: strategy(model.Fixed),
				Checks: []Check{
					noViolation(),
					compare(Text{PtBR: "mais respostas 429 que o full jitter", En: "more 429 answers than full jitter"},
						"full-jitter", func(r *sim.Result) int64 { return r.Metrics.RateLimited }, false, 1, 1),
					metricAtLeast(Text{PtBR: "quase todo job esgota as tentativas dentro da rajada (DLQ)", En: "nearly every job burns its attempts inside the burst (DLQ)"},
						func(m *sim.Metrics) int64 { return m.Dead }, 90),
					compare(Text{PtBR: "drena bem depois do full jitter (mais que o dobro do tempo)", En: "drains well after full jitter (more than twice the time)"},
						"full-jitter", func(r *sim.Result) int64 { return r.Metrics.Drained }, false, 2, 1),
				}},
		},
	}
}

// peakFrom is the largest value of a per-second series from second from on.
func peakFrom(series []int32, from int) int64 {
	peak := int32(0)
	for i := from; i < len(series); i++ {
		peak = max(peak, series[i])
	}
	return int64(peak)
}

func circuitBreaker() Scenario {
	return Scenario{
		Name: "circuit-breaker",
		Title: Text{
			PtBR: "Uma versão ruim de prompt: o disjuntor abre, testa com canários e fecha depois da correção",
			En:   "A bad prompt version: the breaker opens, probes with canaries and closes after the fix",
		},
		Claim: Text{
			PtBR: "Circuit breakers integrados à fila monitoram a proporção de mensagens venenosas e interrompem o consumo antes do colapso. Se uma versão defeituosa de prompt for publicada, o disjuntor desarma (Aberto); depois do hotfix entra em Meio-Aberto e processa mensagens canário; se elas passam, o consumo normal volta (Fechado), se falham, ele reabre.",
			En:   "Circuit breakers built into the queue watch the share of poison messages and stop consumption before collapse. If a broken prompt version ships, the breaker trips (Open); after the hotfix it goes Half-Open and processes canary messages; if they pass, normal consumption resumes (Closed), if they fail, it opens again.",
		},
		Story: Text{
			PtBR: "Quarenta documentos de dois tenants, dez workers. Enquanto durar a versão ruim de prompt, todo documento falha na validação (poison_schema); a correção entra quando as falhas param (a fase de quiescência). Com o disjuntor (janela de 20, abre com 50% de falhas, espera 30 s e 2 canários), a fila para de entregar jobs, testa com canários que falham e reabrem, e fecha quando os canários passam depois da correção: os documentos que esperaram não queimam tokens nem vão para a DLQ. Sem disjuntor, cada documento que chega gasta uma extração inteira e vai para a DLQ, à espera de reprocesso manual.",
			En:   "Forty documents from two tenants, ten workers. While the bad prompt version lasts, every document fails validation (poison_schema); the fix lands when the faults stop (the quiescence phase). With the breaker (window of 20, opens at 50% failures, waits 30 s and 2 canaries) the queue stops handing out jobs, probes with canaries that fail and reopen it, and closes when the canaries pass after the fix: the documents that waited burn no tokens and stay out of the DLQ. Without the breaker, every document that arrives spends a whole extraction and lands in the DLQ, waiting for a manual reprocess.",
		},
		Limits: Text{
			PtBR: "Quanto o disjuntor economiza depende de quantos documentos chegam à validação enquanto a versão ruim está no ar: em algumas sementes documentos longos ocupam os workers até a correção e quase nenhum chega a ser envenenado, com ou sem disjuntor.",
			En:   "How much the breaker saves depends on how many documents reach validation while the bad version is live: on some seeds long documents keep the workers busy until the fix and hardly any document gets poisoned, breaker or not.",
		},
		Sources: []Source{{Seed: Seed003,
			Section: Text{PtBR: "como funcionam circuit breakers e detecção de anomalias por fila", En: "how circuit breakers and per-queue anomaly detection work"},
			Quote:   "Após a aplicação de um hotfix, o disjuntor entra em Meio-Aberto e processa mensagens canário (Canary Probes).",
		}},
		Seed:   4,
		Config: base(40, 10, 2, poisonPlan(1, 40)),
		Charts: []Chart{ChartBreaker, ChartDepth},
		Claims: []Claim{
			{Arm: "no-breaker", Other: "breaker", Figure: FigDLQEntries, Rel: More,
				Why: Text{PtBR: "sem disjuntor, todo documento envenenado que chega é extraído e vai para a DLQ", En: "without the breaker every poisoned document that arrives is extracted and dead-lettered"}},
			{Arm: "no-breaker", Other: "breaker", Figure: FigTokens, Rel: More,
				Why: Text{PtBR: "com o disjuntor aberto, os documentos esperam e só são extraídos depois da correção, uma vez", En: "while the breaker is open the documents wait, and are extracted once, after the fix"}},
		},
		Arms: []Arm{
			{Variant: "correct", Label: "breaker", Says: Text{PtBR: "disjuntor por fila ligado", En: "per-queue circuit breaker on"}, Checks: []Check{
				noViolation(),
				breakerWent(),
			}},
			{Variant: "correct", Label: "no-breaker", Says: Text{PtBR: "disjuntor desligado (nunca abre)", En: "breaker off (it never opens)"},
				Tweak: breakerOff,
				Checks: []Check{
					noViolation(),
					compare(Text{PtBR: "mais documentos na DLQ que com o disjuntor (mais de 1,5×)", En: "more documents in the DLQ than with the breaker (more than 1.5×)"},
						"breaker", func(r *sim.Result) int64 { return r.Metrics.Dead }, false, 3, 2),
					compare(Text{PtBR: "mais tokens queimados em documentos envenenados (mais de 1,5×)", En: "more tokens burned on poisoned documents (more than 1.5×)"},
						"breaker", dlqTokens, false, 3, 2),
				}},
		},
	}
}

// breakerWent holds when the breaker opened, went half-open and ended
// closed.
func breakerWent() Check {
	return result(Text{PtBR: "o disjuntor abriu, ficou meio-aberto e terminou fechado", En: "the breaker opened, went half-open and ended closed"},
		func(r *sim.Result) error {
			seen := map[string]bool{}
			for _, b := range r.Metrics.Breaker {
				seen[b.State] = true
			}
			n := len(r.Metrics.Breaker)
			if !seen["open"] || !seen["half-open"] || n == 0 || r.Metrics.Breaker[n-1].State != "closed" {
				return fmt.Errorf("breaker changes: %v", r.Metrics.Breaker)
			}
			return nil
		})
}

// dlqTokens is the tokens spent by the jobs that went to the DLQ.
func dlqTokens(r *sim.Result) int64 {
	t := int64(0)
	for i := range r.History {
		if e := &r.History[i]; e.Kind == model.EvDLQWrite && e.OK {
			t += e.N2
		}
	}
	return t
}

func headOfLine() Scenario {
	return Scenario{
		Name: "head-of-line",
		Title: Text{
			PtBR: "Bloqueio no início da fila: uma mensagem venenosa na cabeça de uma fila ordenada atrasa os outros tenants",
			En:   "Head-of-line blocking: a poison message at the head of an ordered queue delays the other tenants",
		},
		Claim: Text{
			PtBR: "Retentar o que não tem cura trava a esteira inteira por bloqueio de início de fila (head-of-line blocking): tarefas legítimas de outros usuários aguardam enquanto recursos são desperdiçados com eventos natimortos. Isolar a mensagem venenosa na DLQ na primeira tentativa libera a fila.",
			En:   "Retrying what cannot be cured stalls the whole pipeline by head-of-line blocking: other users' legitimate tasks wait while resources are wasted on stillborn events. Isolating the poison message in the DLQ on the first attempt frees the queue.",
		},
		Story: Text{
			PtBR: "Uma fila estritamente ordenada (FIFO, como um grupo FIFO do SQS ou uma partição do Kafka): só o job mais antigo pode ser pego. Doze documentos de três tenants; o primeiro, do acme, estoura o contexto do modelo (context_overflow, um erro permanente). Na arquitetura correta ele vai para a DLQ na primeira tentativa e a fila anda. Na variante retry-permanent o erro é tratado como transitório: a cabeça da fila refaz a extração a cada tentativa, com backoff entre elas, e o globex e o initech esperam atrás dela. A espera do job logo atrás da cabeça mede o bloqueio.",
			En:   "A strictly ordered queue (FIFO, like an SQS FIFO group or a Kafka partition): only the oldest job may be leased. Twelve documents from three tenants; the first one, acme's, overflows the model's context (context_overflow, a permanent error). In the correct design it goes to the DLQ on the first attempt and the queue moves on. In the retry-permanent variant the error is treated as transient: the head of the queue redoes the extraction on every attempt, with backoff in between, and globex and initech wait behind it. The wait of the job right behind the head measures the blocking.",
		},
		Limits: Text{
			PtBR: "Numa fila ordenada todo job espera os anteriores, então as esperas absolutas são grandes nas duas variantes; o que o cenário compara é o atraso que a cabeça envenenada acrescenta.",
			En:   "In an ordered queue every job waits for the ones before it, so absolute waits are large in both arms; what the scenario compares is the delay the poisoned head adds.",
		},
		Sources: []Source{{Seed: Seed003,
			Section: Text{PtBR: "por que retries ingênuos provocam desastres de custo e latência", En: "why naive retries cause cost and latency disasters"},
			Quote:   "Tarefas legítimas de outros usuários aguardam enquanto recursos computacionais são desperdiçados com eventos natimortos.",
		}, {Seed: Seed004,
			Section: Text{PtBR: "referências: Using dead-letter queues in Amazon SQS", En: "references: Using dead-letter queues in Amazon SQS"},
			Quote:   "DLQ exige inspeção e política de reprocessamento; seu uso pode interferir em ordenação estrita FIFO.",
		}},
		Seed: 1,
		Config: with(base(12, 4, 3, "permanent doc=1"), func(c *sim.Config) {
			c.Model.Ordered = true
		}),
		Charts: []Chart{ChartWaits, ChartDepth},
		Claims: []Claim{
			{Arm: "retry-permanent", Other: "correct", Figure: FigExtractions, Rel: More,
				Why: Text{PtBR: "a cabeça da fila refaz a extração a cada tentativa", En: "the head of the queue redoes its extraction on every attempt"}},
			{Arm: "retry-permanent", Other: "correct", Figure: FigDLQTokens, Rel: More,
				Why: Text{PtBR: "quando a cabeça enfim chega à DLQ, carrega os tokens de todas as tentativas", En: "when the head finally reaches the DLQ it carries the tokens of every attempt"}},
		},
		Arms: []Arm{
			{Variant: "correct", Says: correctSays, Checks: []Check{
				noViolation(),
				dlqEntry(Text{PtBR: "a cabeça vai para a DLQ na primeira tentativa (context_overflow)", En: "the head goes to the DLQ on the first attempt (context_overflow)"},
					1, model.CodeContextOverflow, 1),
			}},
			{Variant: "retry-permanent",
				Says: Text{PtBR: "erros permanentes são retentados como transitórios", En: "permanent errors are retried as transient"},
				Checks: []Check{
					violates(invariants.BoundedRetries),
					compare(Text{PtBR: "o job de outro tenant logo atrás da cabeça espera mais que o dobro", En: "the other tenant's job right behind the head waits more than twice as long"},
						"correct", secondJobWait, false, 2, 1),
					result(Text{PtBR: "a cabeça refez a extração em mais de uma tentativa", En: "the head redid its extraction on more than one attempt"}, func(r *sim.Result) error {
						return atLeast(int64(r.Metrics.Docs[0].Extractions), 2)
					}),
				}},
		},
	}
}

// secondJobWait is the queue wait of job j2, right behind the head.
func secondJobWait(r *sim.Result) int64 {
	if len(r.Metrics.Docs) < 2 {
		return 0
	}
	return r.Metrics.Docs[1].QueueWait
}
