package faults

import "github.com/durasim/durasim/model"

// Exhaustive returns every single-fault plan for a small workload:
// crossings[b] is how often boundary b was crossed in a fault-free run. It
// lists a crash (worker=*) at each boundary and each occurrence 1..
// crossings[b], boundaries in their fixed order, then a pause of the given
// length at each of the same points (none when pause <= 0). Entries of
// crossings beyond the known boundaries are ignored.
func Exhaustive(crossings []int32, pause model.Time) []Plan {
	plans := singles(crossings, Fault{Kind: Crash, Worker: AnyWorker})
	if pause > 0 {
		plans = append(plans, singles(crossings, Fault{Kind: Pause, Worker: AnyWorker, For: pause})...)
	}
	return plans
}

// singles places a copy of proto at every boundary occurrence.
func singles(crossings []int32, proto Fault) []Plan {
	var plans []Plan
	for _, b := range model.Boundaries() {
		if int(b) >= len(crossings) {
			break
		}
		for n := int32(1); n <= crossings[b]; n++ {
			f := proto
			f.Boundary, f.Nth = b, n
			plans = append(plans, Plan{Faults: []Fault{f}})
		}
	}
	return plans
}

// Pairs combines every unordered pair of plans (i < j, in order), the
// faults of plan i first.
func Pairs(singles []Plan) []Plan {
	var plans []Plan
	for i := range singles {
		for j := i + 1; j < len(singles); j++ {
			fs := make([]Fault, 0, singles[i].Len()+singles[j].Len())
			fs = append(fs, singles[i].Faults...)
			plans = append(plans, newPlan(append(fs, singles[j].Faults...)))
		}
	}
	return plans
}
