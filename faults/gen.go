package faults

import (
	"github.com/durasim/durasim/model"
	"pgregory.net/rapid"
)

// PlanGen generates valid plans of 0 to 6 faults of every kind, with fields
// within a workload of docs documents and workers workers. Plans shrink
// toward fewer faults and toward crashes with small numbers.
func PlanGen(docs, workers int) *rapid.Generator[Plan] {
	return rapid.Map(rapid.SliceOfN(FaultGen(docs, workers), 0, 6), newPlan)
}

// FaultGen generates one valid fault; see [PlanGen].
func FaultGen(docs, workers int) *rapid.Generator[Fault] {
	docs, workers = max(docs, 1), max(workers, 1)
	return rapid.Custom(func(t *rapid.T) Fault {
		f := Fault{Kind: rapid.SampledFrom(kindList()).Draw(t, "kind")}
		switch f.Kind {
		case Crash, Pause:
			drawCrossing(t, &f, docs, workers)
		case Duplicate, Delay, Reorder, AmbiguousCommit:
			f.Nth = drawInt32(t, "nth", 1, 3*docs+3)
		case Transient, Permanent, Poison, DeadlinePressure, Resubmit, ResubmitEdited, CrashLoop, Malformed:
			f.Doc = drawInt32(t, "doc", 1, docs)
		case RateLimit:
			f.At = drawMillis(t, "at", 0, 60_000)
		}
		if f.Kind == Transient {
			f.Attempt = drawInt32(t, "attempt", 0, 3)
		}
		if f.fields()&fFor.bit() != 0 {
			f.For = drawMillis(t, fFor.name(f.Kind), 1, 60_000)
		}
		return f
	})
}

// drawCrossing fills a crash or pause: a boundary, an occurrence and, at
// worker boundaries, a worker or * (drawn as -1).
func drawCrossing(t *rapid.T, f *Fault, docs, workers int) {
	f.Boundary = rapid.SampledFrom(model.Boundaries()).Draw(t, "boundary")
	f.Nth = drawInt32(t, "nth", 1, 2*docs+2)
	f.Worker = AnyWorker
	if f.onWorkerBoundary() {
		f.Worker = drawInt32(t, "worker", -1, workers-1)
	}
}

func drawInt32(t *rapid.T, label string, lo, hi int) int32 {
	return int32(rapid.IntRange(lo, hi).Draw(t, label))
}

// drawMillis draws a whole number of milliseconds in [lo, hi].
func drawMillis(t *rapid.T, label string, lo, hi int64) model.Time {
	return rapid.Int64Range(lo, hi).Draw(t, label) * model.Millisecond
}

// kindList is every kind in order.
func kindList() []Kind {
	kinds := make([]Kind, KindCount)
	for k := range KindCount {
		kinds[k] = k
	}
	return kinds
}
