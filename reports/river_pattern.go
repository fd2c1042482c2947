package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// The documented JobCompleteTx pattern's failure: read from its shrunk
// counterexample's history (readPattern), walked through sentence by
// sentence, each citing the events it speaks of, drawn as a sequence
// diagram, and set against the designs that fix it on the same plan.

// Pattern is the documented pattern's failure as the counterexample's
// history shows it, op by op: attempt A of the job outlives its context
// after the rescuer gave the job to attempt B; A's failure report lands
// on B; B's JobCompleteTx returns the job not completed, without an
// error, and B commits its effect; attempt C writes the effect again.
type Pattern struct {
	Violation invariants.Violation
	Job       target.JobID
	Key       string // the document's key, as the effects carry it
	// Attempt A, the superseded one: its fetch, the rescuer's read and
	// rescue of the job, its work's end past the job timeout, its report.
	FetchA, Stuck, Rescue, TimeoutA, ReportA target.Op
	// Attempt B: its fetch, its effect, its JobCompleteTx, its commit.
	FetchB, EffectB, CompleteB, CommitB target.Op
	// Attempt C: its fetch and its effect, the second one.
	FetchC, EffectC target.Op
}

// readPattern finds the documented pattern in a run's history (kept with
// Config.KeepTrace), from the first violation of target-effect-once that
// names two effects.
func readPattern(res *targetsim.Result) (*Pattern, error) {
	i := slices.IndexFunc(res.Violations, func(v invariants.Violation) bool {
		return v.Invariant == invariants.TargetEffectOnce && len(v.Events) >= 2
	}) // the first: the one a replay prints first
	if i < 0 {
		return nil, fmt.Errorf("no violation of %s names two effects", invariants.TargetEffectOnce)
	}
	h := opHistory(res.Ops)
	p := &Pattern{Violation: res.Violations[i]}
	var ok bool
	if p.EffectB, ok = h.at(p.Violation.Events[0]); !ok || p.EffectB.Kind != target.OpEffect {
		return nil, fmt.Errorf("event #%d is not an effect", p.Violation.Events[0])
	}
	if p.EffectC, ok = h.at(p.Violation.Events[1]); !ok || p.EffectC.Kind != target.OpEffect {
		return nil, fmt.Errorf("event #%d is not an effect", p.Violation.Events[1])
	}
	p.Job, p.Key = p.EffectB.Job, p.EffectB.Key
	return p, p.read(h)
}

// read finds the rest of the pattern around the two effects.
func (p *Pattern) read(h opHistory) error {
	b, c := p.EffectB, p.EffectC
	var ok bool
	if p.CompleteB, ok = h.find(func(o *target.Op) bool { return o.Kind == target.OpComplete && o.Tx == b.Tx }); !ok || b.Tx == 0 {
		return fmt.Errorf("the first effect (#%d) has no JobCompleteTx in its transaction", b.Seq)
	}
	if p.CompleteB.State == target.Completed {
		return fmt.Errorf("JobCompleteTx (#%d) returned the job completed", p.CompleteB.Seq)
	}
	if p.CommitB, ok = h.find(func(o *target.Op) bool { return o.Kind == target.OpCommit && o.Tx == b.Tx }); !ok {
		return fmt.Errorf("the transaction of #%d did not commit", b.Seq)
	}
	if p.ReportA, ok = h.last(p.CompleteB.Seq, func(o *target.Op) bool {
		return o.Kind == target.OpReport && o.Job == p.Job && o.Applied && o.Outcome == target.Errored && o.Actor != b.Actor && o.Attempt == b.Attempt
	}); !ok {
		return fmt.Errorf("no other worker's failure report was applied to attempt %d before #%d", b.Attempt, p.CompleteB.Seq)
	}
	a := p.ReportA.Actor
	if p.FetchA, ok = h.last(p.ReportA.Seq, func(o *target.Op) bool { return o.Kind == target.OpFetch && o.Job == p.Job && o.Actor == a }); !ok || p.FetchA.Attempt >= b.Attempt {
		return fmt.Errorf("the report #%d is not an earlier attempt's", p.ReportA.Seq)
	}
	if p.TimeoutA, ok = h.last(p.ReportA.Seq, func(o *target.Op) bool {
		return o.Kind == target.OpTimeout && o.Job == p.Job && o.Actor == a && o.Attempt == p.FetchA.Attempt
	}); !ok || p.TimeoutA.Seq < p.FetchA.Seq {
		return fmt.Errorf("attempt %d's work did not outlive its context", p.FetchA.Attempt)
	}
	if p.FetchB, ok = h.last(b.Seq, func(o *target.Op) bool { return o.Kind == target.OpFetch && o.Job == p.Job && o.Actor == b.Actor }); !ok || p.FetchB.Attempt != b.Attempt {
		return fmt.Errorf("no fetch of attempt %d before #%d", b.Attempt, b.Seq)
	}
	between := func(k target.OpKind) func(o *target.Op) bool {
		return func(o *target.Op) bool {
			return o.Kind == k && o.Job == p.Job && o.Seq > p.FetchA.Seq && (k != target.OpRescue || o.Applied)
		}
	}
	if p.Stuck, ok = h.last(p.FetchB.Seq, between(target.OpStuck)); !ok {
		return fmt.Errorf("the rescuer did not read the job as stuck between #%d and #%d", p.FetchA.Seq, p.FetchB.Seq)
	}
	if p.Rescue, ok = h.last(p.FetchB.Seq, between(target.OpRescue)); !ok {
		return fmt.Errorf("the rescuer did not rescue the job between #%d and #%d", p.FetchA.Seq, p.FetchB.Seq)
	}
	if p.FetchC, ok = h.last(c.Seq, func(o *target.Op) bool { return o.Kind == target.OpFetch && o.Job == p.Job && o.Actor == c.Actor }); !ok ||
		p.FetchC.Attempt != c.Attempt || c.Attempt <= b.Attempt {
		return fmt.Errorf("the second effect (#%d) is not a later attempt's", c.Seq)
	}
	return nil
}

// opHistory is a run's ops, numbered from 1 by Seq.
type opHistory []target.Op

func (h opHistory) at(seq uint64) (target.Op, bool) {
	if seq < 1 || seq > uint64(len(h)) {
		return target.Op{}, false
	}
	return h[seq-1], true
}

// find is the first op that f accepts.
func (h opHistory) find(f func(o *target.Op) bool) (target.Op, bool) {
	for i := range h {
		if f(&h[i]) {
			return h[i], true
		}
	}
	return target.Op{}, false
}

// last is the last op before seq that f accepts.
func (h opHistory) last(before uint64, f func(o *target.Op) bool) (target.Op, bool) {
	for i := min(int(before)-1, len(h)) - 1; i >= 0; i-- {
		if f(&h[i]) {
			return h[i], true
		}
	}
	return target.Op{}, false
}

// Lines are the trace lines of the pattern's job, in order, with their
// event numbers: the key lines of the counterexample.
func (p *Pattern) Lines(res *targetsim.Result) []TraceLine {
	var out []TraceLine
	for i, o := range res.Ops {
		if o.Job == p.Job {
			out = append(out, TraceLine{Seq: o.Seq, Text: res.Trace[i]})
		}
	}
	return out
}

// TraceLine is one line of a trace and its event number.
type TraceLine struct {
	Seq  uint64
	Text string
}

// riverPattern is the documented pattern's counterexample: the shrunk run,
// its job's trace lines, what they show, and the diagram.
func (p *page) riverPattern(rv *River) {
	l := p.l
	p.h2(l.t("O padrão documentado: ", "The documented pattern: ") + code(targetsim.TxAsDocumented.String()))
	p.line(l.t("A documentação de JobCompleteTx mostra o handler que escreve o efeito e conclui o job na mesma transação, conferindo só o erro que JobCompleteTx devolve (`_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)`, e então `if err != nil`). É a arquitetura `tx-as-documented`.",
		"JobCompleteTx's documentation shows the handler that writes its effect and completes the job in the same transaction, checking only the error JobCompleteTx returns (`_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)`, then `if err != nil`). That is the design `tx-as-documented`."))
	sw := rv.sweepOf(targetsim.TxAsDocumented)
	if sw == nil || sw.Shrunk == nil || rv.Documented == nil {
		p.line()
		p.line(fmt.Sprintf(l.t("✗ Nas sementes 1 a %d ela não foi pega: não há contraexemplo para mostrar.", "✗ On seeds 1 to %d it was not caught: there is no counterexample to show."), rv.Naive))
		return
	}
	sh, res := sw.Shrunk, rv.Documented
	p.line()
	p.line(fmt.Sprintf(l.t("A varredura a pega na semente **%d**; o shrinker rodou %s e a reduziu a %s, que ainda violam %s:",
		"The sweep catches it at seed **%d**; the shrinker ran %s and reduced it to %s, which still break %s:"),
		sh.Result.Seed, l.count(sh.Runs, "execução", "execuções", "run", "runs"), l.list([]string{
			l.count(len(sh.Config.Plan.Faults), "falha", "falhas", "fault", "faults"),
			l.count(docCount(sh.Config), "documento", "documentos", "document", "documents"),
			l.count(sh.Config.Workers, "worker", "workers", "worker", "workers"),
			l.count(res.Lines, "evento", "eventos", "event", "events"),
		}), code(sw.Check)))
	p.line()
	p.violationQuote(res.First(sw.Check))
	p.line()
	p.line(l.t("Plano reduzido:", "Shrunk plan:"))
	p.line()
	p.line("```")
	for _, f := range sh.Config.Plan.Faults {
		p.line(f.String())
	}
	p.line("```")
	pat := rv.Pattern
	if pat == nil {
		p.line()
		p.line(l.t("✗ O contraexemplo não mostra o mecanismo que este relatório descreve: ", "✗ The counterexample does not show the mechanism this report describes: "), rv.PatternErr, ".")
		return
	}
	p.line()
	p.line(fmt.Sprintf(l.t("As linhas do trace do job j%d nessa execução, cada uma com o número do seu evento (o replay, na tabela acima, imprime o trace inteiro):",
		"The trace lines of job j%d in that run, each with its event's number (the replay, in the table above, prints the whole trace):"), pat.Job))
	p.line()
	p.line("```")
	for _, tl := range pat.Lines(res) {
		p.line(fmt.Sprintf("#%-3d %s", tl.Seq, tl.Text))
	}
	p.line("```")
	p.h3(l.t("O que elas mostram", "What they show"))
	for _, b := range rv.patternBullets(l) {
		p.line("- ", b)
	}
	p.line()
	p.diagram(pat.arrows(res), pat.named())
}

func (rv *River) sweepOf(d targetsim.Design) *DesignSweep {
	for i := range rv.Designs {
		if rv.Designs[i].Design == d {
			return &rv.Designs[i]
		}
	}
	return nil
}

// ref is an event's reference: `#41`.
func ref(o target.Op) string { return code(fmt.Sprintf("#%d", o.Seq)) }

// patternBullets are the sentences that walk through the pattern, each
// citing the events it speaks of and quoting their fields as the trace
// prints them.
func (rv *River) patternBullets(l Lang) []string {
	p := rv.Pattern
	q := rv.Queue
	a, b, c := p.FetchA.Actor, p.FetchB.Actor, p.FetchC.Actor
	job := fmt.Sprintf("j%d", p.Job)
	r := p.ReportA
	return []string{
		fmt.Sprintf(l.t("%s %s busca %s como %s. Passado RescueStuckJobsAfter (%s), ainda está nele: o rescuer lê o job como travado (%s, %s) e o resgata (%s, %s), e %s o busca de novo (%s, %s) enquanto %s continua trabalhando.",
			"%s %s fetches %s as %s. Past RescueStuckJobsAfter (%s) it is still at it: the rescuer reads the job as stuck (%s, %s) and rescues it (%s, %s), and %s fetches it again (%s, %s) while %s is still working."),
			ref(p.FetchA), a, job, code(fmt.Sprintf("attempt=%d", p.FetchA.Attempt)), l.dur(q.RescueAfter),
			ref(p.Stuck), code("attempted_at="+target.FormatSeconds(p.Stuck.At)), ref(p.Rescue), code("state="+p.Rescue.State.String()),
			b, ref(p.FetchB), code(fmt.Sprintf("attempt=%d", p.FetchB.Attempt)), a),
		fmt.Sprintf(l.t("%s O trabalho de %s na tentativa %d termina em %s, %s depois da busca e além de JobTimeout (%s): o River já cancelou o contexto, as chamadas do handler falham e ele devolve um erro. O executor relata o erro (%s) e o River o aplica à linha: %s. O JobSetStateIfRunning do River, por onde passa o relatório, casa o id do job e o estado `running`, não a tentativa: a falha da tentativa %d foi gravada na tentativa %d, em que %s está trabalhando (%s).",
			"%s %s's work on attempt %d ends at %s, %s after its fetch and past JobTimeout (%s): River has cancelled its context, the handler's calls fail and it returns an error. The executor reports the error (%s) and River applies it to the row: %s. River's JobSetStateIfRunning, which the report goes through, matches the job's id and the `running` state, not the attempt: attempt %d's failure was written onto attempt %d, which %s is working on (%s)."),
			ref(p.TimeoutA), a, p.FetchA.Attempt, code("t="+target.FormatSeconds(p.TimeoutA.T)), l.dur(p.TimeoutA.T-p.FetchA.T), l.dur(q.JobTimeout),
			ref(r), code(fmt.Sprintf("outcome=%s applied state=%s attempt=%d", r.Outcome, r.State, r.Attempt)), p.FetchA.Attempt, r.Attempt, b, ref(p.FetchB)),
		fmt.Sprintf(l.t("%s %s escreve o efeito na sua transação (%s) e chama JobCompleteTx (%s). O job não está mais `running`, nada é atualizado, e JobCompleteTx devolve a linha como ela está, %s, sem erro. O handler confere só esse erro, como mostra a documentação de JobCompleteTx, e commita (%s): o efeito da tentativa %d fica durável, e o job não foi concluído.",
			"%s %s writes its effect in its transaction (%s) and calls JobCompleteTx (%s). The job is no longer `running`, nothing is updated, and JobCompleteTx returns the row as it stands, %s, without an error. The handler checks only that error, as JobCompleteTx's documentation shows, and commits (%s): attempt %d's effect is durable, and the job was not completed."),
			ref(p.EffectB), b, code("key="+p.Key), ref(p.CompleteB), code("returned="+p.CompleteB.State.String()), ref(p.CommitB), p.FetchB.Attempt),
		fmt.Sprintf(l.t("%s O job roda de novo: %s o busca como %s e escreve o efeito uma segunda vez (%s, %s). Dois efeitos para o mesmo documento: %s cita %s e %s.",
			"%s The job runs again: %s fetches it as %s and writes the effect a second time (%s, %s). Two effects for one document: %s names %s and %s."),
			ref(p.FetchC), c, code(fmt.Sprintf("attempt=%d", p.FetchC.Attempt)), ref(p.EffectC), code("key="+p.EffectC.Key),
			code(p.Violation.Invariant), ref(p.EffectB), ref(p.EffectC)),
	}
}

// named are the events the diagram marks: the two effects, the misapplied
// report and the completion that came back not completed.
func (p *Pattern) named() map[uint64]bool {
	return map[uint64]bool{p.EffectB.Seq: true, p.EffectC.Seq: true, p.ReportA.Seq: true, p.CompleteB.Seq: true}
}

// arrows draws the pattern's job's trace lines: each call an arrow from
// its actor to River's tables (or, for the effect, to durasim's effects
// table), each step of a worker's own a note over it. The texts leave out
// the job, whose diagram it is.
func (p *Pattern) arrows(res *targetsim.Result) []arrow {
	var out []arrow
	for _, tl := range p.Lines(res) {
		o := res.Ops[tl.Seq-1]
		from := opLane(o.Actor)
		to := from
		switch o.Kind {
		case target.OpInsert, target.OpFetch, target.OpReport, target.OpComplete, target.OpStuck, target.OpRescue,
			target.OpSchedule, target.OpRetry:
			to = "river"
		case target.OpEffect:
			to = "effects"
		}
		out = append(out, arrow{from: from, to: to, text: opText(o, tl.Text), seq: o.Seq})
	}
	return out
}

// opLane is an actor's lane: a worker's incarnations share its lane.
func opLane(actor string) string {
	if name, _, ok := strings.Cut(actor, "."); ok && isWorkerLane(name) {
		return name
	}
	if actor == "operator" {
		return "op"
	}
	return actor
}

// opText is an arrow's text: the event's number and its trace line
// without the time, the actor (a worker's incarnation kept) and the job.
func opText(o target.Op, line string) string {
	_, rest, _ := strings.Cut(line, " ") // the time
	_, rest, _ = strings.Cut(rest, " ")  // the actor
	rest = strings.Replace(rest, fmt.Sprintf(" j%d", o.Job), "", 1)
	if strings.Contains(o.Actor, ".") {
		rest = o.Actor + " " + rest
	}
	return fmt.Sprintf("%d %s", o.Seq, rest)
}

// riverRemedies is what a handler must do on top, and the counterexample's
// plan under each design that does it.
func (p *page) riverRemedies(rv *River) {
	l := p.l
	p.h2(l.t("O que o handler precisa fazer", "What a handler must do on top"))
	p.line(l.t("O River não promete que só a tentativa atual conclua o job, nem que JobCompleteTx falhe quando não o conclui: ele devolve a linha como ela está. Em cima disso, o handler tem três saídas:",
		"River does not promise that only the current attempt completes the job, nor that JobCompleteTx fails when it does not complete it: it returns the row as it stands. On top of that, a handler has three ways out:"))
	p.line()
	p.line(l.t("- **Conferir a conclusão** (`tx-checked`): commitar só se JobCompleteTx devolveu o job `completed` na tentativa do próprio handler (o `Attempt` do job que ele recebeu); senão, desfazer a transação — o efeito vai junto — e devolver um erro.",
		"- **Check the completion** (`tx-checked`): commit only if JobCompleteTx returned the job `completed` at the handler's own attempt (the `Attempt` of the job it was given); otherwise roll the transaction back — the effect goes with it — and return an error."))
	p.line(l.t("- **Uma chave de idempotência que nomeia o tenant** (`idempotent-key`): o efeito gravado sob tenant:documento:vN, em que uma duplicata não escreve nada. Sem o tenant (`key-without-tenant`), dois tenants com o mesmo documento colidem e um deles fica sem efeito.",
		"- **An idempotency key that names the tenant** (`idempotent-key`): the effect written under tenant:document:vN, where a duplicate writes nothing. Without the tenant (`key-without-tenant`), two tenants with the same document collide and one of them gets no effect."))
	p.line(l.t("- **Um outbox** (`outbox`): o handler insere um job de entrega com InsertTx e conclui o seu (conferido como em tx-checked); um consumidor que deduplica aplica o efeito, sob a chave, na mesma transação da sua conclusão.",
		"- **An outbox** (`outbox`): the handler inserts a delivery job with InsertTx and completes its own (checked as in tx-checked); a deduplicating consumer applies the effect, under the key, in the same transaction as its completion."))
	if len(rv.Contrast) == 0 {
		return
	}
	sh := rv.sweepOf(targetsim.TxAsDocumented).Shrunk
	p.line()
	p.line(fmt.Sprintf(l.t("O plano reduzido de `tx-as-documented` (semente %d, %s, %s) sob cada uma delas:", "`tx-as-documented`'s shrunk plan (seed %d, %s, %s) under each of them:"),
		sh.Result.Seed, l.count(docCount(sh.Config), "documento", "documentos", "document", "documents"), l.count(sh.Config.Workers, "worker", "workers", "worker", "workers")))
	p.line()
	doc := rv.patternDoc()
	var rows [][]string
	for _, c := range rv.Contrast {
		_, eff := docEffects(c.Result)
		rows = append(rows, []string{code(c.Config.Design.String()), contrastViolations(l, c.Result), l.num(int64(eff[doc])), l.num(int64(c.Result.Effects)),
			l.num(int64(c.Result.Counts.StaleCompletions)), l.num(int64(c.Result.Counts.ZombieWrites))})
	}
	p.table([]string{l.t("arquitetura", "design"), l.t("violações", "violations"), fmt.Sprintf(l.t("efeitos de %s", "effects of %s"), code(doc)),
		l.t("efeitos no total", "effects in all"), l.t("conclusões alheias desfeitas", "completions not its own rolled back"), l.t("gravações de zumbi", "zombie writes")}, rows)
	p.line()
	p.line(rv.remedySentence(l))
}

// patternDoc is the pattern's document as tenant:document ("" without a
// pattern).
func (rv *River) patternDoc() string {
	if rv.Pattern == nil || rv.Documented == nil {
		return ""
	}
	for _, o := range rv.Documented.Ops {
		if o.Kind == target.OpInsert && o.Job == rv.Pattern.Job {
			return o.Args.Tenant + ":" + o.Args.Doc
		}
	}
	return ""
}

func contrastViolations(l Lang, r *targetsim.Result) string {
	if !r.Failed() {
		return l.t("nenhuma", "none")
	}
	var parts []string
	for _, name := range invariants.TargetChecks() {
		n := 0
		for _, v := range r.Violations {
			if v.Invariant == name {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d)", name, n))
		}
	}
	return strings.Join(parts, ", ")
}

// bold is "**n** noun" in language l.
func (l Lang) bold(n int, ptOne, ptMany, enOne, enMany string) string {
	return "**" + l.num(int64(n)) + "** " + l.plural(n, ptOne, ptMany, enOne, enMany)
}

// remedySentence compares tx-checked with the documented pattern on the
// same plan.
func (rv *River) remedySentence(l Lang) string {
	doc, docu, checked := rv.patternDoc(), rv.Contrast[0], rv.Contrast[1]
	_, effDocu := docEffects(docu.Result)
	_, effChecked := docEffects(checked.Result)
	held := 0
	for _, c := range rv.Contrast[1:] {
		if !c.Result.Failed() {
			held++
		}
	}
	return fmt.Sprintf(l.t("Sob %s, o mesmo plano deixa %s em %s, contra **%d** sob %s: a conclusão que voltou sem ser da própria tentativa é desfeita (%s) em vez de commitada. Das **%d** arquiteturas corretas, **%d** passam nesse plano.",
		"Under %s the same plan leaves %s on %s, against **%d** under %s: the completion that came back not its own attempt's is rolled back (%s) instead of committed. Of the **%d** correct designs, **%d** pass that plan."),
		code(checked.Config.Design.String()), l.bold(effChecked[doc], "efeito", "efeitos", "effect", "effects"), code(doc), effDocu[doc], code(docu.Config.Design.String()),
		l.bold(checked.Result.Counts.StaleCompletions, "vez", "vezes", "time", "times"), len(rv.Contrast)-1, held)
}
