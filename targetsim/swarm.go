package targetsim

import (
	"fmt"
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
func swarmFaults(s *scheduler.Stream, cfg Config, pol target.Policy, reach bool) ([]faults.Fault, string) {
	var out []faults.Fault
	var on []string
	// Past the horizon at which a held job is taken back: the rescuer's,
	// or a lease's.
	horizon := max(pol.RescueAfter, pol.Lease)
	past := func() target.Time { return horizon + target.Time(1+s.IntN(10))*target.Second }
	doc := func() int32 { return int32(1 + s.IntN(cfg.Docs)) }
	for _, k := range FaultKinds() {
		// A clock fault the queue's clocks cannot take is never drawn
		// (and draws nothing: the seeds of a queue without clocks of its
		// own stay as they were).
		if k.Clock() && (!cfg.SwarmClocks || !takesClock(pol.Clocks, k)) || (reaches(k) || timeoutKind(k)) && !reach ||
			timeoutKind(k) && !pol.WorkerTimeouts || s.IntN(2) == 0 {
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
			case faults.ClockAhead, faults.ClockBehind:
				// Off by up to twice the horizon: past it, a worker's
				// clock alone takes a held job back.
				f.Worker = faults.AnyWorker
				if s.IntN(4) != 0 {
					f.Worker = int32(s.IntN(cfg.Workers))
				}
				f.At = target.Time(s.IntN(10_000)) * ms
				f.For = target.Time(1+s.IntN(int(2*max(horizon, target.Second)/ms))) * ms
			case faults.Zone:
				f.For = target.Time(1+s.IntN(12)) * 3600 * target.Second
			case faults.DST:
				f.At, f.For = target.Time(s.IntN(20_000))*ms, 3600*target.Second
			case faults.OutsideCancel:
				f.Doc, f.Attempt = doc(), int32(1+s.IntN(2))
			case faults.Delete, faults.Metadata:
				f.Doc = doc()
			case faults.OutOfBand:
				// Half on a completed row, half on a live job between its
				// attempts (its next one then carries the long history).
				f.Doc, f.Attempt = doc(), int32(s.IntN(2))
			case faults.BatchInsert:
				f.Doc, f.At = doc(), target.Time(s.IntN(15_000))*ms
			case faults.WorkerTimeout:
				// Shorter than the client's, or past the stuck horizon:
				// the rescuer then leaves the job until it runs out.
				f.Doc, f.For = doc(), target.Time(1+s.IntN(int(3*max(horizon, target.Second)/ms)))*ms
			case faults.NoTimeout:
				f.Doc = doc()
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

// takesClock reports whether a queue keeping clocks c takes clock
// fault kind k: a skew needs process clocks, a zone or a transition
// local time.
func takesClock(c target.Clocks, k faults.Kind) bool {
	if k == faults.ClockAhead || k == faults.ClockBehind {
		return c.Process
	}
	return c.Local
}

// clockPlan is the run's clock faults as a queue applies them, or an
// error naming one the queue's clocks cannot take.
func clockPlan(plan []planned, name string, c target.Clocks) (target.ClockPlan, error) {
	var p target.ClockPlan
	for i := range plan {
		f := &plan[i]
		if !f.Kind.Clock() {
			continue
		}
		if !takesClock(c, f.Kind) {
			what := "keeps no process clock of its own that a skew could move"
			if f.Kind == faults.Zone || f.Kind == faults.DST {
				what = "reads no local time that a zone or a transition could move"
			}
			return p, fmt.Errorf("fault %s: target %s %s (its Policy.Clocks)", f.Fault, name, what)
		}
		f.consumed = true // struck from its at= on
		switch f.Kind {
		case faults.ClockAhead:
			p.Skews = append(p.Skews, target.Skew{Worker: f.Worker, From: f.At, By: f.For})
		case faults.ClockBehind:
			p.Skews = append(p.Skews, target.Skew{Worker: f.Worker, From: f.At, By: -f.For})
		case faults.Zone:
			p.ZoneBehind += f.For
		case faults.DST:
			p.DST = append(p.DST, target.Shift{At: f.At, By: f.For})
		}
	}
	return p, nil
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
