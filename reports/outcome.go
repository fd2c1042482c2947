package reports

import (
	"fmt"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

// outcomeRow is one row of the side-by-side table.
type outcomeRow struct {
	label string
	get   func(o *scenarios.Outcome) string
}

// outcomes is the side-by-side table of the arms' results, the notes that
// say what its counts mean, and the story's claims about them.
func (p *page) outcomes(b *Built) {
	l := p.l
	p.h2(l.t("Resultado lado a lado", "Outcome side by side"))
	head := []string{""}
	for _, o := range b.Outcomes {
		head = append(head, o.Arm.Name())
	}
	if !b.Scenario.Simulated() {
		p.customOutcomes(b, head)
		return
	}
	out := [][]string{append([]string{l.t("arquitetura", "design")}, mapArms(b, func(o *scenarios.Outcome) string { return code(o.Arm.Variant) })...)}
	for _, r := range p.outcomeRows() {
		out = append(out, append([]string{r.label}, mapArms(b, func(o *scenarios.Outcome) string {
			if o.Result == nil {
				return l.t("não rodou", "did not run")
			}
			return r.get(o)
		})...))
	}
	p.table(head, out)
	p.line()
	p.line(l.t("Os jobs ao final somam o total de jobs: cada job conta uma vez, pelo estado em que terminou. Entradas na DLQ contam cada ida à DLQ, inclusive as de jobs que depois saíram por redrive e terminaram concluídos. O último job terminou quando a profundidade da fila chega a zero de vez; \"drenou\" é mais exigente (todo job terminado, todo evento do outbox publicado e entregue) e só é verificado a partir da fase de quiescência, por isso marca um tempo mais tarde.",
		"The jobs at the end add up to all jobs: each job counts once, by the state it ended in. DLQ entries count every trip to the DLQ, including those of jobs that were later redriven and succeeded. The last job settled when the queue depth drops to zero for good; \"drained\" asks more (every job final, every outbox event published and delivered) and is checked only from the quiescence phase on, so it reads later."))
	p.claims(b)
}

// outcomeRows are the rows of the side-by-side table of simulated arms.
func (p *page) outcomeRows() []outcomeRow {
	l := p.l
	count := func(f func(r *sim.Result) int64) func(o *scenarios.Outcome) string {
		return func(o *scenarios.Outcome) string { return l.num(f(o.Result)) }
	}
	fig := func(f scenarios.Figure) outcomeRow {
		return outcomeRow{l.pick(f.Says()), func(o *scenarios.Outcome) string { return l.figure(f, f.Of(o.Result)) }}
	}
	return []outcomeRow{
		{l.t("jobs (documentos + versões de reprocesso)", "jobs (documents + reprocess versions)"), func(o *scenarios.Outcome) string {
			jobs, re := int64(len(o.Result.Metrics.Docs)), int64(len(reprocesses(o.Result)))
			return fmt.Sprintf("%s (%s + %s)", l.num(jobs), l.num(jobs-re), l.num(re))
		}},
		{l.t("jobs ao final: concluídos / na DLQ / cancelados", "jobs at the end: succeeded / in the DLQ / cancelled"), func(o *scenarios.Outcome) string { return endStates(l, o.Result) }},
		fig(scenarios.FigDLQEntries),
		{l.t("redrives aceitos", "redrives accepted"), count(func(r *sim.Result) int64 { return countOK(r, model.EvRedrive) })},
		fig(scenarios.FigAttempts),
		fig(scenarios.FigExtractions),
		fig(scenarios.FigEffects),
		{l.t("commits deduplicados + entregas duplicadas absorvidas", "commits deduplicated + duplicate deliveries absorbed"), count(func(r *sim.Result) int64 { return r.Metrics.Dedupes })},
		fig(scenarios.FigRetries),
		fig(scenarios.FigRateLimited),
		fig(scenarios.FigTokens),
		fig(scenarios.FigDLQTokens),
		{l.t("chamadas com fencing token velho rejeitadas", "calls with a stale fencing token rejected"), count(func(r *sim.Result) int64 { return r.Metrics.StaleFences })},
		{l.t("eventos no histórico", "events in the history"), count(func(r *sim.Result) int64 { return int64(r.Events) })},
		fig(scenarios.FigLastSettled),
		{l.t("drenou (verificado desde a quiescência)", "drained (checked from quiescence on)"), func(o *scenarios.Outcome) string {
			if !o.Result.Drained {
				return l.t("não", "no")
			}
			return l.t("sim, em ", "yes, at ") + l.dur(o.Result.Metrics.Drained)
		}},
		{l.t("violações", "violations"), func(o *scenarios.Outcome) string { return violationSummary(l, o.Result) }},
	}
}

// figure prints a figure's value.
func (l Lang) figure(f scenarios.Figure, v int64) string {
	if f.Duration() {
		return l.dur(model.Time(v))
	}
	return l.num(v)
}

func countOK(r *sim.Result, kind model.EventKind) int64 {
	n := int64(0)
	for i := range r.History {
		if e := &r.History[i]; e.Kind == kind && e.OK {
			n++
		}
	}
	return n
}

// endStates counts the jobs by the state they ended in (and those that
// never ended, when the run did not drain).
func endStates(l Lang, r *sim.Result) string {
	var n [4]int64 // succeeded, dead, cancelled, other
	for _, st := range finalStates(r) {
		switch st {
		case model.Succeeded:
			n[0]++
		case model.Dead:
			n[1]++
		case model.Cancelled:
			n[2]++
		default:
			n[3]++
		}
	}
	s := fmt.Sprintf("%s / %s / %s", l.num(n[0]), l.num(n[1]), l.num(n[2]))
	if n[3] > 0 {
		s += fmt.Sprintf(l.t(" (%s sem terminar)", " (%s unfinished)"), l.num(n[3]))
	}
	return s
}

// finalStates replays every job's terminal events, in job order.
func finalStates(r *sim.Result) []model.State {
	st := make([]model.State, len(r.Metrics.Docs))
	for i := range st {
		st[i] = model.Pending
	}
	for i := range r.History {
		e := &r.History[i]
		if e.Job < 1 || int(e.Job) > len(st) || !e.OK {
			continue
		}
		switch e.Kind {
		case model.EvAck:
			st[e.Job-1] = model.Succeeded
		case model.EvDead, model.EvExhausted:
			st[e.Job-1] = model.Dead
		case model.EvCancel, model.EvCancelAtLease:
			st[e.Job-1] = model.Cancelled
		case model.EvRedrive:
			st[e.Job-1] = model.Pending
		}
	}
	return st
}

// reprocess is an accepted reprocess: the dead job, the new one, who.
type reprocess struct {
	Old, New model.JobID
	Operator string
}

// reprocesses lists the run's accepted reprocesses in order.
func reprocesses(r *sim.Result) []reprocess {
	var out []reprocess
	for i := range r.History {
		if e := &r.History[i]; e.Kind == model.EvReprocess && e.OK && e.Other != 0 {
			out = append(out, reprocess{Old: e.Job, New: model.JobID(e.Other), Operator: e.Text})
		}
	}
	return out
}

// reprocessNote explains the jobs of run r that are not documents of the
// workload but an operator's reprocess ("" when there are none).
func reprocessNote(l Lang, r *sim.Result) string {
	rs := reprocesses(r)
	if len(rs) == 0 {
		return ""
	}
	parts := make([]string, len(rs))
	for i, x := range rs {
		parts[i] = fmt.Sprintf(l.t("%v é o reprocesso de %v", "%v is the reprocess of %v"), x.New, x.Old)
	}
	return fmt.Sprintf(l.t("Nesta variante, %s: um job novo na versão seguinte da chave, criado pelo operador, não um documento novo.",
		"In this arm, %s: a new job at the key's next version, created by the operator, not a new document."), l.list(parts))
}

// claims writes the story's claims about the numbers from the figures in
// the table above, each with the relation the numbers show.
func (p *page) claims(b *Built) {
	l := p.l
	if len(b.Scenario.Claims) == 0 {
		return
	}
	p.h3(l.t("O que os números mostram", "What the numbers show"))
	for _, c := range b.Scenario.Claims {
		a, v, err := c.Values(b.Outcomes)
		if err != nil {
			p.line("- ✗ ", err.Error())
			continue
		}
		got := scenarios.RelOf(a, v)
		line := fmt.Sprintf("- %s — %s: **%s**, %s %s (**%s**): %s", code(c.Arm), l.pick(c.Figure.Says()), l.figure(c.Figure, a),
			relText(l, got, c.Figure.Duration()), code(c.Other), l.figure(c.Figure, v), l.pick(c.Why))
		if got != c.Rel {
			line += fmt.Sprintf(l.t(" ✗ (a história esperava: %s)", " ✗ (the story expected: %s)"), relText(l, c.Rel, c.Figure.Duration()))
		}
		p.line(line, ".")
	}
}

// relText is the words between two figures: "more than in".
func relText(l Lang, r scenarios.Rel, duration bool) string {
	switch {
	case r == scenarios.Equal:
		return l.t("o mesmo que em", "the same as in")
	case duration && r == scenarios.More:
		return l.t("mais tarde que em", "later than in")
	case duration:
		return l.t("mais cedo que em", "earlier than in")
	case r == scenarios.More:
		return l.t("mais que em", "more than in")
	}
	return l.t("menos que em", "less than in")
}

// claimsHeld counts the claims whose relation holds, and all claims.
func (b *Built) claimsHeld() (held, total int) {
	for _, c := range b.Scenario.Claims {
		total++
		if c.Check(b.Outcomes) == nil {
			held++
		}
	}
	return held, total
}
