package mutation

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Status is what became of a mutant.
type Status uint8

// The statuses, in report order.
const (
	Killed     Status = iota // the killer reported a violation (exit 1)
	Crashed                  // the killer crashed (another non-zero exit, or a signal)
	TimedOut                 // the killer ran past the timeout
	Survived                 // the killer passed
	Equivalent               // the killer passed, and the mutant is argued equivalent
	NotCovered               // on a statement the unmutated killer never reaches: not run
	NotViable                // does not compile: not run, not counted
	StatusCount
)

var statusNames = [StatusCount]string{"killed", "crashed", "timed-out", "survived", "equivalent", "not-covered", "not-viable"}

func (s Status) String() string {
	if s < StatusCount {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Timeout is how long a mutant's killer may run: a fixed duration, or a
// multiple of the unmutated killer's time with a floor (two killers and a
// build share the cores, and other work on the machine slows them all).
type Timeout struct {
	Fixed  time.Duration
	Factor float64
	Min    time.Duration
}

// ParseTimeout reads "10x" (ten times the unmutated run, at least 10s) or
// a duration such as "45s".
func ParseTimeout(s string) (Timeout, error) {
	if f, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v < 1 {
			return Timeout{}, fmt.Errorf("invalid timeout %q: want a multiple >= 1 such as 10x, or a duration", s)
		}
		return Timeout{Factor: v, Min: 10 * time.Second}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Timeout{}, fmt.Errorf("invalid timeout %q: want a multiple such as 10x, or a positive duration", s)
	}
	return Timeout{Fixed: d}, nil
}

// For is the timeout given the unmutated killer's time.
func (t Timeout) For(baseline time.Duration) time.Duration {
	if t.Fixed > 0 {
		return t.Fixed
	}
	return max(time.Duration(t.Factor*float64(baseline)), t.Min)
}
