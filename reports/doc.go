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
//
// # Determinism
//
// Reports carry no timestamps, absolute paths or map order: the same code
// writes the same bytes, which a golden test (testdata/golden, updated
// with go test ./reports -update) holds it to. Charts are drawn with
// gonum.org/v1/plot through its SVG backend (vg/vgsvg), which writes text
// with font names rather than embedded fonts and formats coordinates with a
// fixed precision, so its output is byte-stable too.
package reports
