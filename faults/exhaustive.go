package faults

import "github.com/durasim/durasim/model"

// Counts is what a fault-free run of a small workload did: the places an
// exhaustive enumeration puts its faults.
type Counts struct {
	Crossings []int32    // per model.Boundary: how often it was crossed
	Publishes int32      // broker publishes
	Commits   int32      // outbox commits
	Docs      int32      // documents
	Horizon   model.Time // when the last document arrived
	Lease     model.Time // the lease: pauses and delays are sized by it (0: no pauses or delays)
}

// Exhaustive returns every single-fault plan for a small workload, in a
// fixed order: a crash (worker=*) at each boundary crossing, then a pause
// just past the lease at each; a duplicate, a delay of one lease and a
// reorder of each published message; an ambiguous outcome of each commit;
// per document a transient failure of its first attempt and of every
// attempt, a permanent failure, a poison document, a deadline of 100ms, a
// resubmission, an edited resubmission, a crash loop and a malformed first
// request; and a 429 burst
// over the whole arrival window and a short one at the start. Entries of
// Crossings beyond the known boundaries are ignored.
func Exhaustive(c Counts) []Plan {
	var plans []Plan
	add := func(f Fault) { plans = append(plans, Plan{Faults: []Fault{f}}) }
	for _, proto := range []Fault{{Kind: Crash, Worker: AnyWorker}, {Kind: Pause, Worker: AnyWorker, For: c.Lease + c.Lease/20}} {
		if proto.Kind == Pause && c.Lease <= 0 {
			continue
		}
		for _, f := range crossingsOf(c.Crossings, proto) {
			add(f)
		}
	}
	for _, k := range []Kind{Duplicate, Delay, Reorder} {
		if k == Delay && c.Lease <= 0 {
			continue
		}
		for n := int32(1); n <= c.Publishes; n++ {
			f := Fault{Kind: k, Nth: n}
			if k == Delay {
				f.For = c.Lease
			}
			add(f)
		}
	}
	for n := int32(1); n <= c.Commits; n++ {
		add(Fault{Kind: AmbiguousCommit, Nth: n})
	}
	for d := int32(1); d <= c.Docs; d++ {
		for _, f := range docFaults(d) {
			add(f)
		}
	}
	if c.Docs > 0 {
		add(Fault{Kind: RateLimit, At: 0, For: c.Horizon + 5000*model.Millisecond})
		add(Fault{Kind: RateLimit, At: 0, For: 500 * model.Millisecond})
	}
	return plans
}

// docFaults are the faults placed on document d.
func docFaults(d int32) []Fault {
	return []Fault{
		{Kind: Transient, Doc: d, Attempt: 1}, {Kind: Transient, Doc: d}, {Kind: Permanent, Doc: d},
		{Kind: Poison, Doc: d}, {Kind: DeadlinePressure, Doc: d, For: 100 * model.Millisecond},
		{Kind: Resubmit, Doc: d}, {Kind: ResubmitEdited, Doc: d}, {Kind: CrashLoop, Doc: d}, {Kind: Malformed, Doc: d},
	}
}

// crossingsOf places a copy of proto at every boundary occurrence.
func crossingsOf(crossings []int32, proto Fault) []Fault {
	var out []Fault
	for _, b := range model.Boundaries() {
		if int(b) >= len(crossings) {
			break
		}
		for n := int32(1); n <= crossings[b]; n++ {
			f := proto
			f.Boundary, f.Nth = b, n
			out = append(out, f)
		}
	}
	return out
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
