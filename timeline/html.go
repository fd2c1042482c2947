package timeline

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/targetsim"
)

//go:embed timeline.js
var script string

//go:embed timeline.css
var style string

// Run is one history a timeline draws.
type Run struct {
	Label  string      // the tab's name ("shrunk counterexample", "whole run")
	Result *sim.Result // a model run with Config.KeepTrace
	// Target is, instead of Result, a target run (targetsim, with
	// Config.KeepTrace): the same timeline drawn from its ops.
	Target    *targetsim.Result
	Invariant string // the violation shown first: the first of this invariant ("": the first one)
	Command   string // the command that reproduces the run ("": none shown)
	// Shrunk says the run is a failing run shrunk (sim.Shrink): its
	// jobs, events and workers are numbered anew, so the timeline says
	// that its ids are not the original run's.
	Shrunk bool
}

// Page is one self-contained HTML file: a title, a line under it, and
// one timeline per run (tabs when there are several; the first shows
// first).
type Page struct {
	Lang     Lang
	Title    string
	Subtitle string
	Runs     []Run
}

// CSP forbids the page every fetch: all it needs is inline. A browser
// enforces it, so a page cannot reach the network even by mistake.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

// Write renders the page.
func (p Page) Write(w io.Writer) error {
	if len(p.Runs) == 0 {
		return fmt.Errorf("timeline page %q has no run", p.Title)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", p.Lang)
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", CSP)
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body class=\"dtl-page\">\n", html.EscapeString(p.Title), style)
	fmt.Fprintf(&b, "<header class=\"dtl-head\"><h1>%s</h1>", html.EscapeString(p.Title))
	if p.Subtitle != "" {
		fmt.Fprintf(&b, "<p>%s</p>", html.EscapeString(p.Subtitle))
	}
	if p.hasShrunk() {
		fmt.Fprintf(&b, "<p class=\"dtl-note\">%s</p>", p.Lang.t(
			"Cada aba mostra a violação da sua própria execução. O contraexemplo reduzido é uma execução menor que viola o mesmo invariante; o shrink renumera jobs, eventos e workers, então seus ids não são os da execução original.",
			"Each tab shows its own run's violation. The shrunk counterexample is a smaller run that breaks the same invariant; the shrink renumbers jobs, events and workers, so its ids are not the original run's."))
	}
	b.WriteString("</header>\n")
	if len(p.Runs) > 1 {
		p.tabs(&b)
	}
	for i, r := range p.Runs {
		frag, err := Fragment(r, "dtl"+strconv.Itoa(i), p.Lang)
		if err != nil {
			return err
		}
		hidden := ""
		if i > 0 {
			hidden = " hidden"
		}
		fmt.Fprintf(&b, "<section class=\"dtl-panel\" id=\"dtl%d-panel\" role=\"tabpanel\"%s>\n%s</section>\n", i, hidden, frag)
	}
	fmt.Fprintf(&b, "<script>\n%s</script>\n</body>\n</html>\n", script)
	_, err := io.WriteString(w, b.String())
	return err
}

// events is how many events the run's history has.
func (r Run) events() int {
	if r.Target != nil {
		return len(r.Target.Ops)
	}
	return len(r.Result.History)
}

// build is the script's data for the run, in language l.
func (r Run) build(l Lang) (*data, error) {
	var d *data
	var err error
	var vs []invariants.Violation
	switch {
	case r.Target != nil && r.Result != nil:
		return nil, fmt.Errorf("a timeline run has both a model and a target result")
	case r.Target != nil:
		d, err = buildTarget(r.Target, r.Invariant)
		vs = r.Target.Violations
	case r.Result != nil:
		d, err = build(r.Result, r.Invariant)
		vs = r.Result.Violations
	default:
		return nil, fmt.Errorf("no run")
	}
	if err != nil {
		return nil, err
	}
	d.localize(l, vs)
	return d, nil
}

// hasShrunk reports whether a run of the page is a shrunk one beside
// another run.
func (p Page) hasShrunk() bool {
	for _, r := range p.Runs {
		if r.Shrunk {
			return len(p.Runs) > 1
		}
	}
	return false
}

// tabs writes the buttons that switch between the runs.
func (p Page) tabs(b *strings.Builder) {
	b.WriteString("<nav class=\"dtl-tabs\" role=\"tablist\">")
	for i, r := range p.Runs {
		fmt.Fprintf(b, "<button type=\"button\" role=\"tab\" aria-controls=\"dtl%d-panel\" aria-selected=\"%t\">%s · %s</button>",
			i, i == 0, html.EscapeString(r.Label), p.Lang.t(strconv.Itoa(r.events())+" eventos", strconv.Itoa(r.events())+" events"))
	}
	b.WriteString("</nav>\n")
}

// Style is the stylesheet a page that embeds fragments needs, once.
func Style() string { return style }

// Script is the script a page that embeds fragments needs, once, after
// them.
func Script() string { return script }

// Fragment renders one run's timeline as a <div> to embed in a page that
// also carries [Style] and [Script]; id must be unique in the page.
func Fragment(r Run, id string, l Lang) (string, error) {
	d, err := r.build(l)
	if err != nil {
		return "", fmt.Errorf("timeline %s: %v", id, err)
	}
	js, err := encode(d, l)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<div class=\"dtl\" id=\"%s\">\n", html.EscapeString(id))
	if r.Target != nil {
		writeTargetMeta(&b, r, l)
	} else {
		writeMeta(&b, r, l)
	}
	writeViolation(&b, d, l, r.Shrunk)
	writeControls(&b, d, l)
	b.WriteString("<div class=\"dtl-legend\"></div>\n")
	fmt.Fprintf(&b, "<p class=\"dtl-key\">%s</p>\n", key(l, r.Target != nil))
	fmt.Fprintf(&b, "<div class=\"dtl-view\" tabindex=\"0\"><canvas class=\"dtl-axis\" aria-hidden=\"true\"></canvas><div class=\"dtl-body\"><div class=\"dtl-labels\"></div><canvas class=\"dtl-canvas\" role=\"img\" aria-label=\"%s\"></canvas></div><div class=\"dtl-tip\" hidden></div></div>\n",
		l.t(fmt.Sprintf("linha do tempo: %d eventos em %d raias", len(d.Text), len(d.Lanes)), fmt.Sprintf("timeline: %d events on %d lanes", len(d.Text), len(d.Lanes))))
	fmt.Fprintf(&b, "<p class=\"dtl-detail\" aria-live=\"polite\">%s</p>\n", html.EscapeString(l.ui()["hint"]))
	fmt.Fprintf(&b, "<script type=\"application/json\" class=\"dtl-data\">%s</script>\n</div>\n", js)
	return b.String(), nil
}

// key is the line under the legend: what a bar's label, an
// incarnation's suffix and a crash's cross mean.
func key(l Lang, target bool) string {
	lanes := l.t(" Uma raia <b>w0.1</b> é a incarnação 1 do worker w0: a que recomeça depois da primeira queda (w0 é a incarnação 0). <b>✕</b> depois do nome de uma raia, ou no fim dela: essa incarnação terminou numa queda.",
		" A lane <b>w0.1</b> is worker w0's incarnation 1: the one that starts again after its first crash (w0 is incarnation 0). <b>✕</b> after a lane's name, or at its end: that incarnation ended in a crash.")
	if target {
		return l.t("Uma barra vai do fetch de um job até o report (ou a queda) do worker que o tinha; <b>j3 a1</b> é o job j3 na tentativa 1, e a barra fica pontilhada depois do RescueAfter da política, quando o rescuer pode dá-lo como preso. Um ponto roxo sobre uma marca: uma falha do plano agiu ali (o texto dela no tooltip).",
			"A bar runs from a job's fetch to the report (or the crash) of the worker that held it; <b>j3 a1</b> is job j3 on attempt 1, and the bar turns dotted past the policy's RescueAfter, when the rescuer may read it as stuck. A purple dot over a mark: a fault of the plan took effect there (its text in the tooltip).") + lanes
	}
	return l.t("Numa barra de lease, <b>j3 f2 a1</b> é o job j3 com o fence 2, na tentativa 1.",
		"On a lease bar, <b>j3 f2 a1</b> is job j3 under fence 2, on attempt 1.") + lanes
}

// encode is the data as JSON that is safe inside a <script> element:
// encoding/json escapes <, > and & (so no "</script>" can appear).
func encode(d *data, l Lang) ([]byte, error) {
	return json.Marshal(struct {
		*data
		UI map[string]string `json:"ui"`
	}{d, l.uiFor(d)})
}

// writeMeta is the run's header: seed, design, size, swarm, plan, command.
func writeMeta(b *strings.Builder, r Run, l Lang) {
	res, c := r.Result, r.Result.Config
	b.WriteString("<div class=\"dtl-meta\">")
	fmt.Fprintf(b, "<p class=\"dtl-run\">%s %d · %s <code>%s</code> · %s · %s · %s · %s · hash <code>%s</code></p>",
		l.t("semente", "seed"), res.Seed, l.t("arquitetura", "design"), html.EscapeString(c.Variant),
		count(l, int(c.DocCount()), "documento", "documentos", "document", "documents"),
		count(l, int(c.Workers), "worker", "workers", "worker", "workers"),
		count(l, int(c.Tenants), "tenant", "tenants", "tenant", "tenants"),
		count(l, len(res.History), "evento", "eventos", "event", "events"), res.HashHex())
	writePlan(b, res.Swarm(), res.Realized, r.Command, l)
}

// writePlan ends a run's header: its swarm, the faults that took effect
// and the command that reproduces it.
func writePlan(b *strings.Builder, swarm string, realized faults.Plan, command string, l Lang) {
	if swarm != "" {
		fmt.Fprintf(b, "<p class=\"dtl-swarm\"><code>%s</code></p>", html.EscapeString(swarm))
	}
	plan := strings.TrimSpace(realized.String())
	if plan == "" {
		fmt.Fprintf(b, "<p class=\"dtl-plan\">%s</p>", l.t("nenhuma falha teve efeito", "no fault took effect"))
	} else {
		fmt.Fprintf(b, "<details class=\"dtl-plan\"><summary>%s</summary><pre>%s</pre></details>",
			l.t(fmt.Sprintf("plano: %d falha(s) tiveram efeito", realized.Len()), fmt.Sprintf("plan: %d fault(s) took effect", realized.Len())),
			html.EscapeString(plan))
	}
	if command != "" {
		fmt.Fprintf(b, "<p class=\"dtl-cmd\"><code>%s</code></p>", html.EscapeString(command))
	}
	b.WriteString("</div>\n")
}

// writeTargetMeta is a target run's header: seed, design, queue, size,
// swarm, plan, command.
func writeTargetMeta(b *strings.Builder, r Run, l Lang) {
	res, c := r.Target, r.Target.Config
	docs := c.Docs
	if c.Only != nil {
		docs = len(c.Only)
	}
	b.WriteString("<div class=\"dtl-meta\">")
	fmt.Fprintf(b, "<p class=\"dtl-run\">%s %d · %s <code>%s</code> · %s <code>%s</code> · %s · %s · %s · %s · hash <code>%s</code></p>",
		l.t("semente", "seed"), res.Seed, l.t("handler", "handler"), html.EscapeString(c.Design.String()),
		l.t("fila", "queue"), html.EscapeString(res.Target),
		count(l, docs, "documento", "documentos", "document", "documents"),
		count(l, c.Workers, "worker", "workers", "worker", "workers"),
		count(l, c.Tenants, "tenant", "tenants", "tenant", "tenants"),
		count(l, len(res.Ops), "evento", "eventos", "event", "events"), res.HashHex())
	writePlan(b, res.Swarm, res.Realized, r.Command, l)
}

func count(l Lang, n int, ptOne, ptMany, enOne, enMany string) string {
	word := l.t(ptMany, enMany)
	if n == 1 {
		word = l.t(ptOne, enOne)
	}
	return strconv.Itoa(n) + " " + word
}

// writeViolation is the banner of the violation shown, with a choice of
// the others: in the page's language, the English original a click away,
// and for a shrunk run a line saying its ids are its own.
func writeViolation(b *strings.Builder, d *data, l Lang, shrunk bool) {
	if d.Selected < 0 {
		fmt.Fprintf(b, "<div class=\"dtl-violation dtl-ok\">%s</div>\n", l.t("Nenhum invariante violado.", "No invariant violated."))
		return
	}
	v := d.Violations[d.Selected]
	b.WriteString("<div class=\"dtl-violation\" role=\"alert\">")
	if shrunk {
		fmt.Fprintf(b, "<p class=\"dtl-shrunk\">%s</p>", l.t(
			"A violação desta execução reduzida, com os ids dela: o shrink renumera jobs, eventos e workers, então j1 ou #7 aqui não são os da execução original.",
			"This shrunk run's own violation, with its own ids: the shrink renumbers jobs, events and workers, so j1 or #7 here are not those of the original run."))
	}
	fmt.Fprintf(b, "<strong class=\"dtl-inv\">%s</strong> <span class=\"dtl-msg\">%s</span>",
		html.EscapeString(v.Invariant), html.EscapeString(strings.TrimPrefix(v.shown(), v.Invariant+": ")))
	if v.Local != "" {
		fmt.Fprintf(b, "<details class=\"dtl-orig\"><summary>%s</summary><code class=\"dtl-orig-text\">%s</code></details>",
			l.t("original em inglês", "original"), html.EscapeString(v.Text))
	}
	if len(d.Violations) > 1 {
		fmt.Fprintf(b, " <select class=\"dtl-vsel\" aria-label=\"%s\">", l.t("violação mostrada", "violation shown"))
		for i, v := range d.Violations {
			sel := ""
			if i == d.Selected {
				sel = " selected"
			}
			fmt.Fprintf(b, "<option value=\"%d\"%s>%s</option>", i, sel, html.EscapeString(shorten(v.shown(), 140)))
		}
		b.WriteString("</select>")
	}
	b.WriteString("</div>\n")
}

// shown is the violation's text in the page's language.
func (v violation) shown() string {
	if v.Local != "" {
		return v.Local
	}
	return v.Text
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeControls is the row of filters and zoom buttons.
func writeControls(b *strings.Builder, d *data, l Lang) {
	b.WriteString("<div class=\"dtl-controls\">")
	if d.Selected >= 0 {
		fmt.Fprintf(b, "<button type=\"button\" class=\"dtl-involved\" aria-pressed=\"false\">%s</button>", l.t("Só os jobs envolvidos", "Only the jobs involved"))
	}
	fmt.Fprintf(b, "<input type=\"search\" class=\"dtl-search\" placeholder=\"%s\" aria-label=\"%s\">",
		l.t("filtrar: j3, acme, acme:d1:v1, commit…", "filter: j3, acme, acme:d1:v1, commit…"), l.t("filtrar eventos", "filter events"))
	fmt.Fprintf(b, "<label><input type=\"checkbox\" class=\"dtl-gaps\" checked> %s</label>", l.t("comprimir intervalos ociosos", "compress idle gaps"))
	fmt.Fprintf(b, "<button type=\"button\" class=\"dtl-zin\" title=\"%s\">+</button><button type=\"button\" class=\"dtl-zout\" title=\"%s\">−</button><button type=\"button\" class=\"dtl-fit\">%s</button>",
		l.t("aproximar", "zoom in"), l.t("afastar", "zoom out"), l.t("tudo", "fit"))
	b.WriteString("<span class=\"dtl-count\" aria-live=\"polite\"></span></div>\n")
}
