package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// The side-by-side report's Markdown. Every figure comes from the runs
// (side.go) or the asynq recording (side_asynq.go); what each library
// guarantees is read from its declared policy; side_test.go holds each
// computed sentence to its table, and the two languages to the same
// facts.

// Files renders the report in language l: the report and its chart.
func (s *Side) Files(l Lang, w Written) ([]File, error) { return reportFiles(s, l, w) }

// SiteFile renders the report as a page of the site.
func (s *Side) SiteFile(l Lang, w Written) (File, error) { return reportSiteFile(s, l, w) }

func (s *Side) render(l Lang, charts []chartFile, w Written, site *siteParts) string {
	p := &page{l: l, site: site}
	p.line("# ", s.Title(l))
	p.line()
	p.line(reportHeader(l, SideName, w))
	p.sideVerdict(s)
	p.sideSetup(s)
	p.sideGuarantees(s)
	p.sideDesigns(s)
	p.sideFindings(s)
	p.chartSection(charts, nil)
	p.sideHandlers(s)
	p.sideAsynq(s)
	p.sideReproduce(s)
	return p.String()
}

func (p *page) sideVerdict(s *Side) {
	held, total := s.Held()
	p.verdictLine(s.Passed(), held, total,
		p.l.t("em cada biblioteca as arquiteturas corretas ali passam, as ingênuas são pegas, e cada achado com execução se reproduz",
			"on each library the designs correct there pass, the naive ones are caught, and every finding with a run reproduces"))
}

// sideSetup is the one workload and fault mix, per library.
func (p *page) sideSetup(s *Side) {
	l := p.l
	rv, c, a := s.River, s.River.Base, s.Asynq.Runs[0]
	p.h2(l.t("Uma carga, uma mistura de falhas", "One workload, one fault mix"))
	p.line(l.t("O River e o goqite rodam no durasim em modo determinístico: o código da própria biblioteca, no processo, sobre SQLite em memória, uma chamada por passo do escalonador, com o tempo virtual; uma semente se repete byte a byte. O asynq só roda como processos reais sobre um redis-server (seus internos não aceitam outro relógio), que `make report` não sobe: os números dele vêm de uma gravação (veja a última seção).",
		"River and goqite run in durasim's deterministic mode: the library's own code, in process, on in-memory SQLite, one call per scheduler step, on virtual time; a seed replays byte for byte. asynq runs only as real processes on a redis-server (its internals take no other clock), which `make report` does not start: its figures come from a recording (see the last section)."))
	p.line()
	det := fmt.Sprintf(l.t("determinístico, sementes 1 a %d (corretas), até %d (ingênuas)", "deterministic, seeds 1 to %d (correct), up to %d (naive)"), rv.Seeds, rv.Naive)
	rows := [][]string{
		{l.t("modo", "mode"), det, det, fmt.Sprintf(l.t("processos reais, gravado em %s", "real processes, recorded %s"), s.Asynq.recordedDate())},
		{l.t("versão", "release"), code(rv.Version), code(goqiteVersion), code(s.Asynq.Asynq)},
		{"workers", l.num(int64(c.Workers)), l.num(int64(c.Workers)), fmt.Sprintf(l.t("%d processos × %d", "%d processes × %d"), a.Workers, a.Concurrency)},
		{l.t("documentos", "documents"), fmt.Sprintf(l.t("%d por semente, %d tenants", "%d a seed, %d tenants"), c.Docs, c.Tenants), fmt.Sprintf(l.t("%d por semente, %d tenants", "%d a seed, %d tenants"), c.Docs, c.Tenants),
			fmt.Sprintf(l.t("%d enfileiramentos na execução de %s", "%d enqueues in %s's run"), a.Inserts, code(a.Design))},
		{"max attempts", l.num(int64(c.MaxAttempts)), l.num(int64(c.MaxAttempts)), l.num(int64(a.MaxAttempts))},
		{l.t("falhas", "faults"), swarmText(l, s.RiverPolicy), swarmText(l, s.GoqitePolicy),
			fmt.Sprintf(l.t("%d quedas pedidas (SIGKILL) nos pontos %s; SIGSTOP além do lease; TZ=%s; relógio do cliente %s fora", "%d kills asked for (SIGKILL) at points %s; SIGSTOP past the lease; TZ=%s; the client's clock %s off"),
				a.TargetKills, strings.Join(a.Points, ", "), a.TZ, l.dur(target.Time(a.ClientSkewMS)*target.Millisecond))},
	}
	p.table([]string{"", "River", "goqite", "asynq"}, rows)
	p.line()
	p.line(l.t("O River e o goqite rodam a mesma configuração nas mesmas sementes; o swarm de cada semente sorteia as mesmas falhas do vocabulário comum, e falhas de relógio só numa fila que declara relógios separados (`target.Policy.Clocks`).",
		"River and goqite run the same configuration on the same seeds; each seed's swarm draws the same faults of the common vocabulary, and clock faults only on a queue that declares clocks apart (`target.Policy.Clocks`)."))
}

// swarmText is a deterministic library's fault mix: the swarm, and the
// clock faults its policy takes.
func swarmText(l Lang, pol target.Policy) string {
	s := l.t("swarm: quedas, pausas, trabalho lento, erros transitórios, cancel, snooze, reenvio, redrive", "swarm: crashes, pauses, slow work, transient errors, cancel, snooze, resubmit, redrive")
	if pol.Clocks.Process {
		return s + l.t("; e relógio de um worker adiantado ou atrasado", "; and a worker's clock ahead or behind")
	}
	return s + l.t("; nenhuma falha de relógio (nenhum relógio separado declarado)", "; no clock fault (no clock apart declared)")
}

// sideGuarantees reads each library's declared policy.
func (p *page) sideGuarantees(s *Side) {
	l := p.l
	p.h2(l.t("O que cada uma garante", "What each guarantees"))
	p.line(l.t("Cada célula vem da política que o adaptador da biblioteca declara (`target.Policy`: rivertarget, goqitetarget, asynqchaos), a mesma que os oráculos leem; nenhum oráculo nomeia uma biblioteca.",
		"Each cell comes from the policy the library's adapter declares (`target.Policy`: rivertarget, goqitetarget, asynqchaos), the one the oracles read; no oracle names a library."))
	p.line()
	pols := []target.Policy{s.RiverPolicy, s.GoqitePolicy, s.Asynq.Runs[0].policy()}
	tx := []bool{true, true, asynqHas(targetsim.TxChecked)}
	row := func(name string, f func(target.Policy, bool) string) []string {
		r := []string{name}
		for i, pol := range pols {
			r = append(r, f(pol, tx[i]))
		}
		return r
	}
	rows := [][]string{
		row(l.t("lease", "lease"), func(pol target.Policy, _ bool) string { return leaseText(l, pol) }),
		row(l.t("queda entre receber e confirmar", "crash between receive and ack"), func(pol target.Policy, _ bool) string { return crashText(l, pol) }),
		row(l.t("tentativa", "attempt"), func(pol target.Policy, _ bool) string { return attemptText(l, pol) }),
		row(l.t("zumbi (congelado além do lease)", "zombie (frozen past the lease)"), func(pol target.Policy, tx bool) string { return zombieText(l, pol, tx) }),
		row(l.t("reentrega de um envio repetido", "redelivery of a repeated send"), func(pol target.Policy, _ bool) string { return uniqueText(l, pol) }),
		row(l.t("relógios", "clocks"), func(pol target.Policy, _ bool) string { return clockText(l, pol) }),
		row(l.t("transação com o handler", "transaction with the handler"), func(pol target.Policy, tx bool) string { return txText(l, pol, tx) }),
	}
	p.table([]string{"", "River", "goqite", "asynq"}, rows)
}

func leaseText(l Lang, pol target.Policy) string {
	switch {
	case pol.Lease > 0 && pol.LeaseLapses:
		return fmt.Sprintf(l.t("timeout de visibilidade de %s, que vence sozinho: o receive seguinte retoma a mensagem", "a visibility timeout of %s that runs out by itself: the next receive takes the message again"), l.dur(pol.Lease))
	case pol.Lease > 0:
		return fmt.Sprintf(l.t("lease de %s, retomado pela passada do scheduler", "a lease of %s, taken back by the scheduler's pass"), l.dur(pol.Lease))
	}
	return fmt.Sprintf(l.t("nada libera o job sozinho: ele fica `running` até um relatório, ou até a passada de resgate retomá-lo, travado há %s (RescueAfter)", "nothing frees the job by itself: it stays `running` until a report, or until the rescue pass takes it back once stuck for %s (RescueAfter)"), l.dur(pol.RescueAfter))
}

func crashText(l Lang, pol target.Policy) string {
	after := pol.RescueAfter
	if pol.Lease > 0 {
		after = pol.Lease
	}
	counted := l.t("a tentativa fica contada", "the attempt stays counted")
	if pol.Lease == 0 && pol.Rescue.Attempt == target.AttemptGivenBack {
		counted = l.t("a tentativa é devolvida", "the attempt is given back")
	}
	return fmt.Sprintf(l.t("o job volta depois de %s no mínimo e roda de novo; %s: o efeito da primeira tentativa pode existir já", "the job comes back after %s at the earliest and runs again; %s: the first attempt's effect may already exist"), l.dur(after), counted)
}

func attemptText(l Lang, pol target.Policy) string {
	snooze := l.t("um snooze devolve a tentativa", "a snooze gives the attempt back")
	if pol.Snooze == target.AttemptCounted {
		snooze = l.t("um snooze conta a tentativa", "a snooze counts the attempt")
	}
	retry := map[target.RetryRule][2]string{
		target.RetryKeepsAttempts:  {"um retry do operador mantém a contagem", "an operator's retry keeps the count"},
		target.RetryAddsAttempt:    {"um retry do operador dá mais uma", "an operator's retry gives one more"},
		target.RetryResetsAttempts: {"um redrive recomeça a contagem", "a redrive starts the count again"},
	}[pol.Retry]
	return l.t("cada busca conta uma; ", "each fetch counts one; ") + snooze + "; " + l.t(retry[0], retry[1])
}

func zombieText(l Lang, pol target.Policy, tx bool) string {
	s := l.t("a chamada de um zumbi sobre um job em curso vale como de quem o segura (sem recibo)", "a zombie's call on a running job counts as the holder's (no receipt)")
	if pol.Receipts {
		s = l.t("só a tentativa que segura o job conclui (recibos)", "only the attempt holding the job completes it (receipts)")
	}
	if !tx {
		return s + l.t("; o que o zumbi escreve no banco do handler a fila nunca vê", "; what the zombie writes to the handler's database the queue never sees")
	}
	switch pol.CompleteNotRunning {
	case target.CompletionReturnsRow:
		s += l.t("; a conclusão transacional de um job que não está mais em curso devolve a linha como está, sem erro", "; a transactional completion of a job no longer running returns the row as it is, without an error")
	case target.CompletionCompletes:
		s += l.t("; a conclusão transacional conclui a mensagem, faça ela o que fizer", "; a transactional completion completes the message whatever it is doing")
	case target.CompletionFails:
		s += l.t("; a conclusão transacional de um job que não está em curso falha", "; a transactional completion of a job no longer running fails")
	}
	if pol.DeadLetterHeld {
		s += l.t("; uma dead letter ainda é apagável por quem a recebeu", "; a dead letter is still deletable by whoever received it")
	}
	return s
}

func uniqueText(l Lang, pol target.Policy) string {
	if len(pol.UniqueStates) == 0 {
		return l.t("sem envio único: um documento enviado de novo é outro job", "no unique send: a document sent again is another job")
	}
	return fmt.Sprintf(l.t("envio único: ignorado enquanto um job igual está em %s", "unique send: skipped while a like job is in %s"), l.count(len(pol.UniqueStates), "estado", "estados", "state", "states"))
}

func clockText(l Lang, pol target.Policy) string {
	switch {
	case pol.Clocks.Process && pol.Clocks.Local:
		return l.t("o relógio de cada processo, em hora local", "each process's clock, in local time")
	case pol.Clocks.Process:
		return l.t("o relógio de cada processo, comparado com o que outros gravaram", "each process's clock, compared with what others wrote")
	}
	return l.t("nenhum relógio separado declarado", "no clock apart declared")
}

func txText(l Lang, pol target.Policy, tx bool) string {
	if !tx {
		return l.t("nenhuma: a fila não compartilha transação com o banco do handler", "none: the queue shares no transaction with the handler's database")
	}
	return l.t("a conclusão pode ir na transação do efeito", "the completion can go in the effect's transaction")
}

// verdictText is a design's cell on one library.
func verdictText(l Lang, lib string, v libVerdict) string {
	promise := l.t("ingênua", "naive")
	if v.correct {
		promise = l.t("correta", "correct")
	}
	unit := func() string {
		if lib == "asynq" {
			return l.count(v.ran, "queda", "quedas", "kill", "kills")
		}
		return l.count(v.ran, "semente", "sementes", "seed", "seeds")
	}
	switch {
	case v.caught == "" && v.correct:
		return promise + ": " + l.t("passa", "passes") + " (" + unit() + ")"
	case v.caught == "":
		return promise + ": **" + l.t("não foi pega", "not caught") + "** (" + unit() + ")"
	case lib == "asynq":
		return promise + ": " + fmt.Sprintf(l.t("pega por %s", "caught by %s"), code(v.caught)) + " (" + unit() + ")"
	}
	word := l.t("pega", "caught")
	if v.correct {
		word = l.t("**falha**", "**fails**")
	}
	return promise + ": " + fmt.Sprintf(l.t("%s na semente %d por %s", "%s at seed %d by %s"), word, v.seed, code(v.caught))
}

// sideDesigns is every handler design on each library.
func (p *page) sideDesigns(s *Side) {
	l := p.l
	p.h2(l.t("As arquiteturas de handler nas três", "The handler designs on the three"))
	p.line(l.t("Uma arquitetura é correta numa biblioteca quando promete um efeito por documento ali (`Design.CorrectOn` lê a política: sem envio único, `tx-checked` é ingênua); só as verificações dos efeitos do handler decidem o resultado. No asynq rodam só as arquiteturas que não precisam de transação com a fila.",
		"A design is correct on a library when it promises one effect per document there (`Design.CorrectOn` reads the policy: with no unique send, `tx-checked` is naive); only the checks of the handler's effects decide the verdict. On asynq only the designs that need no transaction with the queue run."))
	p.line()
	var rows [][]string
	for _, d := range targetsim.Designs() {
		r := []string{code(d.String())}
		for _, lib := range libraries {
			v, ok := s.verdict(lib, d)
			if !ok {
				r = append(r, "–")
				continue
			}
			r = append(r, verdictText(l, lib, v))
		}
		rows = append(rows, r)
	}
	p.table([]string{l.t("arquitetura", "design"), "River", "goqite", "asynq"}, rows)
	p.line()
	p.line(s.designSentence(l))
}

// designSentence counts, per library, the correct designs that pass and
// the naive ones caught.
func (s *Side) designSentence(l Lang) string {
	var parts []string
	for _, lib := range libraries {
		var correct, passed, naive, caught int
		for _, d := range targetsim.Designs() {
			v, ok := s.verdict(lib, d)
			switch {
			case !ok:
			case v.correct:
				correct++
				if v.caught == "" {
					passed++
				}
			default:
				naive++
				if v.caught != "" {
					caught++
				}
			}
		}
		parts = append(parts, fmt.Sprintf(l.t("no %s, **%d** das **%d** corretas passam e **%d** das **%d** ingênuas são pegas", "on %s, **%d** of the **%d** correct designs pass and **%d** of the **%d** naive ones are caught"),
			lib, passed, correct, caught, naive))
	}
	return capitalize(strings.Join(parts, "; ")) + "."
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sideFindings is what durasim found in each library.
func (p *page) sideFindings(s *Side) {
	l := p.l
	p.h2(l.t("O que o durasim achou", "What durasim found"))
	p.line(l.t("Cada achado com a verificação que o mostra, a semente e o plano reduzido da execução que o mostra (quando há uma), o comando que a repete, e o teste Go simples, contra a biblioteca sozinha (sem o durasim), que o reproduz. A descrição de cada achado é texto fixo; a verificação, a semente e o plano vêm da execução.",
		"Each finding with the check that shows it, the seed and shrunk plan of the run that shows it (where there is one), the command that replays it, and the plain Go test, against the library alone (no durasim), that reproduces it. Each finding's description is fixed text; the check, the seed and the plan come from the run."))
	p.line()
	var rows [][]string
	for _, f := range s.Findings {
		check, seed, plan, replay := "–", "–", "–", "–"
		if f.Check != "" {
			check = code(f.Check)
			if !f.Shown {
				check = "✗ " + check
			}
		}
		if f.Run != nil {
			seed, replay = fmt.Sprint(f.Run.Seed), code(f.Replay)
			plan = fmt.Sprintf("%s; %s, %s", code(f.Config.Plan.OneLine()), l.count(docCount(f.Config), "documento", "documentos", "document", "documents"),
				l.count(f.Config.Workers, "worker", "workers", "worker", "workers"))
		}
		repro := code(f.Repro) + " (" + f.Module + ")"
		if f.Repro == "" {
			repro = l.t("nenhum sem o durasim", "none without durasim") + "; " + l.t("o teste do durasim ", "durasim's test ") + code(f.Test) + " (" + f.Module + ")"
		}
		rows = append(rows, []string{f.Lib, l.t(f.What[0], f.What[1]), check, seed, plan, l.t(f.From[0], f.From[1]), repro, replay})
	}
	p.table([]string{l.t("biblioteca", "library"), l.t("achado", "finding"), l.t("verificação", "check"), l.t("semente", "seed"),
		l.t("plano reduzido", "shrunk plan"), l.t("de onde vem", "where it comes from"), l.t("teste Go simples", "plain Go test"), l.t("repetir", "replay")}, rows)
	p.line()
	p.line(s.findingSentence(l))
	p.sideOwn(s)
}

// findingSentence counts the findings per library, those shown by a run
// of this report, and those with a plain Go test.
func (s *Side) findingSentence(l Lang) string {
	var per []string
	runs, repro := 0, 0
	for _, lib := range libraries {
		n := 0
		for _, f := range s.Findings {
			if f.Lib == lib {
				n++
			}
		}
		per = append(per, fmt.Sprintf(l.t("**%d** no %s", "**%d** in %s"), n, lib))
	}
	for _, f := range s.Findings {
		if f.Run != nil && f.Shown {
			runs++
		}
		if f.Repro != "" {
			repro++
		}
	}
	return fmt.Sprintf(l.t("%s: %s; %s com a verificação quebrada por uma execução deste relatório, %s com um teste Go simples contra a biblioteca sozinha.",
		"%s: %s; %s with its check broken by a run of this report, %s with a plain Go test against the library alone."),
		l.bold(len(s.Findings), "achado", "achados", "finding", "findings"), l.list(per),
		l.bold(runs, "achado", "achados", "finding", "findings"), l.bold(repro, "achado", "achados", "finding", "findings"))
}

// ownRow is a library's runs and, per check of the queue's own
// guarantees (queueChecks order), the runs that broke it (-1: the check
// does not run on it).
type ownRow struct {
	lib  string
	runs int
	bad  []int
}

// ownRows are the libraries' own-guarantees rows: the deterministic
// libraries' sweeps (a seed counted once per design), asynq's recorded
// runs.
func (s *Side) ownRows() []ownRow {
	var rows []ownRow
	for i, sweeps := range [][]DesignSweep{s.River.Designs, s.GoqiteSweeps} {
		r := ownRow{lib: libraries[i], bad: make([]int, len(queueChecks()))}
		for _, sw := range sweeps {
			r.runs += sw.Ran
			for j, name := range queueChecks() {
				r.bad[j] += len(sw.Queue[name])
			}
		}
		rows = append(rows, r)
	}
	r := ownRow{lib: "asynq", runs: len(s.Asynq.Runs)}
	for _, name := range queueChecks() {
		n := 0
		for _, run := range s.Asynq.Runs {
			if run.Violations[name] > 0 {
				n++
			}
		}
		if !slices.Contains(s.Asynq.Runs[0].Checked, name) {
			n = -1
		}
		r.bad = append(r.bad, n)
	}
	return append(rows, r)
}

// sideOwn is the own-guarantees table and the sentence that sums it up.
func (p *page) sideOwn(s *Side) {
	l := p.l
	p.h3(l.t("As garantias próprias de cada fila", "Each queue's own guarantees"))
	p.line(l.t("Execuções em que uma verificação que não julga o handler falhou — um achado sobre a fila, qualquer que seja o handler:",
		"Runs in which a check that does not judge the handler failed — a finding about the queue, whatever the handler:"))
	p.line()
	head := []string{l.t("biblioteca", "library"), l.t("execuções", "runs")}
	for _, name := range queueChecks() {
		head = append(head, code(name))
	}
	var rows [][]string
	var parts []string
	for _, r := range s.ownRows() {
		cells := []string{r.lib, l.num(int64(r.runs))}
		var broke []string
		for j, name := range queueChecks() {
			if r.bad[j] < 0 {
				cells = append(cells, l.t("não roda", "not run"))
				continue
			}
			cells = append(cells, l.num(int64(r.bad[j])))
			if r.bad[j] > 0 {
				broke = append(broke, fmt.Sprintf("**%d** %s %s", r.bad[j], l.plural(r.bad[j], "quebra", "quebram", "breaks", "break"), code(name)))
			}
		}
		rows = append(rows, cells)
		own := l.t("nenhuma quebra uma delas", "none breaks one")
		if len(broke) > 0 {
			own = l.list(broke)
		}
		parts = append(parts, fmt.Sprintf(l.t("no %s, das %s, %s", "on %s, of its %s, %s"), r.lib, l.bold(r.runs, "execução", "execuções", "run", "runs"), own))
	}
	p.table(head, rows)
	p.line()
	p.line(capitalize(strings.Join(parts, "; ")) + ".")
}

// sideHandlers is what a handler must add on each library, from its
// policy, with the designs that pass there.
func (p *page) sideHandlers(s *Side) {
	l := p.l
	p.h2(l.t("O que o handler precisa acrescentar", "What a handler must add"))
	pols := []target.Policy{s.RiverPolicy, s.GoqitePolicy, s.Asynq.Runs[0].policy()}
	tx := []bool{true, true, asynqHas(targetsim.TxChecked)}
	for i, lib := range libraries {
		var needs []string
		pol := pols[i]
		if !tx[i] {
			needs = append(needs, l.t("uma chave única que nomeia o tenant, gravada na mesma transação do banco que o efeito (a fila não compartilha transação com ele)", "a unique key that names the tenant, written in the same database transaction as the effect (the queue shares no transaction with it)"))
		}
		if len(pol.UniqueStates) == 0 && tx[i] {
			needs = append(needs, l.t("deduplicar por uma chave de idempotência que nomeia o tenant (sem envio único, um documento reenviado é outro job)", "deduplicate by an idempotency key that names the tenant (with no unique send, a document sent again is another job)"))
		}
		if tx[i] && !pol.Receipts && pol.CompleteNotRunning != target.CompletionFails {
			needs = append(needs, l.t("concluir na transação do efeito e conferir que a conclusão é da própria tentativa (sem recibo, a conclusão de um zumbi ou de um job retomado não falha)", "complete in the effect's transaction and check the completion is its own attempt's (with no receipt, a zombie's completion or one of a job taken back does not fail)"))
		}
		if pol.JobTimeout > 0 {
			needs = append(needs, fmt.Sprintf(l.t("não contar com o cancelamento do contexto (%s) para parar um zumbi", "not rely on the context's cancellation (%s) to stop a zombie"), l.dur(pol.JobTimeout)))
		}
		var pass []string
		for _, d := range targetsim.Designs() {
			if v, ok := s.verdict(lib, d); ok && v.correct && v.caught == "" {
				pass = append(pass, code(d.String()))
			}
		}
		p.line(fmt.Sprintf(l.t("- **%s**: %s. Passam aqui: %s.", "- **%s**: %s. Pass here: %s."), lib, strings.Join(needs, "; "), l.list(pass)))
	}
}

// sideAsynq is where the asynq figures come from, run by run.
func (p *page) sideAsynq(s *Side) {
	l := p.l
	rec := s.Asynq
	p.h2(l.t("De onde vêm os números do asynq", "Where the asynq figures come from"))
	p.line(fmt.Sprintf(l.t("De %s, gravado em %s por `%s` (asynq %s, um redis-server descartável, o banco dos handlers no PostgreSQL): uma execução `chaos -target asynq` por arquitetura, todas com a mesma configuração. `make asynq-record` grava de novo. Os tempos são de relógio real: duas gravações diferem.",
		"From %s, recorded %s by `%s` (asynq %s, a throwaway redis-server, the handlers' database on PostgreSQL): one `chaos -target asynq` run per design, all with one configuration. `make asynq-record` records it again. Times are wall-clock: two recordings differ."),
		code(AsynqFile), rec.recordedDate(), rec.Command, code(rec.Asynq)))
	p.line()
	var rows [][]string
	for _, r := range rec.Runs {
		var kills []string
		for _, pt := range r.Points {
			kills = append(kills, fmt.Sprintf("%s %d", pt, r.Kills[pt]))
		}
		failed := l.t("nenhuma", "none")
		var names []string
		for _, name := range r.Checked {
			if n := r.Violations[name]; n > 0 {
				names = append(names, fmt.Sprintf("%s (%d)", code(name), n))
			}
		}
		if len(names) > 0 {
			failed = strings.Join(names, ", ")
		}
		rows = append(rows, []string{code(r.Design), l.num(int64(r.kills())), strings.Join(kills, ", "), l.num(int64(r.Takeovers)), l.num(int64(r.Exposures)),
			l.num(int64(r.ZombieWrites)), l.num(int64(r.Completed)), l.num(int64(r.Duplicate)), l.num(int64(r.Missing)), failed})
	}
	p.table([]string{l.t("arquitetura", "design"), l.t("quedas", "kills"), l.t("por ponto", "per point"), l.t("zumbis retomados", "zombies taken over"),
		l.t("sobreposições", "overlaps"), l.t("gravações de zumbi", "zombie writes"), l.t("documentos concluídos", "documents completed"),
		l.t("com mais de um efeito", "with more than one effect"), l.t("sem efeito", "with none"), l.t("verificações violadas", "checks violated")}, rows)
	p.line()
	p.line(s.asynqSentence(l))
}

// asynqSentence sums the recorded runs up.
func (s *Side) asynqSentence(l Lang) string {
	var kills, takeovers, exposures, zombie int
	for _, r := range s.Asynq.Runs {
		kills += r.kills()
		takeovers += r.Takeovers
		exposures += r.Exposures
		zombie += r.ZombieWrites
	}
	a := s.Asynq.Runs[0]
	return fmt.Sprintf(l.t("Nas %s gravadas, %s e %s em que o recoverer do asynq deu a tarefa de um processo congelado a outro; dois processos tiveram a mesma tarefa %s, e um escreveu depois da busca do outro %s. Os filhos rodaram com TZ=%s (zonas registradas: %s) e o cliente agendou com o relógio %s fora: o asynq guarda tempos Unix, e nenhuma verificação muda por isso.",
		"In the %s recorded, %s and %s in which asynq's recoverer gave a frozen process's task to another; two processes held one task %s, and one wrote after the other's fetch %s. The children ran with TZ=%s (zones recorded: %s) and the client scheduled with its clock %s off: asynq keeps Unix times, and no check moves for it."),
		l.bold(len(s.Asynq.Runs), "execução", "execuções", "run", "runs"), l.bold(kills, "queda", "quedas", "kill", "kills"),
		l.bold(takeovers, "congelamento", "congelamentos", "freeze", "freezes"), l.bold(exposures, "vez", "vezes", "time", "times"),
		l.bold(zombie, "vez", "vezes", "time", "times"), a.TZ, a.zoneList(l), l.dur(target.Time(a.ClientSkewMS)*target.Millisecond))
}

// sideReproduce lists the commands that rerun the report's runs, and
// its checks.
func (p *page) sideReproduce(s *Side) {
	l := p.l
	rv := s.River
	p.h2(l.t("Como reproduzir", "How to reproduce"))
	p.line("```sh")
	p.line(fmt.Sprintf("go run ./cmd/durasim mutants -target river -seeds 1:%d", rv.Seeds))
	p.line(fmt.Sprintf("go run ./cmd/durasim mutants -target goqite -seeds 1:%d", rv.Seeds))
	for _, d := range targetsim.Designs() {
		if !d.CorrectOn(s.GoqitePolicy) {
			continue
		}
		p.line(fmt.Sprintf("go run ./cmd/durasim run -target goqite -seeds 1:%d -design %s", rv.Seeds, d))
	}
	p.line("go run ./cmd/durasim mutants -target asynq          ", l.t("# processos reais: precisa de $DURASIM_PG_URL e redis-server", "# real processes: needs $DURASIM_PG_URL and redis-server"))
	p.line("make asynq-record                                  ", l.t("# grava de novo ", "# records ")+AsynqFile)
	p.line("make river-repro goqite-repro asynq-repro          ", l.t("# os testes Go simples", "# the plain Go tests"))
	p.line("```")
	p.checkTable(s.checks(l))
}
