package invariants

import "github.com/durasim/durasim/model"

// job is what the suite knows about one job. The facts are shared; each
// checker keeps its own part, declared in its file.
type job struct {
	facts
	lease    leaseState // fencing
	once     onceState  // exactly-once-effect
	accepted uint64     // nothing-lost: the first accept naming the job
	dlqSeq   uint64     // dlq-hygiene: the last DLQ write
	work     workState  // wasted-work, and the tokens bounded-retries counts
	// published has a bit per stage whose retired outbox event carried the
	// job's key (nothing-lost: lostWrites).
	published uint8
	// promised: a client was promised this job for its document, and the
	// promise was checked (nothing-lost; see keepPromise).
	promised bool
	sh       shadow // the oracle's own counts and clocks
}

// facts is a job's identity, from its enqueue, and its lifecycle as the
// history tells it.
type facts struct {
	enqueued bool
	keyOwned bool  // its tenant owns its key: events matching both are fine
	owner    int32 // index+1 in Suite.ownerList of its key's owner, from the enqueue
	state    model.State
	enqSeq   uint64 // the enqueue
	endSeq   uint64 // the event that last made it terminal
	lastSeq  uint64 // the last event naming it

	deadline    model.Time // 0: unknown
	version     int64      // operation version
	payload     uint64     // the payload hash it was enqueued with
	tenant, key string
	keyHash     uint64 // keyHash(key)
}

// maxJump bounds how far past the known jobs an id may grow the table: job
// ids are dense, so a larger jump is a bogus id, not a job.
const maxJump = 1 << 16

// jobPage is how many jobs one page of the table holds. Past the first
// page the table grows a page at a time: a doubling slice would copy every
// job on growth and hold up to twice their memory, which at a million jobs
// was the largest allocation of a run. The first page doubles as a slice
// does, so a small run pays for the jobs it has.
const jobPage = 1 << 12

// jobTable holds the jobs by id in pages; index 0 is unused.
type jobTable struct {
	pages [][]job
	njobs int // ids below njobs are in the table
}

// at returns the entry of id, which must be below njobs.
func (t *jobTable) at(id int) *job { return &t.pages[uint(id)/jobPage][uint(id)%jobPage] }

// grow makes room for ids below n.
func (t *jobTable) grow(n int) {
	if n <= t.njobs {
		return
	}
	for last := (n - 1) / jobPage; len(t.pages) <= last; {
		if k := len(t.pages); k > 0 {
			t.pages[k-1] = growPage(t.pages[k-1], jobPage)
		}
		if len(t.pages) < cap(t.pages) {
			t.pages = t.pages[:len(t.pages)+1] // a page kept by reset: empty and zeroed
		} else {
			t.pages = append(t.pages, nil)
		}
	}
	k := len(t.pages) - 1
	t.pages[k] = growPage(t.pages[k], (n-1)%jobPage+1)
	t.njobs = n
}

// reset empties the table, keeping its pages zeroed for reuse: a job
// holds strings, and a page grown back must read as new.
func (t *jobTable) reset() {
	for i, p := range t.pages {
		clear(p)
		t.pages[i] = p[:0]
	}
	t.pages = t.pages[:0]
	t.njobs = 0
}

// growPage returns p with length n (at most jobPage), doubling its
// capacity below a full page.
func growPage[T any](p []T, n int) []T {
	if n <= len(p) {
		return p
	}
	if n > cap(p) {
		np := make([]T, len(p), min(jobPage, max(n, 2*cap(p), 64)))
		copy(np, p)
		p = np
	}
	return p[:n]
}

// job returns the entry of id, growing the table as jobs appear; nil for
// id 0 or a bogus id.
func (s *Suite) job(id model.JobID) *job {
	if id <= 0 || id > model.JobID(s.njobs+maxJump) {
		return nil
	}
	if int(id) >= s.njobs { // (most events name a job already known: no call)
		s.grow(int(id) + 1)
	}
	return s.at(int(id))
}

// known returns the entry of id without growing the table.
func (s *Suite) known(id model.JobID) *job {
	if id <= 0 || id >= model.JobID(s.njobs) {
		return nil
	}
	return s.at(int(id))
}

// enqueue records a durable enqueue: the job's identity, its key's owner
// and a hygiene check of the strings it brings.
func (s *Suite) enqueue(e *model.Event, j *job) {
	if !e.OK || j == nil || j.enqueued {
		return
	}
	j.facts = facts{
		enqueued: true, state: model.Pending, enqSeq: e.Seq,
		version: e.N2, tenant: e.Tenant, key: e.Key, payload: e.Payload, keyHash: keyHash(e.Key),
	}
	if e.N > 0 {
		j.deadline = e.At + e.N
	}
	j.sh.visibleAt, j.sh.visSeq = e.At, e.Seq
	s.expectDeadline(e)
	s.claimKey(e, j)
	s.checkIdentity(e)
	s.keepPending(e.Job, j)
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
		if j.state == model.Dead { // cancelled never comes back; revive set the new clocks
			j.state = model.Pending
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
