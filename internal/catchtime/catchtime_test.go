package catchtime

import (
	"slices"
	"testing"
	"time"
)

func TestFigureIsSeedsTimesSecondsPerSeed(t *testing.T) {
	// Three trials needing 10, 40 and 20 seeds, 100 seeds run in 2 s.
	f := Of([]float64{10, 40, 20}, 2*time.Second, 100)
	if f.SecondsPerSeed != 0.02 || !slices.Equal(f.Trials, []float64{0.2, 0.8, 0.4}) || f.MedianSeconds != 0.4 || f.WorstSeconds != 0.8 {
		t.Errorf("%+v", f)
	}
	if f := Of([]float64{3, 1}, time.Second, 4); f.MedianSeconds != 0.5 || f.WorstSeconds != 0.75 {
		t.Errorf("even count: %+v", f)
	}
	if f := Of(nil, 0, 0); f.MedianSeconds != 0 || f.SecondsPerSeed != 0 || f.Trials != nil {
		t.Errorf("nothing run: %+v", f)
	}
}
