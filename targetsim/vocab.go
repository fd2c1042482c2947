package targetsim

import (
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/target"
)

// Boundaries are the target seam's boundaries: between a worker's calls
// (and, inside its handler's transaction, its statements) and between the
// rescuer's two calls. [Vocabulary] names the set after the target.
var Boundaries = boundary.NewSet("the target seam", boundary.AfterFetch, boundary.AfterWork, boundary.AfterEffect,
	boundary.BeforeCommit, boundary.AfterCommit, boundary.AfterReport, boundary.RescuerAfterStuck)

// boundaryCount sizes the crossing counters, indexed by boundary.
const boundaryCount = boundary.Count

// workerBoundaries are the boundaries a worker crosses, in the set's order.
var workerBoundaries = Boundaries.Of(boundary.Worker)

// kinds are the seam's fault kinds, in the order the swarm draws them: the
// order is part of every seed's faults, so append only.
var kinds = []faults.Kind{faults.Crash, faults.Pause, faults.Slow, faults.Transient, faults.Cancel, faults.Snooze,
	faults.ResubmitAt, faults.Redrive, faults.FewAttempts, faults.ClockAhead, faults.ClockBehind, faults.Zone, faults.DST,
	faults.OutsideCancel, faults.Delete, faults.Metadata, faults.OutOfBand, faults.BatchInsert, faults.WorkerTimeout, faults.NoTimeout}

// maxFor bounds a pause, a slow work or a snooze (one virtual hour).
const maxFor = 3600 * target.Second

// Vocabulary is the fault vocabulary of a queue target named name
// ("river"): the seam's boundaries and kinds; durations in whole
// milliseconds (what SQLite's and PostgreSQL's timestamps hold exactly),
// for= at most an hour; and no pause inside the handler's transaction.
func Vocabulary(name string) *faults.Vocabulary {
	return faults.NewVocabulary(Boundaries.Named(name), kinds, faults.Limits{
		CrashOnly: []boundary.Boundary{boundary.BeforeCommit},
		Why:       "inside the handler's transaction a pause would hold the database for everyone; crash there instead",
		Tick:      target.Millisecond,
		MaxFor:    maxFor,
	})
}

// seam is the vocabulary configurations are checked against, whatever
// the target.
var seam = Vocabulary(Boundaries.System())

// FaultKinds lists the seam's fault kinds, in the swarm's order.
func FaultKinds() []faults.Kind { return seam.Kinds() }
