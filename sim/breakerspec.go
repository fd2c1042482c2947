package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/model"
)

// BreakerSpec is the circuit breaker's settings as the -breaker flag reads
// them: "window=20,min-samples=10,threshold-ppm=500000,cooldown=30s,canaries=2".
func BreakerSpec(b model.BreakerConfig) string {
	return fmt.Sprintf("window=%d,min-samples=%d,threshold-ppm=%d,cooldown=%s,canaries=%d",
		b.Window, b.MinSamples, b.ThresholdPPM, time.Duration(b.Cooldown), b.Canaries)
}

// ParseBreakerSpec reads a [BreakerSpec]; a setting it leaves out keeps its
// value in base. Whether the settings make a working breaker is
// model.Config.Validate's to say.
func ParseBreakerSpec(spec string, base model.BreakerConfig) (model.BreakerConfig, error) {
	b := base
	if strings.TrimSpace(spec) == "" {
		return b, fmt.Errorf("empty breaker spec (want e.g. %s)", BreakerSpec(base))
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || v == "" {
			return base, fmt.Errorf("breaker setting %q is not key=value", part)
		}
		if seen[k] {
			return base, fmt.Errorf("breaker setting %s given twice", k)
		}
		seen[k] = true
		var err error
		switch k {
		case "window":
			b.Window, err = parseInt32(v)
		case "min-samples":
			b.MinSamples, err = parseInt32(v)
		case "threshold-ppm":
			b.ThresholdPPM, err = strconv.ParseInt(v, 10, 64)
		case "canaries":
			b.Canaries, err = parseInt32(v)
		case "cooldown":
			var d time.Duration
			if d, err = time.ParseDuration(v); err == nil {
				b.Cooldown = model.Time(d)
			}
		default:
			return base, fmt.Errorf("unknown breaker setting %q (want window, min-samples, threshold-ppm, cooldown, canaries)", k)
		}
		if err != nil {
			return base, fmt.Errorf("breaker setting %s=%s: not a number or duration", k, v)
		}
	}
	return b, nil
}

func parseInt32(v string) (int32, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	return int32(n), err
}
