package reports

import (
	"bytes"
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

// chartFile is one rendered chart: its file name under charts/ and what
// the report says about it.
type chartFile struct {
	Name    string // file name, e.g. opening-incident-depth.svg
	Caption string
	SVG     []byte
}

// maxPoints bounds the points of a line: longer series are bucketed,
// keeping each bucket's maximum (peaks survive).
const maxPoints = 400

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
	switch kind {
	case scenarios.ChartDepth:
		return one(name+"-depth.svg", l.t("Profundidade da fila (jobs vivos) a cada tick de 100 ms, por braço.",
			"Queue depth (live jobs) at every 100 ms tick, per arm."), func() (*plot.Plot, error) { return b.depthChart(l) })
	case scenarios.ChartCalls:
		return one(name+"-calls.svg", l.t("Chamadas ao provedor por segundo (linha cheia) e respostas 429 por segundo (tracejada), por estratégia, até a tempestade passar (os redrives bem depois ficam fora).",
			"Provider calls per second (solid) and 429 answers per second (dashed), per strategy, until the storm is over (redrives long after it are left out)."), func() (*plot.Plot, error) { return b.callsChart(l) })
	case scenarios.ChartBreaker:
		return one(name+"-breaker.svg", l.t("Estado do disjuntor ao longo do tempo, por braço.",
			"The circuit breaker's state over time, per arm."), func() (*plot.Plot, error) { return b.breakerChart(l) })
	case scenarios.ChartReplay:
		return one(name+"-replay.svg", l.t("Chamadas ao LLM na primeira execução e no replay, por braço.",
			"LLM calls in the first execution and during the replay, per arm."), func() (*plot.Plot, error) { return b.replayChart(l) })
	case scenarios.ChartWaits:
		var out []chartFile
		for i := range b.Outcomes {
			o := &b.Outcomes[i]
			if o.Result == nil {
				continue
			}
			f, err := one(name+"-waits-"+slug(o.Arm.Name())+".svg",
				l.t("Espera na fila, inferência e espera por revisão por documento — braço ", "Queue wait, inference and review wait per document — arm ")+o.Arm.Name()+".",
				func() (*plot.Plot, error) { return b.waitsChart(o, l) })
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown chart kind %d", kind)
}

func one(name, caption string, mk func() (*plot.Plot, error)) ([]chartFile, error) {
	p, err := mk()
	if err != nil {
		return nil, err
	}
	svg, err := render(p)
	if err != nil {
		return nil, err
	}
	return []chartFile{{Name: name, Caption: caption, SVG: svg}}, nil
}

// render draws p as a 6×3.5 inch SVG.
func render(p *plot.Plot) ([]byte, error) {
	c := vgsvg.New(6*vg.Inch, 3.5*vg.Inch)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Legend.Top = true
	p.Legend.XOffs = -vg.Points(12)
	p.Add(plotter.NewGrid())
	return p
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

// addLine adds series ys (one value per step seconds) as arm i's line.
func addLine(p *plot.Plot, label string, i int, ys []float64, step float64, dashed bool) error {
	pts := make(plotter.XYs, len(ys))
	for k, y := range ys {
		pts[k] = plotter.XY{X: float64(k) * step, Y: y}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(i)
	l.Width = vg.Points(1.2)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	p.Add(l)
	p.Legend.Add(label, l)
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

func (b *Built) depthChart(l Lang) (*plot.Plot, error) {
	p := newPlot(l.t("Profundidade da fila", "Queue depth"), l.t("tempo (s)", "time (s)"), l.t("jobs vivos", "live jobs"))
	outs := b.simOutcomes()
	longest := 0
	series := make([][]float64, len(outs))
	for i, o := range outs {
		series[i] = trim(floats(o.Result.Metrics.QueueDepth), 10)
		longest = max(longest, len(series[i]))
	}
	for i, o := range outs {
		ys := series[i]
		for len(ys) < longest { // the arm drained: its depth stays 0
			ys = append(ys, 0)
		}
		ys, k := bucket(ys)
		tick := float64(o.Result.Metrics.Tick) / float64(1000*model.Millisecond)
		if err := addLine(p, o.Arm.Name(), i, ys, tick*float64(k), false); err != nil {
			return nil, err
		}
	}
	p.Y.Min = 0
	return p, nil
}

func (b *Built) callsChart(l Lang) (*plot.Plot, error) {
	p := newPlot(l.t("Chamadas ao provedor e 429 por segundo", "Provider calls and 429s per second"), l.t("tempo (s)", "time (s)"), l.t("por segundo", "per second"))
	outs := b.simOutcomes()
	longest := firstQuiet(outs, 10) + 2
	for i, o := range outs {
		m := &o.Result.Metrics
		calls, limited := pad(floats(m.CallsPerSecond), longest), pad(floats(m.LimitedPerSecond), longest)
		if err := addLine(p, o.Arm.Name()+l.t(": chamadas", ": calls"), i, calls, 1, false); err != nil {
			return nil, err
		}
		if err := addLine(p, o.Arm.Name()+": 429", i, limited, 1, true); err != nil {
			return nil, err
		}
	}
	p.Y.Min = 0
	return p, nil
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

func (b *Built) breakerChart(l Lang) (*plot.Plot, error) {
	p := newPlot(l.t("Estado do disjuntor", "Circuit breaker state"), l.t("tempo (s)", "time (s)"), "")
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
		for _, c := range o.Result.Metrics.Breaker {
			t := seconds(c.At)
			pts = append(pts, plotter.XY{X: t, Y: level})
			level = breakerLevels[c.State]
			pts = append(pts, plotter.XY{X: t, Y: level})
		}
		pts = append(pts, plotter.XY{X: end, Y: level})
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		if i > 0 {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		p.Legend.Add(o.Arm.Name(), line)
	}
	p.Y.Min, p.Y.Max = -0.2, 2.4
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{
		{Value: 0, Label: l.t("fechado", "closed")},
		{Value: 1, Label: l.t("meio-aberto", "half-open")},
		{Value: 2, Label: l.t("aberto", "open")},
	})
	return p, nil
}

func seconds(t model.Time) float64 { return float64(t) / float64(1000*model.Millisecond) }

func (b *Built) waitsChart(o *scenarios.Outcome, l Lang) (*plot.Plot, error) {
	p := newPlot(l.t("Onde o tempo de cada documento foi gasto — ", "Where each document's time went — ")+o.Arm.Name(),
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
		p.Add(bars)
		p.Legend.Add(part.label, bars)
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
	p.NominalX(names...)
	return p, nil
}

func (b *Built) replayChart(l Lang) (*plot.Plot, error) {
	p := newPlot(l.t("Chamadas ao LLM", "LLM calls"), "", l.t("chamadas", "calls"))
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
		p.Add(bars)
		p.Legend.Add(s.label, bars)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.8, float64(len(names))-0.2
	p.Y.Min, p.Y.Max = 0, 1.6
	return p, nil
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
