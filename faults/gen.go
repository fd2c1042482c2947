package faults

import (
	"slices"

	"github.com/durasim/durasim/model"
	"pgregory.net/rapid"
)

// PlanGen generates valid plans of the pipeline; see [Vocabulary.PlanGen].
func PlanGen(docs, workers int) *rapid.Generator[Plan] { return Pipeline.PlanGen(docs, workers) }

// FaultGen generates one valid fault of the pipeline; see [Vocabulary.PlanGen].
func FaultGen(docs, workers int) *rapid.Generator[Fault] { return Pipeline.FaultGen(docs, workers) }

// PlanGen generates valid plans of 0 to 6 faults of every kind of the
// system, with fields within a workload of docs documents and workers
// workers. Plans shrink toward fewer faults and toward crashes with small
// numbers.
func (v *Vocabulary) PlanGen(docs, workers int) *rapid.Generator[Plan] {
	return rapid.Map(rapid.SliceOfN(v.FaultGen(docs, workers), 0, 6), newPlan)
}

// FaultGen generates one valid fault of the system; see [Vocabulary.PlanGen].
func (v *Vocabulary) FaultGen(docs, workers int) *rapid.Generator[Fault] {
	docs, workers = max(docs, 1), max(workers, 1)
	return rapid.Custom(func(t *rapid.T) Fault {
		f := Fault{Kind: rapid.SampledFrom(v.kinds).Draw(t, "kind")}
		uses := kindFields[f.Kind]
		switch {
		case f.Kind.atBoundary():
			v.drawCrossing(t, &f, docs, workers)
		case uses&fNth.bit() != 0:
			f.Nth = drawInt32(t, "nth", 1, 3*docs+3)
		}
		if uses&fDoc.bit() != 0 {
			f.Doc = drawInt32(t, "doc", 1, docs)
		}
		if uses&fAt.bit() != 0 {
			f.At = drawMillis(t, "at", 0, 60_000)
		}
		if uses&fAttempt.bit() != 0 {
			f.Attempt = drawInt32(t, "attempt", 0, 3)
		}
		if uses&fFor.bit() != 0 {
			f.For = drawMillis(t, fFor.name(f.Kind), 1, 60_000)
		}
		if uses&fMax.bit() != 0 {
			f.Max = drawInt32(t, "max", 1, 10)
		}
		return f
	})
}

// drawCrossing fills a crash or pause: one of the system's boundaries (a
// pause not where only crashes strike), an occurrence and, at worker
// boundaries, a worker or * (drawn as -1).
func (v *Vocabulary) drawCrossing(t *rapid.T, f *Fault, docs, workers int) {
	bs := v.boundaries.List()
	if f.Kind == Pause {
		bs = slices.DeleteFunc(bs, func(b model.Boundary) bool { return slices.Contains(v.limits.CrashOnly, b) })
	}
	f.Boundary = rapid.SampledFrom(bs).Draw(t, "boundary")
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
