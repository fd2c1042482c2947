package targetsim

import (
	"strings"

	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
)

// swarmFaults draws a seed's faults: each kind on or off (swarm testing:
// a seed that leaves most kinds out reaches the paths the others would
// mask), then a few faults of each kind that is on, aimed where they
// matter (pauses and slow work past the stuck horizon make zombies).
func swarmFaults(s *scheduler.Stream, cfg Config, pol target.Policy) ([]Fault, string) {
	var out []Fault
	var on []string
	past := func() target.Time { return pol.RescueAfter + target.Time(1+s.IntN(10))*target.Second }
	doc := func() int { return 1 + s.IntN(cfg.Docs) }
	workerBoundaries := []Boundary{AfterFetch, AfterWork, AfterEffect, BeforeCommit, AfterCommit, AfterReport}
	for _, k := range FaultKinds() {
		if s.IntN(2) == 0 {
			continue
		}
		on = append(on, k.String())
		n := 1 + s.IntN(3)
		for range n {
			f := Fault{Kind: k}
			switch k {
			case Crash, Pause:
				if s.IntN(4) == 0 {
					f.Rescuer, f.At, f.Nth = true, RescuerAfterStuck, 1+s.IntN(2)
					f.For = target.Time(1+s.IntN(5)) * target.Second
				} else {
					if s.IntN(4) != 0 {
						f.Worker = 1 + s.IntN(cfg.Workers)
					}
					f.At, f.Nth = workerBoundaries[s.IntN(len(workerBoundaries))], 1+s.IntN(3)
					f.For = past()
					if s.IntN(3) == 0 {
						f.For = target.Time(1+s.IntN(3)) * target.Second // a short stall, no zombie
					}
				}
				if k == Crash {
					f.For = 0
				} else if f.At == BeforeCommit {
					f.At = AfterCommit
				}
			case Slow:
				f.Doc, f.Attempt, f.For = doc(), 1, past()
			case Error:
				f.Doc, f.Attempt = doc(), s.IntN(cfg.MaxAttempts+1) // 0: every attempt (it ends discarded)
			case CancelJob:
				f.Doc, f.Attempt = doc(), 1+s.IntN(2)
			case SnoozeJob:
				f.Doc, f.Attempt, f.For = doc(), 1, target.Time(1+s.IntN(5000))*ms
			case Duplicate:
				f.Doc, f.AtTime = doc(), target.Time(s.IntN(15_000))*ms
			case FewAttempts:
				// The last attempt soon, where rescues and errors discard;
				// half the time on a document the plan slows down, whose
				// rescued attempt races the slow one's report.
				f.Doc, f.Max = doc(), 1+s.IntN(2)
				var slow []int
				for _, g := range out {
					if g.Kind == Slow {
						slow = append(slow, g.Doc)
					}
				}
				if len(slow) > 0 && s.IntN(2) == 0 {
					f.Doc = slow[s.IntN(len(slow))]
				}
			case Retry:
				f.Doc = doc()
				// Aim at a document the plan makes fail, if any: a
				// retry only brings back a discarded or cancelled job.
				var failing []int
				for _, g := range out {
					if g.Kind == CancelJob || g.Kind == Error && g.Attempt == 0 {
						failing = append(failing, g.Doc)
					}
				}
				if len(failing) > 0 {
					f.Doc = failing[s.IntN(len(failing))]
				}
			}
			out = append(out, f)
		}
	}
	return out, strings.Join(on, " ")
}
