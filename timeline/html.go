package timeline

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/durasim/durasim/sim"
)

//go:embed timeline.js
var script string

//go:embed timeline.css
var style string

// Run is one history a timeline draws.
type Run struct {
	Label     string      // the tab's name ("shrunk counterexample", "whole run")
	Result    *sim.Result // run with Config.KeepTrace
	Invariant string      // the violation shown first: the first of this invariant ("": the first one)
	Command   string      // the command that reproduces the run ("": none shown)
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

// tabs writes the buttons that switch between the runs.
func (p Page) tabs(b *strings.Builder) {
	b.WriteString("<nav class=\"dtl-tabs\" role=\"tablist\">")
	for i, r := range p.Runs {
		fmt.Fprintf(b, "<button type=\"button\" role=\"tab\" aria-controls=\"dtl%d-panel\" aria-selected=\"%t\">%s · %s</button>",
			i, i == 0, html.EscapeString(r.Label), p.Lang.t(strconv.Itoa(len(r.Result.History))+" eventos", strconv.Itoa(len(r.Result.History))+" events"))
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
	if r.Result == nil {
		return "", fmt.Errorf("timeline %s: no run", id)
	}
	d, err := build(r.Result, r.Invariant)
	if err != nil {
		return "", err
	}
	js, err := encode(d, l)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<div class=\"dtl\" id=\"%s\">\n", html.EscapeString(id))
	writeMeta(&b, r, l)
	writeViolation(&b, d, l)
	writeControls(&b, d, l)
	b.WriteString("<div class=\"dtl-legend\"></div>\n")
	fmt.Fprintf(&b, "<div class=\"dtl-view\" tabindex=\"0\"><canvas class=\"dtl-axis\" aria-hidden=\"true\"></canvas><div class=\"dtl-body\"><div class=\"dtl-labels\"></div><canvas class=\"dtl-canvas\" role=\"img\" aria-label=\"%s\"></canvas></div><div class=\"dtl-tip\" hidden></div></div>\n",
		l.t(fmt.Sprintf("linha do tempo: %d eventos em %d raias", len(d.Text), len(d.Lanes)), fmt.Sprintf("timeline: %d events on %d lanes", len(d.Text), len(d.Lanes))))
	fmt.Fprintf(&b, "<p class=\"dtl-detail\" aria-live=\"polite\">%s</p>\n", html.EscapeString(l.ui()["hint"]))
	fmt.Fprintf(&b, "<script type=\"application/json\" class=\"dtl-data\">%s</script>\n</div>\n", js)
	return b.String(), nil
}

// encode is the data as JSON that is safe inside a <script> element:
// encoding/json escapes <, > and & (so no "</script>" can appear).
func encode(d *data, l Lang) ([]byte, error) {
	return json.Marshal(struct {
		*data
		UI map[string]string `json:"ui"`
	}{d, l.ui()})
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
	if res.Swarm != "" {
		fmt.Fprintf(b, "<p class=\"dtl-swarm\"><code>%s</code></p>", html.EscapeString(res.Swarm))
	}
	plan := strings.TrimSpace(res.Realized.String())
	if plan == "" {
		fmt.Fprintf(b, "<p class=\"dtl-plan\">%s</p>", l.t("nenhuma falha teve efeito", "no fault took effect"))
	} else {
		fmt.Fprintf(b, "<details class=\"dtl-plan\"><summary>%s</summary><pre>%s</pre></details>",
			l.t(fmt.Sprintf("plano: %d falha(s) tiveram efeito", res.Realized.Len()), fmt.Sprintf("plan: %d fault(s) took effect", res.Realized.Len())),
			html.EscapeString(plan))
	}
	if r.Command != "" {
		fmt.Fprintf(b, "<p class=\"dtl-cmd\"><code>%s</code></p>", html.EscapeString(r.Command))
	}
	b.WriteString("</div>\n")
}

func count(l Lang, n int, ptOne, ptMany, enOne, enMany string) string {
	word := l.t(ptMany, enMany)
	if n == 1 {
		word = l.t(ptOne, enOne)
	}
	return strconv.Itoa(n) + " " + word
}

// writeViolation is the banner of the violation shown, with a choice of
// the others.
func writeViolation(b *strings.Builder, d *data, l Lang) {
	if d.Selected < 0 {
		fmt.Fprintf(b, "<div class=\"dtl-violation dtl-ok\">%s</div>\n", l.t("Nenhum invariante violado.", "No invariant violated."))
		return
	}
	v := d.Violations[d.Selected]
	fmt.Fprintf(b, "<div class=\"dtl-violation\" role=\"alert\"><strong class=\"dtl-inv\">%s</strong> <span class=\"dtl-msg\">%s</span>",
		html.EscapeString(v.Invariant), html.EscapeString(strings.TrimPrefix(v.Text, v.Invariant+": ")))
	if len(d.Violations) > 1 {
		fmt.Fprintf(b, " <select class=\"dtl-vsel\" aria-label=\"%s\">", l.t("violação mostrada", "violation shown"))
		for i, v := range d.Violations {
			sel := ""
			if i == d.Selected {
				sel = " selected"
			}
			fmt.Fprintf(b, "<option value=\"%d\"%s>%s</option>", i, sel, html.EscapeString(shorten(v.Text, 140)))
		}
		b.WriteString("</select>")
	}
	b.WriteString("</div>\n")
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
