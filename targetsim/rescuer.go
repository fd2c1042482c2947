package targetsim

import (
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
)

// rescuer is River's job rescuer: every interval it reads the stuck jobs
// (JobGetStuck), then, a moment later, rescues them (JobRescueMany). Other
// actors run between its two calls.
type rescuer struct {
	r       *run
	conn    target.Conn
	stuck   []target.Job
	token   int64
	crossed int
}

func (s *rescuer) pass() {
	r := s.r
	r.sched.After(scheduler.Time(rescuerInterval), scheduler.Event{Kind: evRescuer})
	if s.stuck != nil {
		return // the last pass has not rescued yet (a paused rescuer)
	}
	s.stuckPass()
}

// stuckPass is the pass's first call on.
func (s *rescuer) stuckPass() {
	r := s.r
	stuck, err := s.conn.Stuck(r.ctx, r.now())
	if r.blocked(err) {
		r.parkCont = s.stuckPass
		return
	}
	if err != nil {
		r.fail("stuck jobs", err)
		return
	}
	if len(stuck) == 0 {
		return
	}
	for _, j := range stuck {
		r.counts.Stuck++
		r.record(target.Op{Kind: target.OpStuck, Actor: "rescuer", Job: j.ID, Attempt: j.Attempt, At: j.AttemptedAt})
	}
	s.crossed++
	delay := r.between(r.lat, ms, 20*ms)
	if f := r.crossing(faults.AnyWorker, boundary.RescuerAfterStuck, s.crossed, s.crossed, false); f != nil {
		if f.Kind == faults.Crash {
			r.counts.Crashes++
			r.record(target.Op{Kind: target.OpCrash, Actor: "rescuer", Boundary: boundary.RescuerAfterStuck.String()})
			return // the next pass starts afresh
		}
		r.counts.Pauses++
		r.record(target.Op{Kind: target.OpPause, Actor: "rescuer", Boundary: boundary.RescuerAfterStuck.String(), At: r.now() + f.For})
		delay += f.For
	}
	s.stuck = stuck
	s.token++
	r.sched.After(scheduler.Time(delay), scheduler.Event{Kind: evRescue, Arg: s.token})
}

func (s *rescuer) rescue(token int64) {
	if token != s.token || s.stuck == nil {
		return
	}
	r := s.r
	stuck := s.stuck
	for i := range stuck {
		stuck[i].Timeout = r.timeouts[stuck[i].ID] // the worker's code says it, not the row
	}
	got, err := s.conn.Rescue(r.ctx, r.now(), stuck)
	if r.blocked(err) {
		r.parkCont = func() { s.rescue(token) }
		return
	}
	s.stuck = nil
	if err != nil {
		r.fail("rescue", err)
		return
	}
	for _, x := range got {
		if x.Applied {
			r.counts.Rescued++
		}
		at := x.ScheduledAt
		if x.State.Final() {
			at = 0
		}
		r.record(target.Op{Kind: target.OpRescue, Actor: "rescuer", Job: x.Job, State: x.State, At: at, Applied: x.Applied})
	}
}
