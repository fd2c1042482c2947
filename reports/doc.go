// Package reports renders the course scenarios (package scenarios) as
// Markdown reports with SVG charts, in Brazilian Portuguese and English,
// and River (package targetsim against target/rivertarget) in one more
// report, "River under crashes and zombies", and River, goqite and asynq
// in another, "River, goqite and asynq side by side".
//
// # Use
//
// [Build] runs one scenario — every arm, the minimal counterexample of
// each naive arm that breaks an invariant (sim.Shrink, then sim.Timeline),
// and the same checks over a range of seeds — and returns a [Built].
// [Built.Files] renders it in one [Lang]: the report and its charts.
// [BuildRiver] runs the River report's sweeps — every handler design of
// targetsim on River v0.51.2 on in-memory SQLite, the correct ones on
// seeds 1 to 20, each naive one until its first failing seed (at most
// 200), each
// failure shrunk (targetsim.Shrink), the documented JobCompleteTx
// pattern's counterexample replayed with its trace — and returns a
// [River]. [BuildSide] runs goqite's sweeps the same way beside River's,
// re-runs the findings whose plans are recorded, and reads asynq's
// recorded chaos runs ([AsynqFile], written by `durasim report
// -record-asynq`), returning a [Side]. All are a [Report]; [Index] lists every report in both
// languages, [Render] renders them all. [Write] puts [File]s under a
// directory. `durasim report` and `make report` do all of this.
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
//	pt-BR/river-target.md             the River report (RiverName)
//	pt-BR/charts/river-target-effects.svg
//	pt-BR/queues-side-by-side.md      River, goqite and asynq (SideName)
//	pt-BR/charts/queues-side-by-side-own.svg
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
// A page reads on a phone as on a desktop: a table or a diagram wider
// than the page scrolls in a box of its own (internal/browser's
// data-scrollbox) under a cue that shows while it scrolls, a diagram
// opening on the lifelines its violation's events join (site.js); code
// blocks wrap line by line under a hanging indent; the index becomes one
// card per report. A violation is written in the report's language
// (package timeline's translation of its message), its English original
// in a <details> beside it. A chart of one line per arm is left out, with
// a sentence saying why, when all its lines are the same or none moves;
// the effects per stage take its place where they differ between arms.
//
// # Determinism
//
// Reports carry no timestamps, absolute paths or map order: the same code
// writes the same bytes, which a golden test (testdata/golden, updated
// with go test ./reports -update) holds it to; of the site, only the index
// has a golden copy, the pages are written twice and compared, held to
// their Markdown, and opened in headless Chromium on a desktop and on a
// phone, where a test measures what a reader would see go wrong
// (site_test.go). Charts are laid out with
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
// sentence to the table in both languages. The River report's sentences
// are written from its runs too, and river_test.go holds each to the
// table or the trace lines it stands beside, reading the rendered
// Markdown: the design table's verdicts, the exposure counts, the
// contrast on the shrunk plan, and the walk through the documented
// pattern, whose every cited event and quoted field is found in the trace
// block, and whose pattern is found again in that block by its text. Its
// "Notes" section alone is literal text (River's changelog, cited), and
// what it quotes of River's source is found in the module the build uses.
// The side-by-side report's sentences are held to its tables by
// side_test.go, and its two languages to the same facts.
package reports
