package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/timeline"
)

// The report site: every report as an HTML page under site/, with the
// same content as its Markdown (the page is the Markdown the report
// writes, converted by goldmark), the charts inline, the sequence
// diagrams drawn as SVG instead of Mermaid, and each naive arm's
// counterexample as an interactive timeline (package timeline). A page
// needs nothing but itself: no network, no renderer.

//go:embed site.css
var siteCSS string

//go:embed site.js
var siteJS string

// siteParts collects what a report's Markdown cannot carry when it renders
// for the site: blocks of HTML, each left in the Markdown as a placeholder
// comment and put back after the conversion.
type siteParts struct {
	l         Lang
	scenario  string
	blocks    []string
	timelines int
	err       error
}

// add keeps a block and returns its placeholder, a paragraph of its own.
func (s *siteParts) add(block string) string {
	s.blocks = append(s.blocks, block)
	return fmt.Sprintf("\n<!--durasim:block:%d-->\n\n", len(s.blocks)-1)
}

var placeholder = regexp.MustCompile(`<!--durasim:block:(\d+)-->\n?`)

// SiteFile renders the scenario's report in language l as a page of the
// site: site/<lang>/<scenario>.html.
func (b *Built) SiteFile(l Lang, w Written) (File, error) { return reportSiteFile(b, l, w) }

// reportSiteFile renders report r in language l as a page of the site.
func reportSiteFile(r Report, l Lang, w Written) (File, error) {
	charts, err := r.charts(l)
	if err != nil {
		return File{}, err
	}
	parts := &siteParts{l: l, scenario: r.Name()}
	return sitePageFile(l, r.Name(), r.Title(l), r.render(l, charts, w, parts), parts)
}

// sitePageFile converts a report's Markdown, rendered with parts, to its
// page: the Markdown as HTML with the blocks put back in.
func sitePageFile(l Lang, name, title, md string, parts *siteParts) (File, error) {
	if parts.err != nil {
		return File{}, parts.err
	}
	body, err := markdownHTML(md, l, false)
	if err != nil {
		return File{}, err
	}
	body = placeholder.ReplaceAllStringFunc(body, func(m string) string {
		n, _ := strconv.Atoi(placeholder.FindStringSubmatch(m)[1])
		return parts.blocks[n] + "\n"
	})
	page := sitePage(l, title, body, parts.timelines > 0)
	return File{Path: "site/" + string(l) + "/" + name + ".html", Data: page}, nil
}

// SiteIndex is the site's first page: the index, both languages.
func SiteIndex(reports []Report, langs []Lang) (File, error) {
	body, err := markdownHTML(string(Index(reports, langs).Data), PtBR, true)
	if err != nil {
		return File{}, err
	}
	return File{Path: "site/index.html", Data: sitePage(PtBR, "durasim — relatórios dos cenários / scenario reports", body, false)}, nil
}

// sitePage wraps a page's body: the style, the policy that forbids any
// fetch, and the timeline script when the page holds timelines.
func sitePage(l Lang, title, body string, timelines bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", l)
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", timeline.CSP)
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s", html.EscapeString(title), siteCSS)
	if timelines {
		b.WriteString(timeline.Style())
	}
	b.WriteString("</style>\n</head>\n<body>\n<main class=\"report\">\n")
	b.WriteString(body)
	b.WriteString("</main>\n")
	fmt.Fprintf(&b, "<script>\n%s</script>\n", siteJS)
	if timelines {
		fmt.Fprintf(&b, "<script>\n%s</script>\n", timeline.Script())
	}
	b.WriteString("</body>\n</html>\n")
	return []byte(b.String())
}

// markdownHTML converts the reports' Markdown: GitHub tables (each in a
// marked scroll box with its cue in language l, or, with cards, laid out
// as one card per row on a phone), raw HTML kept (the placeholders),
// links to .md pages turned into links to .html pages.
func markdownHTML(src string, l Lang, cards bool) (string, error) {
	var b bytes.Buffer
	if err := converters[converterKey{l, cards}].Convert([]byte(src), &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// converterKey picks a converter: the language of its cues, and cards.
type converterKey struct {
	l     Lang
	cards bool
}

// converters are made once (goldmark's are safe for concurrent use).
var converters = func() map[converterKey]goldmark.Markdown {
	out := map[converterKey]goldmark.Markdown{}
	for _, l := range Langs() {
		for _, cards := range []bool{false, true} {
			out[converterKey{l, cards}] = goldmark.New(
				goldmark.WithExtensions(extension.Table),
				goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(mdLinks{cards: cards}, 100))),
				goldmark.WithRendererOptions(gmhtml.WithUnsafe(),
					renderer.WithNodeRenderers(util.Prioritized(newTableBox(l, cards), 100), util.Prioritized(codeLines{}, 100))),
			)
		}
	}
	return out
}()

// inlineHTML is one paragraph of Markdown as HTML without its <p>: a
// caption the Markdown report writes as Markdown renders as Markdown.
func inlineHTML(src string, l Lang) string {
	out, err := markdownHTML(src, l, false)
	if err != nil { // goldmark returns only its writer's errors: a strings.Builder has none
		return html.EscapeString(src)
	}
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(out), "<p>"), "</p>")
}

// mdLinks points the links between reports at their pages, marks the
// links that leave the site (a reader follows them; the page fetches
// nothing), and, for cards, labels each table cell with its column's
// heading.
type mdLinks struct{ cards bool }

func (t mdLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var heads []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			dest := string(n.Destination)
			switch {
			case strings.Contains(dest, "://"):
				n.SetAttributeString("rel", "noreferrer")
			case strings.HasSuffix(dest, ".md"):
				n.Destination = []byte(strings.TrimSuffix(dest, ".md") + ".html")
			}
		case *east.TableHeader:
			heads = heads[:0]
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				heads = append(heads, plainText(c, reader.Source()))
			}
		case *east.TableRow:
			k := 0
			for c := n.FirstChild(); c != nil && t.cards; c = c.NextSibling() {
				if k < len(heads) && heads[k] != "" {
					c.SetAttributeString("data-label", heads[k])
				}
				k++
			}
		}
		return ast.WalkContinue, nil
	})
}

// plainText is the text of a node and its children, Markdown removed.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// tableBox renders each table inside its scroll box: a table wider than
// the page scrolls sideways in its box, the page does not, and a cue over
// the box says so while it does (the site's script shows it). With cards
// the table has no box: on a narrow screen its rows become cards
// (site.css), so it never is wider than the page.
type tableBox struct {
	l      Lang
	cards  bool
	render renderer.NodeRendererFunc // goldmark's own <table>
}

func newTableBox(l Lang, cards bool) *tableBox {
	t := &tableBox{l: l, cards: cards}
	extension.NewTableHTMLRenderer().RegisterFuncs(funcsOf{east.KindTable: &t.render})
	return t
}

// funcsOf captures the functions a NodeRenderer registers, by kind.
type funcsOf map[ast.NodeKind]*renderer.NodeRendererFunc

func (f funcsOf) Register(k ast.NodeKind, fn renderer.NodeRendererFunc) {
	if p, ok := f[k]; ok {
		*p = fn
	}
}

func (t *tableBox) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(east.KindTable, t.table)
}

func (t *tableBox) table(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if t.cards {
		if entering {
			n.SetAttributeString("class", "cards")
		}
		return t.render(w, src, n, entering)
	}
	if entering {
		_, _ = w.WriteString(scrollOpen(t.l.t("⇆ deslize a tabela para o lado para ver todas as colunas", "⇆ scroll the table sideways to see every column"), "scroll", ""))
	}
	st, err := t.render(w, src, n, entering)
	if !entering {
		_, _ = w.WriteString(scrollClose)
	}
	return st, err
}

// codeLines renders a code block with each of its lines in a span of its
// own, so that a line too long for the page wraps under itself with a
// hanging indent (site.css) and a wrapped command still reads as one: the
// page never scrolls sideways for a command, and copying it gives its
// text as it is.
type codeLines struct{}

func (codeLines) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindFencedCodeBlock, codeBlock)
	r.Register(ast.KindCodeBlock, codeBlock)
}

func codeBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<pre><code")
	if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
		if lang := f.Language(src); len(lang) > 0 {
			_, _ = w.WriteString(` class="language-` + html.EscapeString(string(lang)) + `"`)
		}
	}
	_, _ = w.WriteString(">")
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		_, _ = w.WriteString(`<span class="ln">`)
		_, _ = w.WriteString(flagRe.ReplaceAllString(html.EscapeString(string(seg.Value(src))), `$1<span class="flag">$2</span>`))
		_, _ = w.WriteString("</span>")
	}
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// flagRe is a command's flag: a wrapped line breaks before it or after it,
// never after its hyphen (which reads as a flag cut from its name).
var flagRe = regexp.MustCompile(`(^|\s)(-[\w-]+)`)

// scrollOpen opens a marked scroll box (internal/browser's
// data-scrollbox) of class cls, with its cue, and attrs on the box.
func scrollOpen(cue, cls, attrs string) string {
	return fmt.Sprintf("<div class=\"wide\"><p class=\"scroll-cue\" data-scroll-cue aria-hidden=\"true\">%s</p><div class=\"%s\" data-scrollbox%s>", html.EscapeString(cue), cls, attrs)
}

const scrollClose = "</div></div>\n"

// chartFigure is a chart inline with its caption.
func (s *siteParts) chartFigure(c chartFile, n int) string {
	svg := c.canvas.svg(svgOptions{inline: true, ids: fmt.Sprintf("c%d-", n), textAttr: true})
	return fmt.Sprintf("<figure class=\"chart\">%s<figcaption>%s</figcaption></figure>", svg, inlineHTML(c.Caption, s.l))
}

// diagram is a sequence diagram as SVG; named events are red. It fits a
// desktop page; on a narrower screen it scrolls sideways in its box, which
// the site's script scrolls at load to the stretch the named events
// occupy (data-focus, in CSS pixels from the diagram's left edge).
func (s *siteParts) diagram(arrows []arrow, named map[uint64]bool) string {
	lay := layoutSeq(arrows)
	svg := seqCanvasOf(lay, named).svg(svgOptions{inline: true, ids: fmt.Sprintf("s%d-", len(s.blocks)), textAttr: true})
	attrs := ""
	if lo, hi := lay.focus(named); hi > 0 {
		attrs = fmt.Sprintf(" data-focus=\"%s %s\"", num(lo*pxPerPt), num(hi*pxPerPt))
	}
	cue := s.l.t("⇆ deslize o diagrama para o lado; ele abre nos eventos que a violação cita", "⇆ scroll the diagram sideways; it opens on the events the violation names")
	if attrs == "" {
		cue = s.l.t("⇆ deslize o diagrama para o lado para ver todas as raias", "⇆ scroll the diagram sideways to see every lane")
	}
	return scrollOpen(cue, "seq", attrs) + string(svg) + strings.TrimSuffix(scrollClose, "\n")
}

// pxPerPt converts the diagrams' points to CSS pixels.
const pxPerPt = 4.0 / 3

// timeline embeds the interactive timeline of an arm's counterexample.
func (s *siteParts) timeline(arm string, c *Counterexample) string {
	l := s.l
	run := timeline.Run{Label: arm, Result: c.Shrunk.Result, Invariant: c.Shrunk.Invariant, Shrunk: true}
	if Replayable(c.Shrunk.Config) {
		run.Command = sim.Command("replay", c.Shrunk.Config, c.Shrunk.Seed)
	}
	frag, err := timeline.Fragment(run, fmt.Sprintf("tl-%s-%d", s.scenario, s.timelines), timeline.Lang(l))
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("scenario %s, arm %s: %w", s.scenario, arm, err)
	}
	s.timelines++
	intro := l.t("Linha do tempo interativa deste contraexemplo: uma raia por ator, o tempo da simulação na horizontal (arraste para mover, roda do mouse para aproximar), os eventos que a violação cita circulados em vermelho. Passe o mouse numa marca para ver sua linha do trace; «Só os jobs envolvidos» deixa o caminho crítico da tabela acima.",
		"Interactive timeline of this counterexample: one lane per actor, simulated time left to right (drag to pan, wheel to zoom), the events the violation names ringed in red. Hover a mark for its trace line; \"Only the jobs involved\" keeps the critical path of the table above.")
	return fmt.Sprintf("<p>%s</p>\n%s", html.EscapeString(intro), frag)
}
