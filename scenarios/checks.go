package scenarios

import (
	"fmt"

	"github.com/durasim/durasim/sim"
)

// noViolation holds when every invariant held.
func noViolation() Check {
	return Check{
		Says: Text{PtBR: "nenhum invariante violado", En: "no invariant is violated"},
		Test: func(r *sim.Result) error {
			if r.Failed() {
				return fmt.Errorf("%s", r.Violations[0])
			}
			return nil
		},
	}
}

// violates holds when the run broke the named invariant.
func violates(invariant string) Check {
	return Check{
		Says: Text{PtBR: "viola " + invariant, En: "violates " + invariant},
		Test: func(r *sim.Result) error {
			for _, v := range r.Violations {
				if v.Invariant == invariant {
					return nil
				}
			}
			return fmt.Errorf("%s held (violations: %d)", invariant, len(r.Violations))
		},
	}
}

// metric holds when f(metrics) == want.
func metric(says Text, f func(m *sim.Metrics) int64, want int64) Check {
	return Check{Says: says, Test: func(r *sim.Result) error {
		if got := f(&r.Metrics); got != want {
			return fmt.Errorf("got %d, want %d", got, want)
		}
		return nil
	}}
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
