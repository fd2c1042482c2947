package reports

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// charts renders the side-by-side report's chart: per check of a queue's
// own guarantees, the share of each library's runs that broke it (the
// own-guarantees table, in percent).
func (s *Side) charts(l Lang) ([]chartFile, error) {
	caption := l.t("Parte das execuções de cada biblioteca que quebrou cada verificação das garantias da própria fila (a tabela acima, em %; no asynq, as execuções gravadas, e uma verificação que não roda ali fica em 0).",
		"Share of each library's runs that broke each check of the queue's own guarantees (the table above, in %; on asynq, the recorded runs, and a check that does not run there stays at 0).")
	return one(SideName+"-own.svg", caption, func() (*chart, error) { return s.ownChart(l) })
}

func (s *Side) ownChart(l Lang) (*chart, error) {
	c := newPlot(l, l.t("Garantias próprias quebradas", "Own guarantees broken"), l.t("verificação", "check"), l.t("% das execuções", "% of runs"))
	c.p.Y.Tick.Marker = ticker{l: l, integer: true}
	checks := queueChecks()
	rows := s.ownRows()
	w := vg.Points(min(12, 300/float64(len(checks)*len(rows))))
	for i, r := range rows {
		vs := make(plotter.Values, len(checks))
		for j := range checks {
			if r.bad[j] > 0 && r.runs > 0 {
				vs[j] = float64(100*r.bad[j]) / float64(r.runs)
			}
		}
		bars, err := plotter.NewBarChart(vs, w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(float64(i)-float64(len(rows)-1)/2) * (w + vg.Points(1))
		c.p.Add(bars)
		c.legend(fmt.Sprintf("%s (%s)", r.lib, l.count(r.runs, "execução", "execuções", "run", "runs")), bars)
	}
	names := make([]string, len(checks))
	for i, name := range checks {
		names[i] = name[len("target-"):]
	}
	c.p.NominalX(names...)
	c.p.X.Min, c.p.X.Max = -0.6, float64(len(checks))-0.4
	c.p.Y.Min, c.p.Y.Max = 0, 100
	return c, nil
}
