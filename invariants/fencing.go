package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// Fencing: a stale fence never changes state, and there are never two
// valid leases on one job. A lease is valid from its grant until its span
// ends, extended by the holder's accepted heartbeats, unless the job was
// acked, retried, dead-lettered or cancelled first.

// leaseState is the fencing checker's part of a job: its latest lease.
type leaseState struct {
	fence   uint64 // current fence; 0: never leased
	attempt int32
	held    bool // not yet released by ack, retry, dead or cancel
	holder  model.Actor
	seq     uint64     // the lease event
	beat    uint64     // the last heartbeat that extended it
	until   model.Time // valid until (exclusive)
}

// leaseFence checks a new lease against the previous one and makes it
// current.
func (s *Suite) leaseFence(e *model.Event, j *job) {
	if j == nil {
		return
	}
	l := &j.lease
	if l.held && e.At < l.until {
		s.report(Fencing, e.Job, fmt.Sprintf("%v leased with fence %d while fence %d is valid until %s",
			e.Job, e.Fence, l.fence, millis(l.until)), l.seq, l.beat, e.Seq)
	}
	if l.fence != 0 && e.Fence <= l.fence {
		s.report(Fencing, e.Job, fmt.Sprintf("%v leased with fence %d, not above the previous fence %d",
			e.Job, e.Fence, l.fence), l.seq, e.Seq)
	}
	*l = leaseState{fence: e.Fence, attempt: e.Attempt, held: true, holder: e.Actor, seq: e.Seq, until: e.At + s.span(e)}
}

// span is the lease span an event grants (N), or the configured lease.
func (s *Suite) span(e *model.Event) model.Time {
	if e.N > 0 {
		return e.N
	}
	return s.cfg.Model.Lease
}

// heartbeat checks an accepted heartbeat's fence; the holder's extends
// the lease.
func (s *Suite) heartbeat(e *model.Event, j *job) {
	s.checkFence(e, j)
	if e.OK && j != nil && e.Fence == j.lease.fence {
		j.lease.until = max(j.lease.until, e.At+s.span(e))
		j.lease.beat = e.Seq
	}
}

// checkFence reports an accepted fenced call whose fence is not current.
func (s *Suite) checkFence(e *model.Event, j *job) {
	if !e.OK || j == nil || j.lease.fence == 0 || e.Fence == j.lease.fence {
		return
	}
	s.report(Fencing, e.Job, fmt.Sprintf("%v %v with stale fence %d changed state (current fence %d)",
		e.Job, e.Kind, e.Fence, j.lease.fence), j.lease.seq, e.Seq)
}

// checkHolder checks dead and cancel events. The model stamps them with
// the job's current fence rather than the one presented, so a stale caller
// shows only as an actor other than the holder of the current lease.
func (s *Suite) checkHolder(e *model.Event, j *job) {
	s.checkFence(e, j)
	if !e.OK || j == nil || j.lease.fence == 0 || e.Fence != j.lease.fence {
		return
	}
	if h := j.lease.holder; e.Actor.Role != h.Role || e.Actor.ID != h.ID {
		s.report(Fencing, e.Job, fmt.Sprintf("%v %v by %v, but fence %d is held by %v",
			e.Job, e.Kind, e.Actor, j.lease.fence, h), j.lease.seq, e.Seq)
	}
}
