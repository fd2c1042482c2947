package catchtime

import (
	"slices"
	"time"
)

// Figure is a finding's time to catch over trials.
type Figure struct {
	// MedianSeconds is the median over trials of seeds to catch times
	// seconds per seed: the headline.
	MedianSeconds  float64   `json:"median_s"`
	WorstSeconds   float64   `json:"worst_s"`
	SecondsPerSeed float64   `json:"seconds_per_seed"` // the sweep's wall time over the seeds it ran, every trial's
	Trials         []float64 `json:"trials_s"`         // each trial's seeds to catch times seconds per seed
}

// Of is the figure of trials whose searches needed seeds[t] seeds each
// (a trial that caught nothing counts the seeds it ran) and ran ran seeds
// in wall time in all.
func Of(seeds []float64, wall time.Duration, ran int) Figure {
	var f Figure
	if ran > 0 {
		f.SecondsPerSeed = wall.Seconds() / float64(ran)
	}
	for _, n := range seeds {
		f.Trials = append(f.Trials, n*f.SecondsPerSeed)
	}
	f.MedianSeconds, f.WorstSeconds = MedianWorst(f.Trials)
	return f
}

// MedianWorst is the median (the mean of the middle two of an even count)
// and the largest of xs; 0, 0 for none.
func MedianWorst(xs []float64) (median, worst float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0, 0
	}
	if n := len(s); n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, s[len(s)-1]
}
