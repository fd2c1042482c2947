package invariants

import (
	"slices"

	"github.com/durasim/durasim/model"
)

// job is what the suite knows about one job. The facts are shared; each
// checker keeps its own part, declared in its file.
type job struct {
	facts
	lease    leaseState // fencing
	once     onceState  // exactly-once-effect
	accepted uint64     // nothing-lost: the first accept naming the job
	promised promise    // nothing-lost: the key a client was promised under this id
	dlqSeq   uint64     // dlq-hygiene: the last DLQ write
	work     workState  // wasted-work, and the tokens bounded-retries counts
}

// facts is a job's identity, from its enqueue, and its lifecycle as the
// history tells it.
type facts struct {
	enqueued bool
	keyOwned bool // its tenant owns its key: events matching both are fine
	state    model.State
	enqSeq   uint64 // the enqueue
	endSeq   uint64 // the event that last made it terminal
	lastSeq  uint64 // the last event naming it

	deadline    model.Time // 0: unknown
	version     int64      // operation version
	tenant, key string
}

// maxJump bounds how far past the known jobs an id may grow the table: job
// ids are dense, so a larger jump is a bogus id, not a job.
const maxJump = 1 << 16

// job returns the entry of id, growing the table as jobs appear; nil for
// id 0 or a bogus id.
func (s *Suite) job(id model.JobID) *job {
	if id <= 0 || id > model.JobID(len(s.jobs)+maxJump) {
		return nil
	}
	if n := int(id) + 1; n > len(s.jobs) {
		s.jobs = slices.Grow(s.jobs, n-len(s.jobs))[:n]
	}
	return &s.jobs[id]
}

// known returns the entry of id without growing the table.
func (s *Suite) known(id model.JobID) *job {
	if id <= 0 || id >= model.JobID(len(s.jobs)) {
		return nil
	}
	return &s.jobs[id]
}

// enqueue records a durable enqueue: the job's identity, its key's owner
// and a hygiene check of the strings it brings.
func (s *Suite) enqueue(e *model.Event, j *job) {
	if !e.OK || j == nil || j.enqueued {
		return
	}
	j.facts = facts{
		enqueued: true, state: model.Pending, enqSeq: e.Seq,
		version: e.N2, tenant: e.Tenant, key: e.Key,
	}
	if e.N > 0 {
		j.deadline = e.At + e.N
	}
	s.claimKey(e, j)
	s.checkIdentity(e)
	s.keepPromise(j)
}

// advance moves the job's lifecycle past e. It runs after the checkers,
// which judge e against the state before it.
func (j *job) advance(e *model.Event) {
	j.lastSeq = e.Seq
	if !e.OK {
		return
	}
	switch e.Kind {
	case model.EvLease:
		j.state = model.Leased
	case model.EvRetry:
		j.state = model.RetryWait
		j.lease.held = false
	case model.EvAck:
		j.end(model.Succeeded, e.Seq)
	case model.EvDead, model.EvExhausted:
		j.end(model.Dead, e.Seq)
	case model.EvCancel, model.EvCancelAtLease:
		j.end(model.Cancelled, e.Seq)
	case model.EvRedrive:
		if j.state == model.Dead { // cancelled never comes back
			j.state = model.Pending
			if e.N2 > 0 { // a redrive gives the job a new deadline
				j.deadline = e.At + e.N2
			}
			j.work.tokens = 0 // and a new budget
		}
	}
}

func (j *job) end(st model.State, seq uint64) {
	j.state, j.endSeq = st, seq
	j.lease.held = false
}

// over reports whether the job went dead or cancelled and was not
// redriven since.
func (f *facts) over() bool { return f.state == model.Dead || f.state == model.Cancelled }
