package reports

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// charts renders the River report's chart: the durable effects per
// document on the documented pattern's shrunk plan, by design.
func (rv *River) charts(l Lang) ([]chartFile, error) {
	if len(rv.Contrast) == 0 {
		return nil, nil
	}
	seed := rv.Contrast[0].Result.Seed
	caption := fmt.Sprintf(l.t("Efeitos duráveis por documento no plano reduzido de tx-as-documented (semente %d), por arquitetura: as corretas prometem um por documento.",
		"Durable effects per document on tx-as-documented's shrunk plan (seed %d), by design: the correct ones promise one per document."), seed)
	return one(RiverName+"-effects.svg", caption, func() (*chart, error) { return rv.effectsChart(l) })
}

func (rv *River) effectsChart(l Lang) (*chart, error) {
	c := newPlot(l, l.t("Efeitos por documento, mesmo plano", "Effects per document, one plan"), l.t("documento", "document"), l.t("efeitos", "effects"))
	c.p.Y.Tick.Marker = ticker{l: l, integer: true}
	docs, _ := docEffects(rv.Contrast[0].Result)
	n := len(rv.Contrast)
	w := vg.Points(min(12, 300/float64(max(len(docs)*n, 1))))
	peak := 1.0
	for i, run := range rv.Contrast {
		_, eff := docEffects(run.Result)
		vs := make(plotter.Values, len(docs))
		for k, d := range docs {
			vs[k] = float64(eff[d])
		}
		bars, err := plotter.NewBarChart(vs, w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(float64(i)-float64(n-1)/2) * (w + vg.Points(1))
		c.p.Add(bars)
		c.legend(run.Config.Design.String(), bars)
		peak = max(peak, slices.Max(append([]float64(vs), 0)))
	}
	c.p.NominalX(docs...)
	c.p.X.Min, c.p.X.Max = -0.6, float64(len(docs))-0.4
	c.p.Y.Min, c.p.Y.Max = 0, peak+0.6
	return c, nil
}
