package sim_test

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// TestBreakerSpec: the -breaker flag's text reads back to the settings it
// was printed from; a partial spec keeps the rest; bad specs are refused
// with the setting named.
func TestBreakerSpec(t *testing.T) {
	d := model.DefaultConfig().Breaker
	edge := model.BreakerConfig{Window: 7, MinSamples: 7, ThresholdPPM: 1_000_000, Cooldown: 1500 * model.Millisecond, Canaries: 1}
	for _, b := range []model.BreakerConfig{d, edge} {
		got, err := sim.ParseBreakerSpec(sim.BreakerSpec(b), d)
		if err != nil || got != b {
			t.Errorf("%q reads back as %+v, %v; want %+v", sim.BreakerSpec(b), got, err, b)
		}
	}
	if got, err := sim.ParseBreakerSpec("min-samples=20, threshold-ppm=1000000", d); err != nil || got.MinSamples != 20 || got.ThresholdPPM != 1_000_000 || got.Window != d.Window || got.Cooldown != d.Cooldown {
		t.Errorf("partial spec: %+v, %v", got, err)
	}
	for spec, want := range map[string]string{
		"":                     "empty breaker spec",
		"window":               `"window" is not key=value`,
		"window=":              `"window=" is not key=value`,
		"window=x":             "window=x: not a number",
		"cooldown=5":           "cooldown=5: not a number or duration",
		"canaries=99999999999": "canaries=99999999999: not a number",
		"colour=red":           `unknown breaker setting "colour"`,
		"window=5,window=6":    "window given twice",
	} {
		if got, err := sim.ParseBreakerSpec(spec, d); err == nil || !strings.Contains(err.Error(), want) || got != d {
			t.Errorf("%q: %+v, %v; want an error containing %q and the base unchanged", spec, got, err, want)
		}
	}
}
