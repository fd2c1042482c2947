// Package reports renders the course scenarios (package scenarios) as
// Markdown reports with SVG charts, in Brazilian Portuguese and English.
//
// # Use
//
// [Build] runs one scenario — every arm, the minimal counterexample of
// each naive arm that breaks an invariant (sim.Shrink, then sim.Timeline),
// and the same checks over a range of seeds — and returns a [Built].
// [Built.Files] renders it in one [Lang]: the report and its charts.
// [Index] lists every scenario in both languages. [Write] puts [File]s
// under a directory. `durasim report` and `make report` do all of this.
//
// # Layout
//
// Under the output directory (reports/out for `make report`):
//
//	index.md                          every scenario, both languages
//	pt-BR/<scenario>.md               one report per scenario
//	pt-BR/charts/<scenario>-<kind>.svg
//	en/<scenario>.md
//	en/charts/<scenario>-<kind>.svg
//	site/index.html                   the same, as HTML ([Site])
//	site/pt-BR/<scenario>.html
//	site/en/<scenario>.html
//
// # The site
//
// [Built.SiteFile] renders a report for the site: the Markdown the report
// writes, converted by github.com/yuin/goldmark (GitHub tables, links
// between reports pointed at their pages), with what Markdown cannot
// carry put in its place — each chart inline, each sequence diagram drawn
// as SVG by this package (seqdiag.go, glyph outlines like the charts)
// instead of a Mermaid block, and each naive arm's counterexample as an
// interactive timeline (package timeline). A page is self-contained: its
// style, script and data are inline and its Content-Security-Policy
// forbids any fetch. The Markdown output is unchanged by all this.
//
// # Determinism
//
// Reports carry no timestamps, absolute paths or map order: the same code
// writes the same bytes, which a golden test (testdata/golden, updated
// with go test ./reports -update) holds it to; of the site, only the index
// has a golden copy, the pages are written twice and compared, held to
// their Markdown, and opened in headless Chromium (site_test.go). Charts are laid out with
// gonum.org/v1/plot and written by this package's own SVG canvas, which
// draws text as the outlines of Liberation Sans (embedded in gonum) with
// coordinates at a fixed precision: the bytes are stable and a chart looks
// the same on every machine, whatever fonts it has. The legend sits above
// the plot, never on the data; a test renders every chart with
// rsvg-convert and checks that.
//
// # Claims
//
// A sentence about the numbers (a scenario's [scenarios.Claim]) is written
// from the run's figures beside the outcome table, and a test holds each
// sentence to the table in both languages.
package reports
