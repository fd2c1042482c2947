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
	expired uint64     // the lease_expired that announced its end
}

// leaseFence checks a new lease against the previous one and makes it
// current. (That fences grow is checked across all jobs: grantFence.)
func (s *Suite) leaseFence(e *model.Event, j *job) {
	if j == nil {
		return
	}
	l := &j.lease
	if l.held && e.At < l.until {
		s.report(Fencing, e.Job, fmt.Sprintf("%v leased with fence %d while fence %d is valid until %s",
			e.Job, e.Fence, l.fence, millis(l.until)), l.seq, l.beat, e.Seq)
	}
	*l = leaseState{fence: e.Fence, attempt: j.sh.attempts, held: true, holder: e.Actor, seq: e.Seq, until: e.At + s.span(e)}
}

// expired checks a redelivery: the lease it ends was the current one and
// its time was up.
func (s *Suite) expired(e *model.Event, j *job) {
	if j == nil || !j.enqueued {
		return
	}
	l := &j.lease
	if e.Fence != l.fence || e.Attempt != j.sh.attempts {
		s.disagree(e.Job, fmt.Sprintf("%v lease of fence %d attempt %d expired, the history holds fence %d attempt %d",
			e.Job, e.Fence, e.Attempt, l.fence, j.sh.attempts), l.seq, e.Seq)
	}
	if l.held && e.At < l.until {
		s.report(Fencing, e.Job, fmt.Sprintf("%v lease of fence %d declared expired at %s, but it is valid until %s",
			e.Job, l.fence, millis(e.At), millis(l.until)), l.seq, l.beat, e.Seq)
	}
	if e.Actor != l.holder {
		s.disagree(e.Job, fmt.Sprintf("%v lease of fence %d expired in the name of %v, but %v holds it", e.Job, l.fence, e.Actor, l.holder), l.seq, e.Seq)
	}
	l.expired = e.Seq
}

// takeOver checks that a lease still held when the queue hands its job to
// another lease, or cancels or dead-letters it at a lease, was announced
// expired first: the holder's audit trail must show where its lease ended.
func (s *Suite) takeOver(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK {
		return
	}
	if l := &j.lease; l.held && l.expired == 0 {
		s.disagree(e.Job, fmt.Sprintf("%v %v by %v takes over the lease of fence %d held by %v, with no lease_expired announcing its end",
			e.Job, e.Kind, e.Actor, l.fence, l.holder), l.seq, e.Seq)
	}
}

// refusal checks a fenced call the queue refused: stale only if its fence
// is not the current one, not leased only if the job is not.
func (s *Suite) refusal(e *model.Event, j *job) {
	if e.OK || j == nil || !j.enqueued || j.lease.fence == 0 {
		return
	}
	l := &j.lease
	switch e.Code {
	case model.CodeStaleFence:
		if e.Fence == l.fence {
			s.report(Fencing, e.Job, fmt.Sprintf("%v %v with the current fence %d refused as stale", e.Job, e.Kind, e.Fence), l.seq, e.Seq)
		} else if uint64(e.N2) != l.fence {
			s.disagree(e.Job, fmt.Sprintf("%v %v refusal names fence %d as current, the history %d", e.Job, e.Kind, e.N2, l.fence), l.seq, e.Seq)
		}
	case model.CodeNotLeased:
		if j.state == model.Leased && e.Fence == l.fence {
			s.report(Fencing, e.Job, fmt.Sprintf("%v %v refused as not leased, but fence %d holds its lease", e.Job, e.Kind, e.Fence), l.seq, e.Seq)
		}
	}
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
