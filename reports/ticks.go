package reports

import (
	"math"

	"gonum.org/v1/plot"
)

// ticker marks an axis at round values (1, 2 or 5 times a power of ten),
// labelled in the report's language ("0,5" in pt-BR) with no more decimals
// than the step needs; an integer axis (a count) never gets a fractional
// tick.
type ticker struct {
	l       Lang
	integer bool
}

// Ticks implements plot.Ticker: four to eight labelled ticks, and an
// unlabelled one halfway between two (when it falls on an integer for an
// integer axis).
func (t ticker) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: t.l.decimal(lo, 0)}}
	}
	step := niceStep((hi - lo) / 4)
	if t.integer {
		step = math.Max(1, math.Round(step))
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+1e-9*step; k++ {
		v := k * step
		if v == 0 {
			v = 0 // never "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: t.l.decimal(v, decimals)})
		if m := v + step/2; m <= hi && (!t.integer || m == math.Trunc(m)) {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

// niceStep rounds raw to the nearest 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch n := raw / mag; {
	case n < 1.5:
		return mag
	case n < 3:
		return 2 * mag
	case n < 7:
		return 5 * mag
	}
	return 10 * mag
}
