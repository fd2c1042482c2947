package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

// page accumulates one Markdown report.
type page struct {
	strings.Builder
	l    Lang
	site *siteParts // nil: the Markdown report; else its page of the site (site.go)
}

func (p *page) line(parts ...string) {
	for _, s := range parts {
		p.WriteString(s)
	}
	p.WriteByte('\n')
}

func (p *page) h2(title string) { p.line("\n## ", title, "\n") }
func (p *page) h3(title string) { p.line("\n### ", title, "\n") }

// table writes a Markdown table; cells are escaped.
func (p *page) table(head []string, rows [][]string) {
	p.line("| ", strings.Join(escapeAll(head), " | "), " |")
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
	}
	p.line("|", strings.Join(seps, "|"), "|")
	for _, r := range rows {
		p.line("| ", strings.Join(escapeAll(r), " | "), " |")
	}
}

func escapeAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = cell(x)
	}
	return out
}

// render writes the report; with site parts, the Markdown the site's page
// is converted from (see site.go).
func (b *Built) render(l Lang, charts []chartFile, w Written, site *siteParts) string {
	p := &page{l: l, site: site}
	s := b.Scenario
	p.line("# ", l.pick(s.Title))
	p.line()
	p.line(b.header(l, w))
	p.verdict(b)
	p.h2(l.t("O que o capítulo afirma", "What the chapter claims"))
	p.line(l.pick(s.Claim))
	for _, src := range s.Sources {
		p.line()
		p.line("> «", src.Quote, "»")
		p.line(">")
		p.line("> — ", l.pick(src.Seed.Title()), l.t(" (documento do curso seed ", " (course document seed "), src.Seed.Number(), "), ", l.pick(src.Section))
	}
	p.line()
	p.line(l.t("*(\"seed 000\", \"seed 003\" e \"seed 004\" são os nomes dos documentos do curso; a semente da simulação, na configuração abaixo, é outra coisa: o número do qual sai todo sorteio da execução.)*",
		"*(The course documents are in Portuguese; quotes are kept verbatim. \"Seed 000\", \"seed 003\" and \"seed 004\" name the course documents; the simulation seed in the setup below is another thing: the number every draw of the run comes from.)*"))
	p.h2(l.t("O que a simulação faz", "What the simulation does"))
	p.line(l.pick(s.Story))
	if s.Limits != (scenarios.Text{}) {
		p.line()
		p.line("**", l.t("O que isto não mostra.", "What this does not show."), "** ", l.pick(s.Limits))
	}
	if s.Simulated() {
		p.setup(b)
	}
	p.outcomes(b)
	p.checks(b)
	if s.Simulated() {
		p.invariantTable(b)
	}
	p.counterexamples(b)
	if s.Simulated() {
		p.metrics(b)
	}
	p.chartSection(charts, b.chartNotes(l))
	if s.Simulated() {
		p.robustness(b)
	}
	p.reproduce(b)
	return p.String()
}

func (p *page) verdict(b *Built) {
	held, total := b.Held()
	p.verdictLine(b.Passed(), held, total,
		p.l.t("a arquitetura correta se comporta como o capítulo diz e cada variante ingênua falha como ele diz",
			"the correct design behaves as the chapter says and each naive variant fails as it says"))
}

// verdictLine is a report's opening verdict: holds (with what holding
// means for this report) or does not, and how many of its checks hold.
func (p *page) verdictLine(passed bool, held, total int, holds string) {
	l := p.l
	checks := l.count(total, "verificação", "verificações", "check", "checks")
	p.line()
	if passed {
		p.line("> **", l.t("Resultado: confere", "Verdict: holds"), "** — ", holds,
			" (", fmt.Sprint(held), l.t(" de ", " of "), checks, ").")
		return
	}
	p.line("> **", l.t("Resultado: NÃO confere", "Verdict: does NOT hold"), "** — ",
		fmt.Sprint(held), l.t(" de ", " of "), checks,
		l.t(" valem; veja as marcadas com ✗ abaixo.", " hold; see the ones marked ✗ below."))
}

// reportCheck is one check of a target report (the River report, the
// side-by-side one) and its result.
type reportCheck struct {
	says string // in the language the checks were listed in
	ok   bool
	got  string // what failed, when it did
}

// heldOf counts the checks that held, and all of them.
func heldOf(checks []reportCheck) (held, total int) {
	for _, c := range checks {
		total++
		if c.ok {
			held++
		}
	}
	return held, total
}

// checkTable is a target report's checks: what must hold, and ✓ or what
// failed.
func (p *page) checkTable(checks []reportCheck) {
	l := p.l
	p.h3(l.t("Verificações", "Checks"))
	var rows [][]string
	for _, c := range checks {
		mark := "✓"
		if !c.ok {
			mark = "✗ " + code(c.got)
		}
		rows = append(rows, []string{c.says, mark})
	}
	p.table([]string{l.t("o que deve valer", "what must hold"), l.t("resultado", "result")}, rows)
}

// setup is the configuration table, and what each arm changes.
func (p *page) setup(b *Built) {
	l := p.l
	s := b.Scenario
	c := s.Config()
	m := c.Model
	p.h2(l.t("Configuração", "Setup"))
	queue := l.t("sem ordem (qualquer job visível)", "unordered (any visible job)")
	if m.Ordered {
		queue = l.t("estritamente ordenada (FIFO)", "strictly ordered (FIFO)")
	}
	rows := [][]string{
		{l.t("semente da simulação", "simulation seed"), fmt.Sprint(s.Seed)},
		{l.t("documentos", "documents"), fmt.Sprint(c.Docs)},
		{l.t("workers", "workers"), fmt.Sprint(c.Workers)},
		{l.t("tenants", "tenants"), fmt.Sprint(c.Tenants)},
		{l.t("intervalo médio entre chegadas", "mean gap between arrivals"), l.dur(c.ArrivalGap)},
		{"lease", l.dur(m.Lease)},
		{"heartbeat", l.t("a cada ", "every ") + l.dur(m.HeartbeatEvery)},
		{"maxAttempts", fmt.Sprint(m.MaxAttempts)},
		{"backoff", fmt.Sprintf("%s, base %s, %s %s", m.Retry.Strategy, l.dur(m.Retry.Base), l.t("teto", "cap"), l.dur(m.Retry.Cap))},
		{"deadline", l.dur(m.Deadline)},
		{l.t("orçamento de tokens por job", "token budget per job"), l.num(m.TokenBudget)},
		{l.t("fila", "queue"), queue},
		{l.t("disjuntor", "circuit breaker"), breakerText(l, m.Breaker)},
		{l.t("reprocesso por tenant", "reprocess per tenant"), bucketText(l, m.Reprocess)},
		{l.t("redrive em lote", "bulk redrive"), bucketText(l, m.Redrive)},
	}
	if len(c.Resubmit) > 0 {
		rows = append(rows, []string{l.t("documentos reenviados pelo cliente", "documents the client submits twice"), joinInts(c.Resubmit)})
	}
	plan := c.Plan.String()
	if plan == "" {
		plan = l.t("(nenhuma falha)", "(no faults)")
	} else if c.Plan.Len() > 6 {
		plan = fmt.Sprintf(l.t("%d falhas (abaixo)", "%d faults (below)"), c.Plan.Len())
	} else {
		plan = strings.ReplaceAll(strings.TrimSpace(plan), "\n", "; ")
	}
	rows = append(rows, []string{l.t("plano de falhas", "fault plan"), plan})
	p.table([]string{l.t("parâmetro", "setting"), l.t("valor", "value")}, rows)
	if c.Plan.Len() > 6 {
		p.line()
		p.line("```")
		p.WriteString(c.Plan.String())
		p.line("```")
	}
	p.line()
	if q, ok := quiesceAt(b); ok {
		p.line(fmt.Sprintf(l.t("As falhas param quando começa a fase de quiescência, depois que todos os documentos chegaram (em %s na variante %s); o sistema tem então tempo para drenar, e os invariantes de liveness são verificados.",
			"Faults stop when the quiescence phase begins, once every document has arrived (at %s in arm %s); the system then gets time to drain, and the liveness invariants are checked."), l.dur(q), b.Outcomes[0].Arm.Name()))
	}
	p.armTable(b)
}

func breakerText(l Lang, c model.BreakerConfig) string {
	if c.MinSamples >= 1<<20 {
		return l.t("desligado", "off")
	}
	return fmt.Sprintf(l.t("janela %d, mínimo %d, abre com %s de falhas, espera %s e admite %d canários", "window %d, at least %d, opens at %s failures, waits %s and admits %d canaries"),
		c.Window, c.MinSamples, l.percent(c.ThresholdPPM, 1_000_000), l.dur(c.Cooldown), c.Canaries)
}

func bucketText(l Lang, c model.BucketConfig) string {
	return fmt.Sprintf(l.t("%d de uma vez, +1 a cada %s", "%d at once, +1 every %s"), c.Capacity, l.dur(c.Refill))
}

func joinInts(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// armTable lists the arms: design, what it stands for, what it changes.
func (p *page) armTable(b *Built) {
	l := p.l
	base := b.Scenario.Config()
	rows := [][]string{}
	for _, o := range b.Outcomes {
		rows = append(rows, []string{o.Arm.Name(), code(o.Arm.Variant), l.pick(o.Arm.Says), armChanges(l, base, o)})
	}
	p.line()
	p.table([]string{l.t("variante", "arm"), l.t("arquitetura", "design"), l.t("o que representa", "what it stands for"), l.t("muda na configuração", "config change")}, rows)
}

// quiesceAt is when the first simulated arm's quiescence phase began.
func quiesceAt(b *Built) (model.Time, bool) {
	o := &b.Outcomes[0]
	if o.Result == nil {
		return 0, false
	}
	for i := range o.Result.History {
		if e := &o.Result.History[i]; e.Kind == model.EvPhase && e.Text == "quiesce" {
			return e.At, true
		}
	}
	return 0, false
}

// armChanges says how an arm's config differs from the scenario's.
func armChanges(l Lang, base sim.Config, o scenarios.Outcome) string {
	if o.Result == nil {
		return "–"
	}
	c := o.Config
	var ch []string
	for _, s := range diffSettings(c, base) {
		switch s {
		case "Variant", "KeepTrace":
		case "Workers":
			ch = append(ch, fmt.Sprintf("workers = %d", c.Workers))
		case "Model.Retry.Strategy":
			ch = append(ch, "backoff = "+c.Model.Retry.Strategy.String())
		case "Model.Breaker":
			ch = append(ch, l.t("disjuntor: ", "breaker: ")+breakerText(l, c.Model.Breaker))
		case "Model.Ordered":
			ch = append(ch, fmt.Sprintf("ordered = %v", c.Model.Ordered))
		default:
			ch = append(ch, settingName(l, s))
		}
	}
	if len(ch) == 0 {
		return "–"
	}
	return strings.Join(ch, "; ")
}

func mapArms(b *Built, f func(o *scenarios.Outcome) string) []string {
	out := make([]string, len(b.Outcomes))
	for i := range b.Outcomes {
		out[i] = f(&b.Outcomes[i])
	}
	return out
}

// violationSummary lists the broken invariants with their counts.
func violationSummary(l Lang, r *sim.Result) string {
	if !r.Failed() {
		return l.t("nenhuma", "none")
	}
	var parts []string
	for _, name := range invariants.Names() {
		if n := countViolations(r, name); n > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d)", name, n))
		}
	}
	return strings.Join(parts, ", ")
}

func countViolations(r *sim.Result, name string) int {
	n := 0
	for _, v := range r.Violations {
		if v.Invariant == name {
			n++
		}
	}
	return n
}

func (p *page) customOutcomes(b *Built, head []string) {
	l := p.l
	var rows [][]string
	first := b.Outcomes[0].Custom
	for i, f := range first.Facts {
		row := []string{l.pick(f.Says)}
		for _, o := range b.Outcomes {
			row = append(row, l.num(o.Custom.Facts[i].Value))
		}
		rows = append(rows, row)
	}
	rows = append(rows, append([]string{l.t("veredito", "verdict")}, mapArms(b, func(o *scenarios.Outcome) string { return l.pick(o.Custom.Verdict) })...))
	p.table(head, rows)
}

// checks lists every check of every arm with its result.
func (p *page) checks(b *Built) {
	l := p.l
	p.h3(l.t("Verificações", "Checks"))
	var rows [][]string
	for _, o := range b.Outcomes {
		if o.Missing != "" {
			rows = append(rows, []string{o.Arm.Name(), fmt.Sprintf(l.t("a variante %q ainda não existe: não rodou", "variant %q is not registered yet: the arm did not run"), o.Missing), "✗"})
		}
		for _, c := range o.Checks {
			mark := "✓"
			if c.Err != nil {
				mark = "✗ " + code(c.Err.Error())
			}
			rows = append(rows, []string{o.Arm.Name(), l.pick(c.Check.Says), mark})
		}
	}
	p.table([]string{l.t("variante", "arm"), l.t("o que deve valer", "what must hold"), l.t("resultado", "result")}, rows)
}

// invariantTable is the checklist of every invariant, held or broken, per
// arm.
func (p *page) invariantTable(b *Built) {
	l := p.l
	p.h2(l.t("Invariantes", "Invariants"))
	p.line(l.t("Cada invariante é verificado sobre o histórico completo de cada variante: segurança durante a execução, liveness depois que o sistema drena.",
		"Every invariant is checked over each arm's full history: safety as the run goes, liveness once the system has drained."))
	p.line()
	head := []string{l.t("invariante", "invariant")}
	for _, o := range b.Outcomes {
		head = append(head, o.Arm.Name())
	}
	var rows [][]string
	for _, name := range invariants.Names() {
		row := []string{code(name)}
		for _, o := range b.Outcomes {
			switch {
			case o.Result == nil:
				row = append(row, "–")
			case countViolations(o.Result, name) > 0:
				row = append(row, fmt.Sprintf(l.t("**violado** (%d)", "**broken** (%d)"), countViolations(o.Result, name)))
			default:
				row = append(row, l.t("mantido", "held"))
			}
		}
		rows = append(rows, row)
	}
	p.table(head, rows)
}

// counterexamples shows, per naive arm, its minimal counterexample (or,
// for a custom arm, its transcript).
func (p *page) counterexamples(b *Built) {
	l := p.l
	for i, o := range b.Outcomes {
		if o.Custom != nil && o.Arm.Naive() {
			p.h2(l.t("O contraexemplo: ", "The counterexample: ") + o.Arm.Name())
			p.line(l.pick(o.Custom.Verdict))
			p.line()
			var rows [][]string
			for k, t := range o.Custom.Transcript {
				rows = append(rows, []string{fmt.Sprint(k + 1), code(t)})
			}
			p.table([]string{"", l.t("passo", "step")}, rows)
			p.line()
			p.diagram(customArrows(o.Custom.Messages, l), nil)
			continue
		}
		c := b.Counter[i]
		if c == nil {
			continue
		}
		p.counterexample(o, c)
	}
	if b.Path != nil {
		p.jobPath(b)
	}
}

// jobPath shows one job's way through the contrasting arm when no arm
// breaks an invariant.
func (p *page) jobPath(b *Built) {
	l := p.l
	o := b.Outcomes[b.Path.Arm]
	p.h2(l.t("O caminho de um job: j1 na variante ", "One job's path: j1 in arm ") + o.Arm.Name())
	p.line(l.t("Nenhuma variante deste cenário viola um invariante: o contraste está nos números (métricas e gráficos abaixo). Este é o caminho do primeiro job na variante de contraste",
		"No arm of this scenario breaks an invariant: the contrast is in the numbers (metrics and charts below). This is the first job's path through the contrasting arm"),
		fmt.Sprintf(l.t(" (até %d eventos; mudanças do disjuntor incluídas).", " (up to %d events; breaker changes included)."), maxPath))
	p.line()
	p.eventTable(b.Path.Events, nil)
	p.line()
	arrows := make([]arrow, len(b.Path.Events))
	for i := range b.Path.Events {
		arrows[i] = eventArrow(&b.Path.Events[i])
	}
	p.diagram(arrows, nil)
}

// diagram writes a sequence diagram: a Mermaid block in the Markdown, SVG
// drawn by this package on the site.
func (p *page) diagram(arrows []arrow, named map[uint64]bool) {
	if p.site == nil {
		p.WriteString(mermaid(arrows))
		return
	}
	p.WriteString(p.site.add(p.site.diagram(arrows, named)))
}

// eventTable lists events; those in named are marked.
func (p *page) eventTable(events []model.Event, named map[uint64]bool) {
	l := p.l
	var rows [][]string
	for i, e := range events {
		mark := ""
		if named[e.Seq] {
			mark = "◀"
		}
		rows = append(rows, []string{l.dur(e.At), fmt.Sprint(e.Seq), e.Actor.String(), code(e.Kind.String()), code(strings.TrimSpace(detailText(&events[i]))), mark})
	}
	p.table([]string{"t", "#", l.t("ator", "actor"), l.t("evento", "event"), l.t("detalhes", "details"), ""}, rows)
}

func (p *page) counterexample(o scenarios.Outcome, c *Counterexample) {
	l := p.l
	sh := c.Shrunk
	cfg := sh.Config
	p.h2(l.t("Contraexemplo mínimo: ", "Minimal counterexample: ") + o.Arm.Name())
	p.line(fmt.Sprintf(l.t("O shrinker rodou %s e reduziu a execução a %s, que ainda violam %s:",
		"The shrinker ran %s and reduced the run to %s, which still break %s:"),
		l.count(sh.Runs, "simulação", "simulações", "simulation", "simulations"), l.list([]string{
			l.count(cfg.Plan.Len(), "falha", "falhas", "fault", "faults"),
			l.count(int(cfg.DocCount()), "documento", "documentos", "document", "documents"),
			l.count(int(cfg.Workers), "worker", "workers", "worker", "workers"),
			l.count(int(cfg.Tenants), "tenant", "tenants", "tenant", "tenants"),
			l.count(int(sh.Result.Events), "evento", "eventos", "event", "events"),
		}), code(sh.Invariant)))
	p.line()
	p.violationQuote(c.Violation)
	p.line()
	plan := cfg.Plan.String()
	if plan == "" {
		plan = l.t("(nenhuma falha: o erro aparece sem ajuda)\n", "(no fault: the mistake shows on its own)\n")
	}
	p.line(l.t("Plano reduzido:", "Shrunk plan:"))
	p.line()
	p.line("```")
	p.WriteString(plan)
	p.line("```")
	p.line()
	p.line(l.t("A linha do tempo abaixo é o caminho crítico: os eventos do job envolvido, os eventos que a violação cita e toda queda, pausa e falha injetada.",
		"The timeline below is the critical path: the events of the job involved, the events the violation names, and every crash, pause and injected fault."))
	p.line()
	named := map[uint64]bool{}
	for _, seq := range c.Violation.Events {
		named[seq] = true
	}
	p.eventTable(c.Events, named)
	p.line()
	p.line(l.t("◀ marca os eventos que a violação cita.", "◀ marks the events the violation names."))
	p.line()
	arrows := make([]arrow, len(c.Events))
	for i := range c.Events {
		arrows[i] = eventArrow(&c.Events[i])
	}
	p.diagram(arrows, named)
	if p.site != nil {
		p.WriteString(p.site.add(p.site.timeline(o.Arm.Name(), c)))
	}
}

// violationQuote writes a violation as the report's key sentence, a
// quote: in the report's language, with the English original (the
// message the invariant wrote, as the CLI prints it) a click away.
func (p *page) violationQuote(v invariants.Violation) {
	p.line("> ", code(p.l.violation(v)))
	if orig := p.original(v, "> "); orig != "" {
		p.line(">")
		p.WriteString(orig)
	}
}

// violationItem writes a violation as an item of a list headed by head,
// as violationQuote does.
func (p *page) violationItem(head string, v invariants.Violation) {
	p.line("- ", head, code(p.l.violation(v)))
	if orig := p.original(v, "  "); orig != "" {
		p.line()
		p.WriteString(orig)
		p.line()
	}
}

// original is v's English text in a closed <details>, each line after
// prefix; "" in English, where the text is the original.
func (p *page) original(v invariants.Violation, prefix string) string {
	if p.l == En {
		return ""
	}
	return prefix + "<details><summary>" + p.l.t("original em inglês", "original") + "</summary>\n" + strings.TrimRight(prefix, " ") + "\n" +
		prefix + code(v.String()) + "\n" + strings.TrimRight(prefix, " ") + "\n" + prefix + "</details>\n"
}

// detailText is the event's trace text after its kind and actor.
func detailText(e *model.Event) string {
	c := *e
	c.Actor = model.Actor{}
	return strings.TrimPrefix(c.String(), e.Kind.String())
}

// metrics summarises the per-document numbers of each arm.
func (p *page) metrics(b *Built) {
	l := p.l
	p.h2(l.t("Métricas", "Metrics"))
	p.line(l.t("Os três números de cada documento ficam separados (capítulo 4): espera na fila (do enqueue ao primeiro lease), inferência (soma das latências de extração em todas as tentativas) e espera por revisão (do commit do estágio review até a entrada chegar ao operador).",
		"Each document's three numbers are kept apart (chapter 4): queue wait (from enqueue to first lease), inference (the sum of extraction latencies over all attempts) and review wait (from the review stage's commit until the entry reaches the operator)."))
	p.line()
	head := []string{l.t("variante", "arm"), l.t("espera na fila: média / máx.", "queue wait: mean / max"), l.t("inferência: média / máx.", "inference: mean / max"),
		l.t("espera por revisão: média / máx.", "review wait: mean / max"), l.t("profundidade máx.", "peak depth"), l.t("chamadas/s máx.", "peak calls/s")}
	var rows [][]string
	for _, o := range b.simOutcomes() {
		m := &o.Result.Metrics
		qw, inf, rw := stats(m.Docs, func(d *sim.DocMetrics) model.Time { return d.QueueWait }),
			stats(m.Docs, func(d *sim.DocMetrics) model.Time { return d.Inference }),
			stats(m.Docs, func(d *sim.DocMetrics) model.Time { return d.ReviewWait })
		rows = append(rows, []string{o.Arm.Name(), l.dur(qw[0]) + " / " + l.dur(qw[1]), l.dur(inf[0]) + " / " + l.dur(inf[1]),
			l.dur(rw[0]) + " / " + l.dur(rw[1]), fmt.Sprint(maxOf(m.QueueDepth)), fmt.Sprint(maxOf(m.CallsPerSecond))})
	}
	p.table(head, rows)
	var cut []string
	for _, o := range b.simOutcomes() {
		if n := len(o.Result.Metrics.Docs); n > maxDocRows {
			cut = append(cut, fmt.Sprintf("%s (%s)", o.Arm.Name(), l.count(n, "job", "jobs", "job", "jobs")))
			continue
		}
		p.docTable(o)
	}
	if len(cut) > 0 {
		p.line()
		p.line(fmt.Sprintf(l.t("A tabela por documento fica de fora quando a variante tem mais de %d jobs, para o relatório continuar legível: %s. As médias e máximos acima e os gráficos abaixo cobrem todos os jobs.",
			"The per-document table is left out when an arm has more than %d jobs, to keep the report readable: %s. The means and maxima above and the charts below cover every job."), maxDocRows, l.list(cut)))
	}
}

// maxDocRows is the most jobs a per-document table lists.
const maxDocRows = 24

// docTable lists one arm's jobs with their three numbers, and says which
// jobs are reprocess versions rather than documents.
func (p *page) docTable(o *scenarios.Outcome) {
	l := p.l
	p.h3(l.t("Por documento — ", "Per document — ") + o.Arm.Name())
	var rows [][]string
	for _, d := range o.Result.Metrics.Docs {
		rows = append(rows, []string{d.Job.String(), d.Tenant, code(d.Document), l.dur(d.QueueWait), l.dur(d.Inference), l.dur(d.ReviewWait),
			fmt.Sprint(d.Attempts), fmt.Sprint(d.Extractions), fmt.Sprint(d.Effects)})
	}
	p.table([]string{"job", "tenant", l.t("chave", "key"), l.t("espera na fila", "queue wait"), l.t("inferência", "inference"), l.t("espera por revisão", "review wait"),
		l.t("tentativas", "attempts"), l.t("extrações", "extractions"), l.t("efeitos", "effects")}, rows)
	if note := reprocessNote(l, o.Result); note != "" {
		p.line()
		p.line(note)
	}
}

// stats is the mean and the maximum of f over docs.
func stats(docs []sim.DocMetrics, f func(d *sim.DocMetrics) model.Time) [2]model.Time {
	if len(docs) == 0 {
		return [2]model.Time{}
	}
	var sum, mx model.Time
	for i := range docs {
		v := f(&docs[i])
		sum += v
		mx = max(mx, v)
	}
	return [2]model.Time{sum / model.Time(len(docs)), mx}
}

func maxOf(xs []int32) int32 {
	m := int32(0)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// chartSection shows the charts, and says why the ones in notes are not
// there.
func (p *page) chartSection(charts []chartFile, notes []string) {
	l := p.l
	p.h2(l.t("Gráficos", "Charts"))
	for _, n := range notes {
		p.line(n)
		p.line()
	}
	for i, c := range charts {
		if p.site != nil {
			p.WriteString(p.site.add(p.site.chartFigure(c, i)))
			continue
		}
		p.line("![", c.Caption, "](charts/", c.Name, ")")
		p.line()
		p.line("*", c.Caption, "*")
		p.line()
	}
}

// robustness says on how many seeds the checks hold.
func (p *page) robustness(b *Built) {
	l := p.l
	r := b.Seeds
	n := int(r.To - r.From + 1)
	p.h2(l.t("Robustez", "Robustness"))
	text := fmt.Sprintf(l.t("As mesmas verificações, com a mesma configuração, nas sementes de simulação %d a %d: todas valem em %d de %s.",
		"The same checks, with the same setup, on simulation seeds %d to %d: all of them hold on %d of %s."), r.From, r.To, r.Passed, l.count(n, "semente", "sementes", "seed", "seeds"))
	if len(r.Failing) == 0 {
		p.line(text)
		return
	}
	p.line(text, l.t(" Nas outras, falham:", " On the others, these fail:"))
	p.line()
	for _, f := range r.Failing {
		p.line(fmt.Sprintf("- %s — %s (%s)", f.Arm, l.pick(f.Check), l.count(f.Seeds, "semente", "sementes", "seed", "seeds")))
	}
	p.line()
	p.line(l.t("Uma semente muda a carga (tamanhos e latências dos documentos) e os sorteios da execução; onde uma verificação depende disso, \"O que isto não mostra\" acima explica por quê.",
		"A seed changes the workload (document sizes and latencies) and the run's draws; where a check depends on them, \"What this does not show\" above says why."))
}

// reproduce lists the commands that reproduce the report's runs: one
// per arm whose settings all have a flag, and for the others the settings
// that keep them to -scenario.
func (p *page) reproduce(b *Built) {
	l := p.l
	s := b.Scenario
	p.h2(l.t("Como reproduzir", "How to reproduce"))
	p.line("```sh")
	p.line("go run ./cmd/durasim run -scenario ", s.Name, l.t("   # todas as variantes e verificações", "   # every arm and check"))
	if !s.Simulated() {
		p.line("go test ./model -run 'Replay|Workflow' -v", l.t("   # o modelo de workflow e seus testes", "   # the workflow model and its tests"))
	}
	p.line("```")
	var cmds []string
	var stuck []stuckArm
	for i, o := range b.Outcomes {
		if o.Result == nil {
			continue
		}
		if un := Unexposed(o.Config); len(un) > 0 {
			stuck = append(stuck, stuckArm{o.Arm.Name(), un})
		} else {
			cmds = append(cmds, fmt.Sprintf("%s   # %s", sim.Command("replay", o.Config, o.Result.Seed), o.Arm.Name()))
		}
		if c := b.Counter[i]; c != nil && Replayable(c.Shrunk.Config) {
			cmds = append(cmds, fmt.Sprintf("%s   # %s", sim.Command("replay", c.Shrunk.Config, c.Shrunk.Seed),
				l.t("contraexemplo mínimo de ", "minimal counterexample of ")+o.Arm.Name()))
		}
	}
	if len(cmds) > 0 {
		p.line()
		p.line(l.t("Cada variante sozinha, imprimindo o trace completo (a última linha é o hash):", "Each arm alone, printing the whole trace (the last line is its hash):"))
		p.line()
		p.line("```sh")
		for _, c := range cmds {
			p.line(c)
		}
		p.line("```")
	}
	if len(stuck) > 0 {
		p.line()
		p.line(stuckText(l, s.Name, stuck, len(b.simOutcomes())))
	}
}

// stuckArm is an arm with settings no flag sets.
type stuckArm struct {
	name     string
	settings []string
}

// stuckText says which arms only -scenario runs, and why: the scenario's
// own setup when every arm shares the same unexposed settings.
func stuckText(l Lang, scenario string, stuck []stuckArm, arms int) string {
	same := len(stuck) == arms
	for _, a := range stuck {
		same = same && slices.Equal(a.settings, stuck[0].settings)
	}
	if same {
		return fmt.Sprintf(l.t("A configuração do cenário muda %s, que a linha de comando não expõe; rode as variantes com -scenario %s.",
			"The scenario's setup changes %s, which the command line does not expose; run its arms with -scenario %s."),
			l.list(settingNames(l, stuck[0].settings)), scenario)
	}
	if len(stuck) == 1 {
		return fmt.Sprintf(l.t("A variante %s muda %s, que a linha de comando não expõe; rode-a com -scenario %s.",
			"Arm %s changes %s, which the command line does not expose; run it with -scenario %s."),
			stuck[0].name, l.list(settingNames(l, stuck[0].settings)), scenario)
	}
	parts := make([]string, len(stuck))
	for i, a := range stuck {
		parts[i] = fmt.Sprintf("%s (%s)", a.name, l.list(settingNames(l, a.settings)))
	}
	return fmt.Sprintf(l.t("As variantes %s mudam configurações que a linha de comando não expõe; rode-as com -scenario %s.",
		"Arms %s change settings the command line does not expose; run them with -scenario %s."), l.list(parts), scenario)
}

func settingNames(l Lang, paths []string) []string {
	out := make([]string, len(paths))
	for i, s := range paths {
		out[i] = settingName(l, s)
	}
	return out
}
