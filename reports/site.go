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
	"github.com/yuin/goldmark/parser"
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
func (b *Built) SiteFile(l Lang, w Written) (File, error) {
	charts, err := b.charts(l)
	if err != nil {
		return File{}, err
	}
	parts := &siteParts{l: l, scenario: b.Scenario.Name}
	return sitePageFile(l, b.Scenario.Name, b.Title(l), b.render(l, charts, w, parts), parts)
}

// sitePageFile converts a report's Markdown, rendered with parts, to its
// page: the Markdown as HTML with the blocks put back in.
func sitePageFile(l Lang, name, title, md string, parts *siteParts) (File, error) {
	if parts.err != nil {
		return File{}, parts.err
	}
	body, err := markdownHTML(md)
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
	body, err := markdownHTML(string(Index(reports, langs).Data))
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
	if timelines {
		fmt.Fprintf(&b, "<script>\n%s</script>\n", timeline.Script())
	}
	b.WriteString("</body>\n</html>\n")
	return []byte(b.String())
}

// md converts the reports' Markdown: GitHub tables, raw HTML kept (the
// placeholders), links to .md pages turned into links to .html pages.
var md = goldmark.New(
	goldmark.WithExtensions(extension.Table),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(mdLinks{}, 100))),
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
)

func markdownHTML(src string) (string, error) {
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// mdLinks points the links between reports at their pages.
type mdLinks struct{}

func (mdLinks) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if link, ok := n.(*ast.Link); ok && entering {
			if dest := string(link.Destination); strings.HasSuffix(dest, ".md") && !strings.Contains(dest, "://") {
				link.Destination = []byte(strings.TrimSuffix(dest, ".md") + ".html")
			}
		}
		return ast.WalkContinue, nil
	})
}

// chartFigure is a chart inline with its caption.
func (s *siteParts) chartFigure(c chartFile, n int) string {
	svg := c.canvas.svg(svgOptions{inline: true, ids: fmt.Sprintf("c%d-", n)})
	return fmt.Sprintf("<figure class=\"chart\">%s<figcaption>%s</figcaption></figure>", svg, html.EscapeString(c.Caption))
}

// diagram is a sequence diagram as SVG; named events are red.
func (s *siteParts) diagram(arrows []arrow, named map[uint64]bool) string {
	svg := seqSVG(arrows, named, fmt.Sprintf("s%d-", len(s.blocks)))
	return fmt.Sprintf("<div class=\"seq\">%s</div>", svg)
}

// timeline embeds the interactive timeline of an arm's counterexample.
func (s *siteParts) timeline(arm string, c *Counterexample) string {
	l := s.l
	run := timeline.Run{Label: arm, Result: c.Shrunk.Result, Invariant: c.Shrunk.Invariant}
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
