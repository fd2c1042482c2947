package reports

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

// chartFile is one rendered chart: its file name under charts/, what
// the report says about it, and its drawing (kept for the chart test,
// which renders its layers apart).
type chartFile struct {
	Name    string // file name, e.g. opening-incident-depth.svg
	Caption string
	SVG     []byte
	canvas  *svgCanvas
}

// maxPoints bounds the points of a line: longer series are bucketed,
// keeping each bucket's maximum (peaks survive).
const maxPoints = 400

// The chart's size and its typeface: Liberation Sans (embedded in gonum),
// drawn as outlines, so the size gonum measures is the size on screen.
var (
	chartW, chartH = 6 * vg.Inch, 3.5 * vg.Inch
	chartFont      = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

// chart is a plot before rendering: gonum draws the axes and the data,
// this package the title and the legend, above the plot and never on the
// data.
type chart struct {
	title   string
	p       *plot.Plot
	entries []legendEntry
}

type legendEntry struct {
	label string
	thumb plot.Thumbnailer
}

func (c *chart) legend(label string, t plot.Thumbnailer) {
	c.entries = append(c.entries, legendEntry{label, t})
}

// charts renders the scenario's charts in language l.
func (b *Built) charts(l Lang) ([]chartFile, error) {
	var out []chartFile
	for _, kind := range b.Scenario.Charts {
		files, err := b.chart(kind, l)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: chart %d: %w", b.Scenario.Name, kind, err)
		}
		out = append(out, files...)
	}
	return out, nil
}

func (b *Built) chart(kind scenarios.Chart, l Lang) ([]chartFile, error) {
	name := b.Scenario.Name
	if _, drop := b.dropped(kind, l); drop {
		if !b.effectsDiffer() {
			return nil, nil
		}
		return one(name+"-effects.svg", l.t("Efeitos que o consumidor aplicou em cada estágio, por variante.", "Effects the consumer applied at each stage, per arm."),
			func() (*chart, error) { return b.effectsChart(l) })
	}
	switch kind {
	case scenarios.ChartDepth:
		caption := l.t("Profundidade da fila (jobs vivos) a cada tick de 100 ms, por variante.", "Queue depth (live jobs) at every 100 ms tick, per arm.")
		return one(name+"-depth.svg", caption+b.sameLines(l, depthSeries), func() (*chart, error) { return b.depthChart(l) })
	case scenarios.ChartCalls:
		return one(name+"-calls.svg", l.t("Chamadas ao provedor por segundo (linha cheia) e respostas 429 por segundo (tracejada), por estratégia, até a tempestade passar (os redrives bem depois ficam fora).",
			"Provider calls per second (solid) and 429 answers per second (dashed), per strategy, until the storm is over (redrives long after it are left out)."), func() (*chart, error) { return b.callsChart(l) })
	case scenarios.ChartBreaker:
		return one(name+"-breaker.svg", l.t("Estado do disjuntor ao longo do tempo, por variante.",
			"The circuit breaker's state over time, per arm."), func() (*chart, error) { return b.breakerChart(l) })
	case scenarios.ChartReplay:
		return one(name+"-replay.svg", l.t("Chamadas ao LLM na primeira execução e no replay, por variante.",
			"LLM calls in the first execution and during the replay, per arm."), func() (*chart, error) { return b.replayChart(l) })
	case scenarios.ChartWaits:
		var out []chartFile
		for i := range b.Outcomes {
			o := &b.Outcomes[i]
			if o.Result == nil {
				continue
			}
			caption := l.t("Espera na fila, inferência e espera por revisão por documento — variante ", "Queue wait, inference and review wait per document — arm ") + o.Arm.Name() + "."
			if note := reprocessNote(l, o.Result); note != "" {
				caption += " " + note
			}
			if tinyReviewWaits(o.Result) {
				caption += l.t(" A espera por revisão, de milissegundos, quase não aparece nesta escala", " The review wait, a matter of milliseconds, barely shows at this scale")
				if len(o.Result.Metrics.Docs) <= maxDocRows {
					caption += l.t(" (os valores estão na tabela por documento)", " (the per-document table has its values)")
				}
				caption += "."
			}
			f, err := one(name+"-waits-"+slug(o.Arm.Name())+".svg", caption, func() (*chart, error) { return b.waitsChart(o, l) })
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown chart kind %d", kind)
}

// tinyReviewWaits reports whether every review wait is under 1% of the
// longest bar of the waits chart.
func tinyReviewWaits(r *sim.Result) bool {
	var longest, review model.Time
	for _, d := range r.Metrics.Docs {
		longest = max(longest, max(d.QueueWait, 0)+d.Inference+d.ReviewWait)
		review = max(review, d.ReviewWait)
	}
	return review*100 < longest
}

func one(name, caption string, mk func() (*chart, error)) ([]chartFile, error) {
	c, err := mk()
	if err != nil {
		return nil, err
	}
	cv := c.render()
	return []chartFile{{Name: name, Caption: caption, SVG: cv.svg(svgOptions{}), canvas: cv}}, nil
}

// Layout of a chart, in points.
const (
	chartPad   = 6  // around the canvas
	swatchW    = 22 // a legend sample's width
	swatchGap  = 4  // between a sample and its label
	entryGap   = 14 // between two legend entries
	legendSize = 10 // legend font size
)

// render draws the chart: background, title, legend rows, then the plot
// in the room left below them.
func (c *chart) render() *svgCanvas {
	cv := newSVGCanvas(chartW, chartH)
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	top := dc.Max.Y - chartPad
	title := textStyle(12)
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	dc.FillText(title, vg.Point{X: dc.Center().X, Y: top}, c.title)
	top -= title.Height(c.title) + 4
	top = c.drawLegend(dc, top) - 2
	area := draw.Canvas{Canvas: cv, Rectangle: vg.Rectangle{Min: vg.Point{X: dc.Min.X + chartPad, Y: dc.Min.Y + 2}, Max: vg.Point{X: dc.Max.X - chartPad, Y: top}}}
	c.p.Draw(area)
	cv.layer = layerFrame
	return cv
}

// drawLegend lays the entries out in centred rows from y top down, and
// returns the y below the last row.
func (c *chart) drawLegend(dc draw.Canvas, top vg.Length) vg.Length {
	cv := svgOf(dc.Canvas)
	sty := textStyle(legendSize)
	sty.YAlign = draw.YTop
	h := sty.Height("Mg")
	for _, row := range c.legendRows(dc.Max.X - dc.Min.X - 2*chartPad) {
		x := dc.Center().X - rowWidth(row)/2
		for _, e := range row {
			cv.layer = layerSwatch
			e.thumb.Thumbnail(&draw.Canvas{Canvas: cv, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: top - h + 1}, Max: vg.Point{X: x + swatchW, Y: top - 1}}})
			cv.layer = layerKey
			dc.FillText(sty, vg.Point{X: x + swatchW + swatchGap, Y: top}, e.label)
			x += entryWidth(e) + entryGap
		}
		top -= h + 3
	}
	cv.layer = layerFrame
	return top
}

// legendRows breaks the entries into rows no wider than width.
func (c *chart) legendRows(width vg.Length) [][]legendEntry {
	var rows [][]legendEntry
	for _, e := range c.entries {
		n := len(rows)
		if n == 0 || rowWidth(rows[n-1])+entryGap+entryWidth(e) > width {
			rows = append(rows, nil)
			n++
		}
		rows[n-1] = append(rows[n-1], e)
	}
	return rows
}

func entryWidth(e legendEntry) vg.Length {
	return swatchW + swatchGap + textStyle(legendSize).Width(e.label)
}

func rowWidth(row []legendEntry) vg.Length {
	w := vg.Length(0)
	for i, e := range row {
		if i > 0 {
			w += entryGap
		}
		w += entryWidth(e)
	}
	return w
}

func textStyle(size float64) draw.TextStyle {
	f := chartFont
	f.Size = vg.Points(size)
	return draw.TextStyle{Color: color.Black, Font: f, Handler: plot.DefaultTextHandler}
}

// newPlot is a plot with the chart font, a grid, and the data layer
// switched on for the plotters added after it.
func newPlot(l Lang, title, x, y string) *chart {
	p := plot.New()
	p.BackgroundColor = nil
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, t := range []*draw.TextStyle{&p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		t.Font.Typeface, t.Font.Variant = chartFont.Typeface, chartFont.Variant
	}
	p.X.Tick.Marker = ticker{l: l}
	p.Y.Tick.Marker = ticker{l: l}
	p.Add(plotter.NewGrid(), layerSwitch(layerMarks))
	return &chart{title: title, p: p}
}

// layerSwitch is a plotter that draws nothing: it tags what the plotters
// after it draw as belonging to a layer.
type layerSwitch string

func (s layerSwitch) Plot(c draw.Canvas, _ *plot.Plot) {
	if cv := svgOf(c.Canvas); cv != nil {
		cv.layer = string(s)
	}
}

// svgOf finds the svgCanvas under the draw.Canvases gonum wraps it in.
func svgOf(c vg.Canvas) *svgCanvas {
	for {
		switch v := c.(type) {
		case *svgCanvas:
			return v
		case draw.Canvas:
			c = v.Canvas
		case *draw.Canvas:
			c = v.Canvas
		default:
			return nil
		}
	}
}

// simOutcomes are the arms that ran a simulation, with their index.
func (b *Built) simOutcomes() []*scenarios.Outcome {
	var out []*scenarios.Outcome
	for i := range b.Outcomes {
		if b.Outcomes[i].Result != nil {
			out = append(out, &b.Outcomes[i])
		}
	}
	return out
}

// armStyle is arm i's line: the first arm widest, the others narrower
// and dashed, drawn on top, so lines that coincide stay visible.
func armStyle(i int, dashed bool) draw.LineStyle {
	st := draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(max(1.2, 3.4-1.1*float64(i)))}
	if dashed {
		st.Dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}[i%3]
	}
	return st
}

// lineThumb is a legend sample of a line style.
type lineThumb draw.LineStyle

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(t), c.Min.X, y, c.Max.X, y)
}

// addLine adds series ys (one value per step seconds) in style st.
func addLine(c *chart, ys []float64, step float64, st draw.LineStyle) error {
	pts := make(plotter.XYs, len(ys))
	for k, y := range ys {
		pts[k] = plotter.XY{X: float64(k) * step, Y: y}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	line.LineStyle = st
	c.p.Add(line)
	return nil
}

// bucket shortens a series to at most maxPoints values, each the maximum
// of its bucket, and returns the new step factor.
func bucket(xs []float64) ([]float64, int) {
	k := (len(xs) + maxPoints - 1) / maxPoints
	if k <= 1 {
		return xs, 1
	}
	out := make([]float64, 0, maxPoints)
	for i := 0; i < len(xs); i += k {
		m := xs[i]
		for _, x := range xs[i:min(i+k, len(xs))] {
			m = max(m, x)
		}
		out = append(out, m)
	}
	return out, k
}

// trim drops a series' trailing zeros, keeping a short tail of them.
func trim(xs []float64, keep int) []float64 {
	last := -1
	for i, x := range xs {
		if x != 0 {
			last = i
		}
	}
	return xs[:min(len(xs), last+1+keep)]
}

func floats(xs []int32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// depthSeries is each simulated arm's queue depth, trimmed of its idle
// tail and padded to the longest arm.
func depthSeries(b *Built) [][]float64 {
	outs := b.simOutcomes()
	series := make([][]float64, len(outs))
	longest := 0
	for i, o := range outs {
		series[i] = trim(floats(o.Result.Metrics.QueueDepth), 10)
		longest = max(longest, len(series[i]))
	}
	for i := range series {
		series[i] = pad(series[i], longest) // an arm that drained stays at 0
	}
	return series
}

// chartNotes says, for each chart the scenario asks for but the report
// leaves out, why (see dropped).
func (b *Built) chartNotes(l Lang) []string {
	var out []string
	for _, kind := range b.Scenario.Charts {
		if note, drop := b.dropped(kind, l); drop {
			out = append(out, note)
		}
	}
	return out
}

// dropped decides whether a chart says anything: a chart of one line per
// arm is there to set the arms side by side, and says nothing when every
// arm draws the same line, or when no line ever moves; the report then
// says so in a sentence (with the one figure the chart would show)
// instead of drawing it.
func (b *Built) dropped(kind scenarios.Chart, l Lang) (string, bool) {
	if kind != scenarios.ChartDepth {
		return "", false
	}
	series := depthSeries(b)
	same, flat := sameSeries(series), flatSeries(series)
	if len(series) == 0 || !same && !flat {
		return "", false
	}
	peak := 0.0
	for _, s := range series {
		peak = max(peak, slices.Max(append(s, 0)))
	}
	arms := make([]string, 0, len(series))
	for _, o := range b.simOutcomes() {
		arms = append(arms, o.Arm.Name())
	}
	jobs := l.count(int(peak), "job vivo", "jobs vivos", "live job", "live jobs")
	var note string
	if same {
		note = fmt.Sprintf(l.t("Sem gráfico da profundidade da fila: %s têm a mesma profundidade em todo tick de 100 ms (no máximo %s), e linhas iguais não mostram contraste nenhum; o pico está na tabela de métricas acima.",
			"No queue-depth chart: %s have the same depth at every 100 ms tick (at most %s), and identical lines show no contrast; the peak is in the metrics table above."), l.list(arms), jobs)
	} else {
		note = fmt.Sprintf(l.t("Sem gráfico da profundidade da fila: ela não muda em tick nenhum de 100 ms (%s).",
			"No queue-depth chart: the depth changes at no 100 ms tick (%s)."), jobs)
	}
	if b.effectsDiffer() {
		note += l.t(" As variantes diferem nos efeitos aplicados, que o gráfico abaixo mostra por estágio.", " The arms differ in the effects applied, which the chart below shows per stage.")
	}
	return note, true
}

// effectsSeries is, per simulated arm, the effects the consumer applied
// at each stage (model.Stages order), counted from the history.
func effectsSeries(b *Built) [][]float64 {
	outs := b.simOutcomes()
	out := make([][]float64, len(outs))
	for i, o := range outs {
		out[i] = make([]float64, len(model.Stages()))
		for k := range o.Result.History {
			if e := &o.Result.History[k]; e.Kind == model.EvApply && e.OK {
				if st := slices.Index(model.Stages(), e.Stage); st >= 0 {
					out[i][st]++
				}
			}
		}
	}
	return out
}

// effectsDiffer reports whether two arms applied different effects at
// some stage: the chart of them then shows a contrast.
func (b *Built) effectsDiffer() bool {
	ss := effectsSeries(b)
	return len(ss) > 1 && !sameSeries(ss)
}

// effectsChart sets the arms' effects per stage side by side, a bar per
// arm at each stage.
func (b *Built) effectsChart(l Lang) (*chart, error) {
	c := newPlot(l, l.t("Efeitos aplicados por estágio", "Effects applied per stage"), l.t("estágio", "stage"), l.t("efeitos", "effects"))
	c.p.Y.Tick.Marker = ticker{l: l, integer: true}
	outs, series := b.simOutcomes(), effectsSeries(b)
	n := float64(len(outs))
	w := vg.Points(min(30, 84/n))
	peak := 0.0
	for i, o := range outs {
		bars, err := plotter.NewBarChart(plotter.Values(series[i]), w)
		if err != nil {
			return nil, err
		}
		bars.Color = armStyle(i, false).Color
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(float64(i)-(n-1)/2)
		c.p.Add(bars)
		c.legend(o.Arm.Name(), bars)
		peak = max(peak, slices.Max(series[i]))
	}
	var stages []string
	for _, st := range model.Stages() {
		stages = append(stages, st.String())
	}
	c.p.NominalX(stages...)
	c.p.X.Min, c.p.X.Max = -0.7, float64(len(stages))-0.3
	c.p.Y.Min, c.p.Y.Max = 0, max(peak, 1)*1.15
	return c, nil
}

// sameSeries reports whether there are several series and all are equal.
func sameSeries(ss [][]float64) bool {
	if len(ss) < 2 {
		return false
	}
	for _, s := range ss[1:] {
		if !slices.Equal(s, ss[0]) {
			return false
		}
	}
	return true
}

// flatSeries reports whether no series changes value.
func flatSeries(ss [][]float64) bool {
	for _, s := range ss {
		for _, v := range s {
			if v != s[0] {
				return false
			}
		}
	}
	return true
}

// sameLines says which arms' lines coincide, for a chart's caption.
func (b *Built) sameLines(l Lang, series func(b *Built) [][]float64) string {
	outs, ss := b.simOutcomes(), series(b)
	var text string
	done := make([]bool, len(ss))
	for i := range ss {
		group := []string{outs[i].Arm.Name()}
		for k := i + 1; k < len(ss); k++ {
			if !done[k] && slices.Equal(ss[i], ss[k]) {
				group, done[k] = append(group, outs[k].Arm.Name()), true
			}
		}
		if len(group) > 1 && !done[i] {
			text += fmt.Sprintf(l.t(" As linhas de %s coincidem (a mesma profundidade em todo tick): a mais larga fica por baixo %s.",
				" The lines of %s coincide (the same depth at every tick): the widest lies under %s."), l.list(group),
				l.plural(len(group)-1, "da tracejada", "das tracejadas", "the dashed one", "the dashed ones"))
		}
	}
	return text
}

func (b *Built) depthChart(l Lang) (*chart, error) {
	c := newPlot(l, l.t("Profundidade da fila", "Queue depth"), l.t("tempo (s)", "time (s)"), l.t("jobs vivos", "live jobs"))
	c.p.Y.Tick.Marker = ticker{l: l, integer: true}
	peak, series := 0.0, depthSeries(b)
	for i, o := range b.simOutcomes() {
		ys, k := bucket(series[i])
		tick := float64(o.Result.Metrics.Tick) / float64(1000*model.Millisecond)
		st := armStyle(i, true)
		if err := addLine(c, ys, tick*float64(k), st); err != nil {
			return nil, err
		}
		c.legend(o.Arm.Name(), lineThumb(st))
		peak = max(peak, slices.Max(append(ys, 0)))
	}
	c.p.Y.Min, c.p.Y.Max = 0, max(1, peak)*1.08
	return c, nil
}

func (b *Built) callsChart(l Lang) (*chart, error) {
	c := newPlot(l, l.t("Chamadas ao provedor e 429 por segundo", "Provider calls and 429s per second"), l.t("tempo (s)", "time (s)"), l.t("por segundo", "per second"))
	c.p.Y.Tick.Marker = ticker{l: l, integer: true}
	outs := b.simOutcomes()
	longest := firstQuiet(outs, 10) + 2
	peak := 0.0
	for i, o := range outs {
		m := &o.Result.Metrics
		calls, limited := pad(floats(m.CallsPerSecond), longest), pad(floats(m.LimitedPerSecond), longest)
		solid, dashed := armStyle(i, false), armStyle(i, false)
		dashed.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		if err := addLine(c, calls, 1, solid); err != nil {
			return nil, err
		}
		if err := addLine(c, limited, 1, dashed); err != nil {
			return nil, err
		}
		c.legend(o.Arm.Name(), lineThumb(solid))
		peak = max(peak, slices.Max(append(calls, 0)))
	}
	gray := draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(1.2)}
	c.legend(l.t("chamadas", "calls"), lineThumb(gray))
	gray.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	c.legend(l.t("respostas 429", "429 answers"), lineThumb(gray))
	c.p.Y.Min, c.p.Y.Max = 0, max(1, peak)*1.05
	return c, nil
}

// firstQuiet is the first second from which no arm calls the provider for
// gap seconds: the chart shows the storm, not the redrives long after it.
func firstQuiet(outs []*scenarios.Outcome, gap int) int {
	longest := 0
	for _, o := range outs {
		longest = max(longest, len(o.Result.Metrics.CallsPerSecond))
	}
	quiet := 0
	for sec := 0; sec < longest; sec++ {
		busy := false
		for _, o := range outs {
			if c := o.Result.Metrics.CallsPerSecond; sec < len(c) && c[sec] > 0 {
				busy = true
			}
		}
		if busy {
			quiet = 0
			continue
		}
		if quiet++; quiet == gap {
			return sec - gap + 1
		}
	}
	return longest
}

// pad cuts or extends xs with zeros to length n.
func pad(xs []float64, n int) []float64 {
	if len(xs) >= n {
		return xs[:n]
	}
	return append(xs, make([]float64, n-len(xs))...)
}

// breakerLevels places the breaker states on the y axis.
var breakerLevels = map[string]float64{"closed": 0, "half-open": 1, "open": 2}

func (b *Built) breakerChart(l Lang) (*chart, error) {
	c := newPlot(l, l.t("Estado do disjuntor", "Circuit breaker state"), l.t("tempo (s)", "time (s)"), "")
	outs := b.simOutcomes()
	end := 0.0 // the last change, and as long again as the last cool-down
	for _, o := range outs {
		if n := len(o.Result.Metrics.Breaker); n > 0 {
			end = max(end, seconds(o.Result.Metrics.Breaker[n-1].At)+seconds(o.Config.Model.Breaker.Cooldown))
		}
	}
	for i, o := range outs {
		pts := plotter.XYs{{X: 0, Y: 0}}
		level := 0.0
		for _, ch := range o.Result.Metrics.Breaker {
			t := seconds(ch.At)
			pts = append(pts, plotter.XY{X: t, Y: level})
			level = breakerLevels[ch.State]
			pts = append(pts, plotter.XY{X: t, Y: level})
		}
		pts = append(pts, plotter.XY{X: end, Y: level})
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.LineStyle = armStyle(i, true)
		c.p.Add(line)
		c.legend(o.Arm.Name(), lineThumb(line.LineStyle))
	}
	c.p.Y.Min, c.p.Y.Max = -0.2, 2.3
	c.p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{
		{Value: 0, Label: l.t("fechado", "closed")},
		{Value: 1, Label: l.t("meio-aberto", "half-open")},
		{Value: 2, Label: l.t("aberto", "open")},
	})
	return c, nil
}

func seconds(t model.Time) float64 { return float64(t) / float64(1000*model.Millisecond) }

func (b *Built) waitsChart(o *scenarios.Outcome, l Lang) (*chart, error) {
	c := newPlot(l, l.t("Onde o tempo de cada documento foi gasto — ", "Where each document's time went — ")+o.Arm.Name(),
		l.t("job", "job"), l.t("segundos", "seconds"))
	docs := o.Result.Metrics.Docs
	parts := []struct {
		label string
		get   func(d *sim.DocMetrics) model.Time
	}{
		{l.t("espera na fila", "queue wait"), func(d *sim.DocMetrics) model.Time { return d.QueueWait }},
		{l.t("inferência", "inference"), func(d *sim.DocMetrics) model.Time { return d.Inference }},
		{l.t("espera por revisão", "review wait"), func(d *sim.DocMetrics) model.Time { return d.ReviewWait }},
	}
	var below *plotter.BarChart
	for i, part := range parts {
		vs := make(plotter.Values, len(docs))
		for k := range docs {
			vs[k] = seconds(max(part.get(&docs[k]), 0))
		}
		bars, err := plotter.NewBarChart(vs, vg.Points(max(4, 300/float64(max(len(docs), 1)))))
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		c.p.Add(bars)
		c.legend(part.label, bars)
	}
	names := make([]string, len(docs))
	for k, d := range docs {
		names[k] = d.Job.String()
	}
	if len(names) > 24 { // too many to label: every few
		for k := range names {
			if k%(len(names)/12) != 0 {
				names[k] = ""
			}
		}
	}
	c.p.NominalX(names...)
	c.p.Y.Min = 0
	return c, nil
}

func (b *Built) replayChart(l Lang) (*chart, error) {
	c := newPlot(l, l.t("Chamadas ao LLM", "LLM calls"), "", l.t("chamadas", "calls"))
	c.p.Y.Tick.Marker = ticker{l: l, integer: true}
	var run, replay plotter.Values
	var names []string
	for _, o := range b.Outcomes {
		if o.Custom == nil || len(o.Custom.Facts) < 2 {
			continue
		}
		run = append(run, float64(o.Custom.Facts[0].Value))
		replay = append(replay, float64(o.Custom.Facts[1].Value))
		names = append(names, o.Arm.Name())
	}
	w := vg.Points(36)
	for i, s := range []struct {
		label string
		vs    plotter.Values
	}{{l.t("primeira execução", "first execution"), run}, {l.t("replay", "replay"), replay}} {
		bars, err := plotter.NewBarChart(s.vs, w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Points(float64(2*i-1) * 19)
		c.p.Add(bars)
		c.legend(s.label, bars)
	}
	c.p.NominalX(names...)
	c.p.X.Min, c.p.X.Max = -0.8, float64(len(names))-0.2
	c.p.Y.Min, c.p.Y.Max = 0, max(slices.Max(append(run, replay...)), 1)*1.1
	return c, nil
}

// slug makes an arm label fit a file name: "4 workers" → "4-workers".
func slug(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s)
}
