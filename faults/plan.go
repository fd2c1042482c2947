package faults

import "fmt"

// Plan is an ordered list of faults. The empty plan has nil Faults, which is
// what [Parse] returns for text without faults.
type Plan struct{ Faults []Fault }

// Len is the number of faults.
func (p Plan) Len() int { return len(p.Faults) }

// CountKind is how many of the plan's faults are of kind k.
func (p Plan) CountKind(k Kind) int {
	n := 0
	for _, f := range p.Faults {
		if f.Kind == k {
			n++
		}
	}
	return n
}

// Without returns a copy of the plan minus fault i (for shrinking). It
// panics if i is out of range.
func (p Plan) Without(i int) Plan {
	if i < 0 || i >= len(p.Faults) {
		panic(fmt.Sprintf("faults: Plan.Without(%d) of a plan with %d faults", i, len(p.Faults)))
	}
	out := make([]Fault, 0, len(p.Faults)-1)
	out = append(out, p.Faults[:i]...)
	return newPlan(append(out, p.Faults[i+1:]...))
}

// Subset returns a copy of the plan with the faults i for which keep[i]. It
// panics unless len(keep) == p.Len().
func (p Plan) Subset(keep []bool) Plan {
	if len(keep) != len(p.Faults) {
		panic(fmt.Sprintf("faults: Plan.Subset with %d flags for %d faults", len(keep), len(p.Faults)))
	}
	var out []Fault
	for i, f := range p.Faults {
		if keep[i] {
			out = append(out, f)
		}
	}
	return Plan{Faults: out}
}

// Validate reports the first fault that is not a valid fault of the
// pipeline, prefixed with its number ([Vocabulary.Validate] for another
// system).
func (p Plan) Validate() error { return Pipeline.Validate(p) }

// newPlan wraps faults, keeping the empty plan's Faults nil.
func newPlan(fs []Fault) Plan {
	if len(fs) == 0 {
		return Plan{}
	}
	return Plan{Faults: fs}
}
