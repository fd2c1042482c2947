package targetsim

import (
	"strings"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
)

// swarmFaults draws a seed's faults: each kind on or off (swarm testing:
// a seed that leaves most kinds out reaches the paths the others would
// mask), then a few faults of each kind that is on, aimed where they
// matter (pauses and slow work past the stuck horizon or a lease make
// zombies).
func swarmFaults(s *scheduler.Stream, cfg Config, pol target.Policy) ([]faults.Fault, string) {
	var out []faults.Fault
	var on []string
	// Past the horizon at which a held job is taken back: the rescuer's,
	// or a lease's.
	horizon := max(pol.RescueAfter, pol.Lease)
	past := func() target.Time { return horizon + target.Time(1+s.IntN(10))*target.Second }
	doc := func() int32 { return int32(1 + s.IntN(cfg.Docs)) }
	for _, k := range FaultKinds() {
		if s.IntN(2) == 0 {
			continue
		}
		on = append(on, k.String())
		n := 1 + s.IntN(3)
		for range n {
			f := faults.Fault{Kind: k}
			switch k {
			case faults.Crash, faults.Pause:
				drawCrossing(s, &f, cfg, past)
			case faults.Slow:
				f.Doc, f.Attempt, f.For = doc(), 1, past()
			case faults.Transient:
				f.Doc, f.Attempt = doc(), int32(s.IntN(cfg.MaxAttempts+1)) // 0: every attempt (it ends discarded)
			case faults.Cancel:
				f.Doc, f.Attempt = doc(), int32(1+s.IntN(2))
			case faults.Snooze:
				f.Doc, f.Attempt, f.For = doc(), 1, target.Time(1+s.IntN(5000))*ms
			case faults.ResubmitAt:
				f.Doc, f.At = doc(), target.Time(s.IntN(15_000))*ms
			case faults.FewAttempts:
				// The last attempt soon, where rescues and errors discard;
				// half the time on a document the plan slows down, whose
				// rescued attempt races the slow one's report.
				f.Doc, f.Max = doc(), int32(1+s.IntN(2))
				if slow := docsOf(out, func(g faults.Fault) bool { return g.Kind == faults.Slow }); len(slow) > 0 && s.IntN(2) == 0 {
					f.Doc = slow[s.IntN(len(slow))]
				}
			case faults.Redrive:
				f.Doc = doc()
				// Aim at a document the plan makes fail, if any: a
				// redrive only brings back a discarded or cancelled job.
				failing := docsOf(out, func(g faults.Fault) bool {
					return g.Kind == faults.Cancel || g.Kind == faults.Transient && g.Attempt == 0
				})
				if len(failing) > 0 {
					f.Doc = failing[s.IntN(len(failing))]
				}
			}
			out = append(out, f)
		}
	}
	return out, strings.Join(on, " ")
}

// drawCrossing aims a crash or pause: a quarter at the rescuer, the rest
// at a worker boundary, by one worker (three in four) or any; a pause
// mostly past the stuck horizon, a third of the time a short stall.
func drawCrossing(s *scheduler.Stream, f *faults.Fault, cfg Config, past func() target.Time) {
	f.Worker = faults.AnyWorker
	if s.IntN(4) == 0 {
		f.Boundary, f.Nth = boundary.RescuerAfterStuck, int32(1+s.IntN(2))
		f.For = target.Time(1+s.IntN(5)) * target.Second
	} else {
		if s.IntN(4) != 0 {
			f.Worker = int32(s.IntN(cfg.Workers))
		}
		f.Boundary, f.Nth = workerBoundaries[s.IntN(len(workerBoundaries))], int32(1+s.IntN(3))
		f.For = past()
		if s.IntN(3) == 0 {
			f.For = target.Time(1+s.IntN(3)) * target.Second // a short stall, no zombie
		}
	}
	if f.Kind == faults.Crash {
		f.For = 0
	} else if f.Boundary == boundary.BeforeCommit {
		f.Boundary = boundary.AfterCommit
	}
}

// docsOf lists the documents of the faults that match.
func docsOf(fs []faults.Fault, match func(faults.Fault) bool) []int32 {
	var out []int32
	for _, f := range fs {
		if match(f) {
			out = append(out, f.Doc)
		}
	}
	return out
}
