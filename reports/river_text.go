package reports

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// The River report's Markdown. Every number, verdict, plan, command and
// trace line comes from the runs (river.go); the prose around them says
// what River promises and how durasim drives it. river_test.go holds each
// computed sentence to the tables and trace lines beside it.

// Files renders the River report in language l: the report and its
// charts.
func (rv *River) Files(l Lang, w Written) ([]File, error) { return reportFiles(rv, l, w) }

// SiteFile renders the River report as a page of the site.
func (rv *River) SiteFile(l Lang, w Written) (File, error) { return reportSiteFile(rv, l, w) }

func (rv *River) render(l Lang, charts []chartFile, w Written, site *siteParts) string {
	p := &page{l: l, site: site}
	p.line("# ", rv.Title(l))
	p.line()
	p.line(reportHeader(l, RiverName, w))
	p.riverVerdict(rv)
	p.riverPromises(rv)
	p.riverHarness(rv)
	p.riverDesigns(rv)
	p.riverPattern(rv)
	p.riverRemedies(rv)
	p.riverExposure(rv)
	p.chartSection(charts, nil)
	p.riverOtherFindings(rv)
	p.riverNotes()
	p.riverReproduce(rv)
	return p.String()
}

func (p *page) riverVerdict(rv *River) {
	held, total := rv.Held()
	p.verdictLine(rv.Passed(), held, total,
		p.l.t("as arquiteturas corretas passam em todas as sementes, cada arquitetura ingênua é pega, e o contraexemplo do padrão documentado mostra o mecanismo descrito abaixo",
			"the correct designs pass every seed, each naive design is caught, and the documented pattern's counterexample shows the mechanism described below"))
}

// riverPromises is what River says it does, quoted from its source.
func (p *page) riverPromises(rv *River) {
	l := p.l
	p.h2(l.t("O que o River promete", "What River promises"))
	p.line(fmt.Sprintf(l.t("O River (github.com/riverqueue/river, aqui %s) é uma fila de jobs durável no próprio banco da aplicação, e sua entrega é *at least once*. Um job buscado fica `running` até o worker relatar como terminou — concluído, ou com um erro, que o reagenda com backoff ou o descarta no limite de tentativas —, ou até o JobRescuer, um serviço de manutenção, achá-lo `running` há mais de RescueStuckJobsAfter e devolvê-lo como `retryable` (ou descartá-lo). Um worker lento não é parado: depois de JobTimeout o River cancela o contexto do trabalho, mas o código que não olha esse contexto segue em frente. JobCompleteTx conclui o job dentro da transação do próprio handler, para que um efeito escrito nela seja commitado junto com a conclusão ou não seja. E um insert único (`UniqueOpts{ByArgs: true}`) devolve o job que já existe com o mesmo tipo e os mesmos argumentos, em vez de criar outro.",
		"River (github.com/riverqueue/river, here %s) is a durable job queue in the application's own database, and its delivery is *at least once*. A fetched job stays `running` until its worker reports how it ended — completed, or with an error, which schedules a retry with backoff or discards the job at its max attempts — or until the JobRescuer, a maintenance service, finds it running for longer than RescueStuckJobsAfter and makes it `retryable` again (or discards it). A slow worker is not stopped: after JobTimeout River cancels its work's context, but code that does not watch that context carries on. JobCompleteTx completes the job inside the handler's own transaction, so that an effect written there commits with the completion or not at all. And a unique insert (`UniqueOpts{ByArgs: true}`) returns the job that already exists with the same kind and arguments instead of making another."), rv.Version))
	for _, q := range riverQuotes {
		p.line()
		p.line("> «", q.text, "»")
		p.line(">")
		p.line("> — River ", rv.Version, ", ", q.file, ", ", q.symbol)
	}
	p.line()
	p.line(l.t("*(As citações são do código-fonte do River, mantidas no original em inglês.)*", "*(The quotes are from River's source code.)*"))
}

// riverQuote is a passage of River's source the report quotes; a test
// finds each in the module the build uses.
type riverQuote struct {
	module, file, symbol, text string
}

var riverQuotes = []riverQuote{
	{"github.com/riverqueue/river", "client.go", "Config.RescueStuckJobsAfter",
		"Note that this can result in repeat or duplicate execution of a job that is not actually stuck but is still working."},
	{"github.com/riverqueue/river", "job_complete_tx.go", "JobCompleteTx",
		"JobCompleteTx marks the job as completed as part of transaction tx. If tx is rolled back, the completion will be as well."},
	{"github.com/riverqueue/river", "job_complete_tx.go", "JobCompleteTx",
		"Returns the updated, completed job."},
}

// riverHarness is how durasim drives River: whose code runs, the setup,
// the faults and the oracles.
func (p *page) riverHarness(rv *River) {
	l := p.l
	p.h2(l.t("Como o durasim o exercita", "How durasim drives it"))
	p.line(l.t("O durasim roda o código Go do River onde o River o deixa chamar — o cliente (nunca iniciado) para inserções e JobRetry, o executor e o completer do River via rivertest.Worker, JobCompleteTx — sobre um SQLite em memória (o driver riversqlite), uma chamada por passo do escalonador, com o relógio do River (Config.Test.Time) no tempo virtual da simulação — por isso uma semente se repete byte a byte.",
		"durasim runs River's Go code where River makes it callable — its client (never started) for inserts and JobRetry, River's executor and completer through rivertest.Worker, JobCompleteTx — on an in-memory SQLite database (the riversqlite driver), one call per scheduler step, with River's clock (Config.Test.Time) at the simulation's virtual time — so a seed replays byte for byte."))
	p.line()
	p.line(l.t("- **Código do River:** todo comando que toca o banco (o SQL por trás do riverdriver.Executor) e as migrações (rivermigrate); as inserções do cliente (Insert, InsertTx, `UniqueOpts{ByArgs: true}`: a chave única do próprio River); o executor do River (reportResult/reportError: concluído, reagendado ou descartado, JobCancel, JobSnooze) e seu completer, via rivertest.Worker, sobre a linha que a busca devolveu ao worker; JobCompleteTx; JobRetry.",
		"- **River's code:** every statement that touches the database (the SQL behind riverdriver.Executor) and the migrations (rivermigrate); the client's inserts (Insert, InsertTx, `UniqueOpts{ByArgs: true}`: River's own unique key); River's executor (reportResult/reportError: completed, retried or discarded, JobCancel, JobSnooze) and its completer, through rivertest.Worker, on the row the fetch returned to the worker; JobCompleteTx; JobRetry."))
	p.line(l.t("- **Reencenado pelo durasim**, cada um por um motivo: a política de retry padrão (seu jitter vem do gerador global de math/rand/v2, que não se semeia: o executor do River pergunta à Config.RetryPolicy, a fórmula do River, attempt⁴ segundos ±10%, com o jitter sorteado da semente); a busca do producer (não exportada: JobGetAvailable como ele a faz); o JobRescuer e o job scheduler (internal/maintenance, não importáveis, só rodam no líder de um cliente iniciado: JobGetStuck e JobRescueMany, JobSchedule); e o timeout do job (o executor armaria um timer de tempo real: o worker do durasim encerra o trabalho no JobTimeout).",
		"- **Re-enacted by durasim**, each for a reason: the default retry policy (its jitter comes from math/rand/v2's global generator, which cannot be seeded: River's executor asks Config.RetryPolicy, River's formula, attempt⁴ seconds ±10%, its jitter drawn from the seed); the producer's fetch (unexported: JobGetAvailable as it does it); the JobRescuer and the job scheduler (internal/maintenance, not importable, run only by a started client's leader: JobGetStuck then JobRescueMany, JobSchedule); and the job timeout (the executor would arm a real-time timer: durasim's worker ends the work at JobTimeout)."))
	p.line(l.t("- **Do durasim:** a tabela de efeitos e o ledger dos handlers, e leituras que o cliente do River não faz: cada relatório lê a linha do job antes da transição, na mesma transação, e cada resgate lê o `river:rescue_count` de cada job antes e depois, para o histórico saber se o job tomou o estado.",
		"- **durasim's own:** the effects table and the handlers' ledger, and reads River's client does not make: each report reads the job's row before its transition, in the same transaction, and each rescue reads every job's `river:rescue_count` before and after, so the history knows whether the job took the state."))
	p.line()
	p.line("**", l.t("O que isto não mostra.", "What this does not show."), "** ",
		l.t("Parte da lógica do cliente Go do River é reencenada (acima), e um erro dessa reencenação daria um achado falso — por isso o achado abaixo cita o código do River que o explica. O SQLite tem uma conexão e o simulador faz uma chamada por vez: não há duas transações concorrentes, só intercalações entre chamadas; o PostgreSQL (-backend postgres) fica fora deste relatório. E algumas sementes por arquitetura são uma amostra: as arquiteturas corretas passam nelas, não em toda história possível.",
			"Part of River's Go client logic is re-enacted (above), and a mistake in that re-enactment would make a false finding — which is why the finding below cites the River code that explains it. SQLite has one connection and the simulator makes one call at a time: there are no two concurrent transactions, only interleavings between calls; PostgreSQL (-backend postgres) is left out of this report. And a few seeds per design are a sample: the correct designs pass them, not every possible history."))
	p.riverSetup(rv)
	p.riverFaults(rv)
	p.riverOracles()
}

// riverSetup is the settings table.
func (p *page) riverSetup(rv *River) {
	l := p.l
	p.h2(l.t("Configuração", "Setup"))
	c, q := rv.Base, rv.Queue
	swarm := l.t("desligado", "off")
	if c.Swarm {
		swarm = l.t("ligado: cada tipo de falha ligado ou desligado pela semente, de 1 a 3 de cada, miradas onde importam", "on: each fault kind on or off by seed, 1 to 3 of each, aimed where they matter")
	}
	rows := [][]string{
		{l.t("alvo", "target"), fmt.Sprintf(l.t("River %s pelo driver riversqlite, SQLite em memória", "River %s through its riversqlite driver, in-memory SQLite"), rv.Version)},
		{"RescueStuckJobsAfter", l.dur(q.RescueAfter) + l.t(" (o padrão do River: 1 hora)", " (River's default: 1 hour)")},
		{"JobTimeout", l.dur(q.JobTimeout) + l.t(" (o padrão do River: 1 minuto)", " (River's default: 1 minute)")},
		{l.t("intervalo do job scheduler", "job scheduler interval"), l.dur(q.SchedulerInterval)},
		{"workers", fmt.Sprint(c.Workers)},
		{l.t("documentos (um job único por documento)", "documents (one unique job each)"), fmt.Sprint(c.Docs)},
		{l.t("tenants (os documentos repetem nomes)", "tenants (their documents share names)"), fmt.Sprint(c.Tenants)},
		{"max_attempts", fmt.Sprint(c.MaxAttempts)},
		{l.t("sementes por arquitetura", "seeds per design"), fmt.Sprintf(l.t("1 a %d para uma correta; uma ingênua, de 1 até a primeira que falha (no máximo %d)", "1 to %d for a correct one; a naive one from 1 to its first failure (at most %d)"), rv.Seeds, rv.Naive)},
		{l.t("falhas (swarm)", "faults (swarm)"), swarm},
	}
	p.table([]string{l.t("parâmetro", "setting"), l.t("valor", "value")}, rows)
	p.line()
	p.line(l.t("Os padrões do River são encolhidos para que uma execução de poucos minutos virtuais cruze os dois prazos; a razão entre eles é a do River: JobTimeout abaixo de RescueStuckJobsAfter, como o River exige.",
		"River's defaults are scaled down so that a run of a few virtual minutes crosses both; their order is River's: JobTimeout below RescueStuckJobsAfter, as River requires."))
}

// faultText says what each fault kind does, by its name.
var faultText = map[string][2]string{
	"crash":          {"um ator (worker ou rescuer) morre numa fronteira entre duas chamadas: sua conexão fecha e uma transação aberta é desfeita", "an actor (a worker or the rescuer) dies at a boundary between two calls: its connection closes, an open transaction rolls back"},
	"pause":          {"um ator congela numa fronteira; se o job dele é resgatado enquanto isso, ele volta como zumbi", "an actor freezes at a boundary; if its job is rescued meanwhile, it comes back a zombie"},
	"slow":           {"o trabalho de um documento dura mais que o horizonte de resgate, sem olhar o contexto", "a document's work lasts longer than the stuck horizon, not watching its context"},
	"transient":      {"o handler de um documento devolve um erro que se tenta de novo (retry, ou descarte no limite de tentativas)", "a document's handler returns a retryable error (retried, or discarded at max attempts)"},
	"cancel":         {"o handler pede para cancelar o job (JobCancel)", "the handler asks to cancel its job (JobCancel)"},
	"snooze":         {"o handler adia o job (JobSnooze)", "the handler snoozes its job (JobSnooze)"},
	"resubmit":       {"o cliente insere o mesmo documento de novo num dado instante (insert único: o mesmo job)", "a client inserts a document again at a given time (a unique insert: the same job)"},
	"redrive":        {"um operador pede que um job descartado ou cancelado rode de novo (JobRetry)", "an operator asks a discarded or cancelled job to run again (JobRetry)"},
	"few-attempts":   {"o job de um documento é inserido com um max_attempts menor que o da execução (a última tentativa chega cedo)", "a document's job is inserted with a smaller max_attempts than the run's (its last attempt comes soon)"},
	"clock-ahead":    {"o relógio do processo de um worker adianta em relação ao do banco, por um intervalo (só em filas que declaram esse relógio)", "a worker's process clock runs ahead of the database's for a while (only on queues that declare that clock)"},
	"clock-behind":   {"o relógio do processo de um worker atrasa em relação ao do banco, por um intervalo (só em filas que declaram esse relógio)", "a worker's process clock runs behind the database's for a while (only on queues that declare that clock)"},
	"zone":           {"o fuso horário local do processo fica atrás de UTC (só em filas que declaram esse relógio)", "the process's local time zone is behind UTC (only on queues that declare that clock)"},
	"dst":            {"uma transição de horário de verão acontece durante a execução (só em filas que declaram esse relógio)", "a daylight-saving transition happens during the run (only on queues that declare that clock)"},
	"outside-cancel": {"um operador cancela de fora o job de um documento enquanto ele roda (JobCancel: o cancelamento fica pedido)", "an operator cancels a document's job from outside while it runs (JobCancel: the cancel is asked)"},
	"delete":         {"um operador apaga o job terminado de um documento (JobDelete)", "an operator deletes a document's finished job (JobDelete)"},
	"metadata":       {"um operador atualiza os metadados do job de um documento (JobUpdate)", "an operator updates a document's job's metadata (JobUpdate)"},
	"out-of-band":    {"outro escritor muda a linha de um job por fora da fila: 30 erros a mais no histórico, num job concluído ou num vivo entre duas tentativas (a próxima já parte com o histórico longo)", "another writer changes a job's row under the queue: 30 more errors in its history, on a completed job or a live one between attempts (its next attempt starts with the long history)"},
	"batch-insert":   {"o cliente insere o documento de novo num lote que repete a chave única (o River recusa o lote inteiro)", "a client inserts the document again in a batch that repeats its unique key (River refuses the whole batch)"},
	"worker-timeout": {"o worker dos jobs de um documento define seu próprio timeout (Worker.Timeout), no lugar do JobTimeout do cliente; o rescuer espera ele passar", "the worker of a document's jobs sets its own timeout (Worker.Timeout) in place of the client's JobTimeout; the rescuer waits for it to pass"},
	"no-timeout":     {"o worker dos jobs de um documento não define timeout nenhum (Worker.Timeout -1): o rescuer nunca resgata esse job, e um worker que morre o deixa em execução para sempre", "the worker of a document's jobs sets no timeout at all (Worker.Timeout -1): the rescuer never rescues that job, and a worker that dies leaves it running for good"},
}

// riverFaults lists the fault kinds with how often each took effect in
// the correct designs' runs.
func (p *page) riverFaults(rv *River) {
	l := p.l
	runs := 0
	for _, sw := range rv.correct() {
		runs += sw.Ran
	}
	p.line()
	p.line(fmt.Sprintf(l.t("Os tipos de falha do plano, e quantas vezes cada um aconteceu nas %s das arquiteturas corretas:", "The plan's fault kinds, and how often each took effect in the %s of the correct designs:"),
		l.count(runs, "execução", "execuções", "run", "runs")))
	p.line()
	var rows [][]string
	for _, k := range targetsim.FaultKinds() {
		n := 0
		for _, sw := range rv.correct() {
			n += sw.Summary.Faults[k.String()]
		}
		t := faultText[k.String()]
		rows = append(rows, []string{code(k.String()), l.t(t[0], t[1]), l.num(int64(n))})
	}
	p.table([]string{l.t("falha", "fault"), l.t("o que faz", "what it does"), l.t("vezes", "times")}, rows)
	p.line()
	p.line(l.t("Um trabalho que passa de JobTimeout depois da busca (por uma pausa ou por ser lento) encontra o contexto cancelado: as chamadas do handler falham e ele devolve um erro. As falhas param na fase de quiescência; depois dela todo job precisa terminar.",
		"Work that runs past JobTimeout after its fetch (paused, or slow) finds its context cancelled: the handler's calls fail and it returns an error. Faults stop at the quiescence phase; after it every job must finish."))
}

// checkText says what each target check requires.
var checkText = map[string][2]string{
	invariants.TargetFinalKept:   {"um job terminado continua terminado, a menos que um operador peça", "a finished job stays finished unless an operator asks"},
	invariants.TargetAttempts:    {"as tentativas, recontadas pelo oráculo, ficam dentro de max_attempts", "attempts, recounted by the oracle, stay within max_attempts"},
	invariants.TargetUnique:      {"um insert único dá um job só", "a unique insert gives one job"},
	invariants.TargetRetryTiming: {"nenhuma busca antes da hora que um relatório marcou; o backoff dentro da política do River", "no fetch before the time a report set; the backoff within River's policy"},
	invariants.TargetEffectOnce:  {"um efeito por documento cujo trabalho foi concluído, nenhum nos outros", "one effect per document whose work completed, none otherwise"},
	invariants.TargetTenant:      {"chaves e efeitos nunca cruzam tenants", "keys and effects never cross tenants"},
	invariants.TargetConsistency: {"o que a fila devolveu e guardou concorda com o histórico", "what the queue returned and kept agrees with the history"},
	invariants.TargetDrained:     {"depois que as falhas param, todo job termina", "once the faults stop, every job finishes"},
}

func (p *page) riverOracles() {
	l := p.l
	p.h3(l.t("Os oráculos", "The oracles"))
	p.line(l.t("Os oráculos (invariants.CheckTarget) leem só o histórico que os atores do durasim gravaram — o que cada um pediu e o que cada chamada devolveu — e o estado lido no fim; não confiam em nada que a fila diga de si, e recalculam cada número que uma chamada devolveu.",
		"The oracles (invariants.CheckTarget) read only the history durasim's actors recorded — what each asked and what each call returned — and the state read back at the end; they trust nothing the queue says about itself, and recompute every number a call returned."))
	p.line()
	var rows [][]string
	for _, name := range invariants.TargetChecks() {
		rows = append(rows, []string{code(name), l.t(checkText[name][0], checkText[name][1])})
	}
	p.table([]string{l.t("verificação", "check"), l.t("o que exige", "what it requires")}, rows)
}

// designPt is each design's What in Portuguese (en: Design.What).
var designPt = map[targetsim.Design]string{
	targetsim.TxChecked:         "efeito e JobCompleteTx numa transação, commitada só se o job voltou concluído na tentativa do próprio worker",
	targetsim.Outbox:            "o handler insere um job de outbox com InsertTx e conclui com JobCompleteTx (conferido); um consumidor que deduplica o aplica",
	targetsim.IdempotentKey:     "efeito sob uma chave de ledger tenant:documento:vN; depois o completer conclui o job",
	targetsim.TxAsDocumented:    "efeito e JobCompleteTx numa transação, conferindo só o erro de JobCompleteTx (o padrão da sua documentação)",
	targetsim.EffectOutsideTx:   "efeito antes de qualquer transação; depois o completer conclui o job",
	targetsim.CompleteOutsideTx: "efeito commitado numa transação própria; depois o completer conclui o job",
	targetsim.KeyWithoutTenant:  "idempotent-key com a chave documento:vN, sem o tenant",
}

func designWhat(l Lang, d targetsim.Design) string { return l.t(designPt[d], d.What()) }

// riverDesigns is the table of handler designs, the sentence that sums it
// up, the shrunk violations and the checks.
func (p *page) riverDesigns(rv *River) {
	l := p.l
	p.h2(l.t("As arquiteturas de handler", "The handler designs"))
	p.line(fmt.Sprintf(l.t("Uma arquitetura de handler é como o worker escreve seu efeito e conclui o job. As corretas prometem um efeito por documento; as ingênuas são os erros que um time comete em cima de uma fila at least once. Uma correta roda nas sementes 1 a %d; uma ingênua roda da semente 1 até a primeira que falha (no máximo %d) — a mesma semente dá as mesmas falhas a todas —, e o shrinker (targetsim.Shrink) reduz essa execução ao menor plano, documentos e workers que ainda falham a mesma verificação. Só as verificações dos efeitos do handler decidem o resultado de uma arquitetura, como em `durasim mutants`.",
		"A handler design is how the worker writes its effect and completes its job. The correct ones promise one effect per document; the naive ones are the mistakes a team makes on top of an at-least-once queue. A correct one runs seeds 1 to %d; a naive one runs from seed 1 to its first failing seed (at most %d) — a seed gives every design the same faults —, and the shrinker (targetsim.Shrink) reduces that run to the smallest plan, documents and workers that still fail the same check. Only the checks of the handler's effects decide a design's verdict, as in `durasim mutants`."), rv.Seeds, rv.Naive))
	p.line()
	var rows [][]string
	for _, sw := range rv.Designs {
		rows = append(rows, []string{code(sw.Design.String()), promiseText(l, sw.Design), designWhat(l, sw.Design),
			fmt.Sprintf("1–%d", sw.Ran), sweepVerdict(l, sw), queueCell(l, sw), shrunkText(l, sw), replayCell(rv, sw)})
	}
	p.table([]string{l.t("arquitetura", "design"), l.t("promessa", "promise"), l.t("o que faz", "what it does"), l.t("sementes", "seeds"),
		l.t("resultado", "verdict"), l.t("garantias do River", "River's guarantees"), l.t("contraexemplo reduzido", "shrunk counterexample"), l.t("reproduzir", "replay")}, rows)
	p.line()
	p.line(rv.designSentence(l))
	p.line()
	p.line(rv.queueSentence(l))
	p.line()
	p.line(l.t("A violação de cada contraexemplo reduzido:", "Each shrunk counterexample's violation:"))
	p.line()
	for _, sw := range rv.Designs {
		if sw.Shrunk != nil {
			p.violationItem(code(sw.Design.String())+": ", sw.Shrunk.Result.First(sw.Check))
		}
	}
	p.checkTable(rv.checks(l))
}

func promiseText(l Lang, d targetsim.Design) string {
	if d.Correct() {
		return l.t("correta", "correct")
	}
	return l.t("ingênua", "naive")
}

// sweepVerdict is a design's verdict cell: "passes", "caught at seed 18
// by `target-effect-once`".
func sweepVerdict(l Lang, sw DesignSweep) string {
	switch {
	case sw.Caught == nil && sw.Design.Correct():
		return l.t("passa", "passes")
	case sw.Caught == nil:
		return l.t("**não foi pega**", "**not caught**")
	case sw.Design.Correct():
		return fmt.Sprintf(l.t("**falha** na semente %d por %s", "**fails** seed %d by %s"), sw.Caught.Seed, code(sw.Check))
	}
	return fmt.Sprintf(l.t("pega na semente %d por %s", "caught at seed %d by %s"), sw.Caught.Seed, code(sw.Check))
}

// shrunkText is the shrunk counterexample: its plan, documents, workers.
func shrunkText(l Lang, sw DesignSweep) string {
	if sw.Shrunk == nil {
		return "–"
	}
	c := sw.Shrunk.Config
	plan := l.t("(nenhuma falha)", "(no fault)")
	if len(c.Plan.Faults) > 0 {
		plan = code(c.Plan.OneLine())
	}
	return fmt.Sprintf("%s; %s, %s", plan, l.count(docCount(c), "documento", "documentos", "document", "documents"),
		l.count(c.Workers, "worker", "workers", "worker", "workers"))
}

// docCount is the documents a configuration runs.
func docCount(c targetsim.Config) int {
	if c.Only != nil {
		return len(c.Only)
	}
	return c.Docs
}

func replayCell(rv *River, sw DesignSweep) string {
	if sw.Shrunk == nil {
		return "–"
	}
	return code(rv.replay(sw.Shrunk.Config, sw.Shrunk.Result.Seed))
}

// replay is the command that replays seed of cfg on the report's River
// (on SQLite, with the report's client settings).
func (rv *River) replay(cfg targetsim.Config, seed uint64) string {
	args, err := rivertarget.Args(rivertarget.SQLite, rv.Queue)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return targetsim.CommandLine(targetsim.DefaultCLI, "replay", rivertarget.System{}.Name(), args, cfg, seed)
}

// queueChecks are the checks of River's own guarantees: those that do
// not judge the handler's effects.
func queueChecks() []string {
	var out []string
	for _, name := range invariants.TargetChecks() {
		if !invariants.TargetHandlerCheck(name) {
			out = append(out, name)
		}
	}
	return out
}

// queueCell is a design's cell of River's own guarantees: "held", or
// each violated check with the seeds that violated it.
func queueCell(l Lang, sw DesignSweep) string {
	var parts []string
	for _, name := range queueChecks() {
		if seeds := sw.Queue[name]; len(seeds) > 0 {
			nums := make([]string, len(seeds))
			for i, s := range seeds {
				nums[i] = fmt.Sprint(s)
			}
			parts = append(parts, fmt.Sprintf(l.t("%s nas sementes %s", "%s on seeds %s"), code(name), strings.Join(nums, ", ")))
		}
	}
	if len(parts) == 0 {
		return l.t("mantidas", "held")
	}
	return strings.Join(parts, "; ")
}

// queueSentence says whether River's own guarantees held in every run of
// every design.
func (rv *River) queueSentence(l Lang) string {
	runs, bad := 0, 0
	for _, sw := range rv.Designs {
		runs += sw.Ran
		seen := map[uint64]bool{}
		for _, seeds := range sw.Queue {
			for _, s := range seeds {
				seen[s] = true
			}
		}
		bad += len(seen)
	}
	names := make([]string, 0, len(queueChecks()))
	for _, name := range queueChecks() {
		names = append(names, code(name))
	}
	if bad == 0 {
		return fmt.Sprintf(l.t("As garantias do próprio River — as verificações que não julgam o handler (%s) — valem em todas as %s, de todas as arquiteturas.",
			"River's own guarantees — the checks that do not judge the handler (%s) — hold in all %s, of every design."),
			l.list(names), l.bold(runs, "execução", "execuções", "run", "runs"))
	}
	return fmt.Sprintf(l.t("As garantias do próprio River — as verificações que não julgam o handler (%s) — falham em **%s** das %s (coluna acima): achados sobre o River, qualquer que seja o handler, que não decidem o resultado de uma arquitetura.",
		"River's own guarantees — the checks that do not judge the handler (%s) — fail in **%s** of the %s (column above): findings about River, whatever the handler, which do not decide a design's verdict."),
		l.list(names), l.num(int64(bad)), l.bold(runs, "execução", "execuções", "run", "runs"))
}

// designSentence sums the table up: how many correct designs pass, how
// many naive ones are caught, where and by which check.
func (rv *River) designSentence(l Lang) string {
	correct, naive := rv.correct(), rv.naive()
	passed := 0
	for _, sw := range correct {
		if sw.Caught == nil {
			passed++
		}
	}
	var caught []DesignSweep
	for _, sw := range naive {
		if sw.Caught != nil {
			caught = append(caught, sw)
		}
	}
	s := fmt.Sprintf(l.t("Das **%d** arquiteturas corretas, **%d** passam em todas as **%d** sementes; das **%d** ingênuas, **%d** são pegas",
		"Of the **%d** correct designs, **%d** pass all **%d** seeds; of the **%d** naive ones, **%d** are caught"),
		len(correct), passed, rv.Seeds, len(naive), len(caught))
	if len(caught) == 0 {
		return s + "."
	}
	s += l.t(", cada uma na primeira semente que falha", ", each at its first failing seed")
	parts := make([]string, len(caught))
	same := true
	for i, sw := range caught {
		parts[i] = fmt.Sprintf(l.t("%s na **%d**", "%s at **%d**"), code(sw.Design.String()), sw.Caught.Seed)
		same = same && sw.Check == caught[0].Check
	}
	if same {
		return fmt.Sprintf(l.t("%s: %s, todas por %s.", "%s: %s, all by %s."), s, l.list(parts), code(caught[0].Check))
	}
	for i, sw := range caught {
		parts[i] += " (" + code(sw.Check) + ")"
	}
	return s + ": " + l.list(parts) + "."
}

// riverExposure is how often two workers held one job at once in the
// correct designs' runs.
func (p *page) riverExposure(rv *River) {
	l := p.l
	p.h2(l.t("Exposição: dois workers no mesmo job", "Exposure: two workers on one job"))
	p.line(l.t("Dois workers com o mesmo job ao mesmo tempo é o comportamento at least once do River, não uma violação: o rescuer devolve um job que passou do horizonte, e o worker lento ou pausado continua com ele. Os oráculos contam essas sobreposições — uma busca enquanto outro worker ainda tinha uma tentativa do job (buscada, e sem relatório, commit ou queda desde então) — sem falhar por elas. Nas sementes de cada arquitetura correta:",
		"Two workers holding one job at once is River's at-least-once behaviour, not a violation: the rescuer hands out a job that outlived the stuck horizon, and the slow or paused worker still holds it. The oracles count these overlaps — a fetch while another worker still held an attempt of the job (fetched, and neither reported, committed nor crashed since) — without failing on them. On each correct design's seeds:"))
	p.line()
	var rows [][]string
	for _, sw := range rv.correct() {
		s, c := sw.Summary, sw.Summary.Paths
		rows = append(rows, []string{code(sw.Design.String()), l.num(int64(sw.Ran)), l.num(int64(s.Exposures)), l.num(int64(s.Exposed)), l.num(int64(c.Rescued)),
			l.num(int64(c.Timeouts)), l.num(int64(c.StaleCompletions)), l.num(int64(c.ZombieWrites)), l.num(int64(sw.Handler))})
	}
	p.table([]string{l.t("arquitetura", "design"), l.t("sementes", "seeds"), l.t("sobreposições", "overlaps"), l.t("sementes com alguma", "seeds with one"),
		l.t("resgates", "rescues"), l.t("contextos expirados", "contexts expired"),
		l.t("conclusões alheias desfeitas", "completions not its own rolled back"), l.t("gravações de zumbi", "zombie writes"), l.t("falhas do handler", "handler failures")}, rows)
	p.line()
	p.line(rv.exposureSentence(l))
}

// exposureSentence sums the exposure table up.
func (rv *River) exposureSentence(l Lang) string {
	var runs, overlaps, exposed, timeouts, zombies, failing int
	for _, sw := range rv.correct() {
		runs += sw.Ran
		overlaps += sw.Summary.Exposures
		exposed += sw.Summary.Exposed
		timeouts += sw.Summary.Paths.Timeouts
		zombies += sw.Summary.Paths.ZombieWrites
		failing += sw.Handler
	}
	failed := l.t("Em nenhuma delas o handler falhou", "In none of them did the handler fail")
	if failing > 0 {
		failed = l.t("O handler falhou em ", "The handler failed in ") + l.bold(failing, "execução", "execuções", "run", "runs")
	}
	return fmt.Sprintf(l.t("Nas %s das arquiteturas corretas, dois workers tiveram o mesmo job ao mesmo tempo %s, em %s; o contexto de um trabalho expirou (JobTimeout) %s, e um worker escreveu %s depois que outro já tinha buscado o mesmo job (gravações de zumbi). %s: a sobreposição é o preço do at least once, e um handler correto a absorve.",
		"In the %s of the correct designs, two workers held one job at once %s, in %s; a work's context expired (JobTimeout) %s, and a worker wrote %s after another had fetched the same job (zombie writes). %s: the overlap is the price of at least once, and a correct handler absorbs it."),
		l.bold(runs, "execução", "execuções", "run", "runs"), l.bold(overlaps, "vez", "vezes", "time", "times"), l.bold(exposed, "execução", "execuções", "run", "runs"),
		l.bold(timeouts, "vez", "vezes", "time", "times"), l.bold(zombies, "vez", "vezes", "time", "times"), failed)
}

// riverOtherFindings is what else durasim found about River (checked by
// hand; river_test.go finds the expression in River's source).
func (p *page) riverOtherFindings(rv *River) {
	l := p.l
	p.h2(l.t("Outros achados", "Other findings"))
	p.line(fmt.Sprintf(l.t("**O driver SQLite do River não compila em 32 bits.** O riversqlite %s não compila para GOARCH=386: em river_sqlite_driver.go, %s compara um int com uma constante que não cabe num int de 32 bits (`math.MaxInt64 (untyped int constant 9223372036854775807) overflows int`). Por isso o alvo SQLite do durasim só existe em plataformas de 64 bits (target/rivertarget/sqlite_32bit.go); em 32 bits roda só -backend postgres.",
		"**River's SQLite driver does not build on 32-bit platforms.** riversqlite %s does not build for GOARCH=386: in river_sqlite_driver.go, %s compares an int with a constant that does not fit a 32-bit int (`math.MaxInt64 (untyped int constant 9223372036854775807) overflows int`). So durasim's SQLite target exists only on 64-bit platforms (target/rivertarget/sqlite_32bit.go); on 32-bit ones only -backend postgres runs."),
		rv.Version, code(riverSQLite32)))
}

// riverSQLite32 is the expression of riversqlite that does not build
// where int has 32 bits.
const riverSQLite32 = "min(params.MaxAttempts, math.MaxInt64)"

// riverNotes is literal text, not computed from this report's runs: a
// change in River's changelog, cited as it stands.
func (p *page) riverNotes() {
	l := p.l
	p.h2(l.t("Notas", "Notes"))
	p.line(l.t("*Esta seção não vem das execuções deste relatório: cita o changelog do River.*",
		"*This section does not come from this report's runs: it cites River's changelog.*"))
	p.line()
	p.line(l.t("O CHANGELOG do River, na versão 0.48.0 (seção Fixed), registra a correção de um JobRescuer que sobrescrevia jobs concluídos entre a leitura dos jobs travados e o resgate — ou seja, até a v0.47.0 o rescuer podia sobrescrever um job que foi concluído entre JobGetStuck e JobRescueMany:",
		"River's CHANGELOG, at version 0.48.0 (section Fixed), records the fix of a JobRescuer that overwrote jobs completed between reading the stuck jobs and rescuing them — that is, up to v0.47.0 the rescuer could overwrite a job that completed between JobGetStuck and JobRescueMany:"))
	p.line()
	p.line("> «", riverChangelog048, "»")
	p.line(">")
	p.line("> — River CHANGELOG.md, [0.48.0], Fixed")
}

// riverChangelog048 is the changelog entry the notes cite, verbatim.
const riverChangelog048 = "Fixed `JobRescuer` overwriting jobs that complete, leave the running state, or are claimed again by another worker after being fetched for rescue, preserving their state, errors, metadata, and timestamps across Postgres and SQLite drivers. Fixes [#1302](https://github.com/riverqueue/river/issues/1302). [PR #1373](https://github.com/riverqueue/river/pull/1373)."

// riverReproduce lists the commands that rerun the report's sweeps and
// replays.
func (p *page) riverReproduce(rv *River) {
	l := p.l
	p.h2(l.t("Como reproduzir", "How to reproduce"))
	p.line(l.t("Cada varredura deste relatório, como ele a roda (a de uma correta imprime as falhas, os caminhos, a exposição e cada verificação; a de uma ingênua, até a primeira semente que falha, também o contraexemplo reduzido e o comando do replay):",
		"Each of this report's sweeps, as it runs them (a correct design's prints the faults, the paths, the exposure and every check; a naive one's, up to its first failing seed, also the shrunk counterexample and its replay command):"))
	p.line()
	p.line("```sh")
	for _, sw := range rv.Designs {
		p.line(fmt.Sprintf("go run ./cmd/durasim run -target river -seeds 1:%d -design %s", sw.Ran, sw.Design))
	}
	p.line(fmt.Sprintf("go run ./cmd/durasim mutants -target river -seeds 1:%d", rv.Naive),
		l.t("   # o catálogo como durasim mutants o verifica (as corretas em todas essas sementes)", "   # the catalogue as durasim mutants checks it (the correct designs on all those seeds)"))
	p.line("```")
	if len(rv.Contrast) == 0 {
		return
	}
	p.line()
	p.line(l.t("O contraexemplo do padrão documentado e o mesmo plano sob as arquiteturas corretas, imprimindo o trace completo (a última linha é o hash):",
		"The documented pattern's counterexample and the same plan under the correct designs, printing the whole trace (the last line is its hash):"))
	p.line()
	p.line("```sh")
	for _, c := range rv.Contrast {
		p.line(rv.replay(c.Config, c.Result.Seed), "   # ", c.Config.Design.String())
	}
	p.line("```")
}
