package sim

import (
	"fmt"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
)

// Backend is a second implementation of the pipeline driven in lockstep
// with the model (differential execution, as FoundationDB and TigerBeetle
// test theirs): every event the model records is replayed against it, and
// it says whether it agrees. It must be deterministic in what it reports;
// it may do I/O (a database), which is why it lives behind this seam and
// not in sim.
type Backend interface {
	// Name is the backend's -backend flag value ("sqlite", "postgres").
	Name() string
	// Begin starts a seed on an empty store. sys is the model the events
	// come from; it stays valid until End.
	Begin(seed uint64, sys *model.System) error
	// Observe replays one event, already applied by the model and hashed.
	// An error is a divergence: the run stops and fails.
	Observe(e *model.Event) error
	// End compares the backend's final state with the model's.
	End(sys *model.System) error
}

// EmptyPoller is a Backend that also checks the polls the model answered
// with no job (and not because its breaker held a job back): the backend,
// asked the same at the same time, must find none either. A lease that
// ignores a retry's visibility time shows only here, when the model's
// queue has nothing visible.
type EmptyPoller interface {
	EmptyPoll(worker model.Actor, at, leaseUntil model.Time) error
}

// Checker is a Backend that also runs the store checks of package
// invariants ([invariants.CheckStore]) over its own final state and the
// operations it replayed: the history-only oracles, which trust nothing
// of the model either. Check runs once End found the states equal;
// drained says whether the run drained (liveness applies). Its
// violations carry the store checks' names ([invariants.StoreCheck]).
type Checker interface {
	Check(drained bool) []invariants.Violation
}

// DivergenceInvariant names the check a backend fails when it disagrees
// with the model.
const DivergenceInvariant = "backend-divergence"

// backendState is the recorder's side of the seam: the first divergence
// and the event it happened at.
type backendState struct {
	b   Backend
	err error
	seq uint64
	job model.JobID
}

// observe hands e to the backend until the first divergence.
func (s *backendState) observe(e *model.Event) {
	if s.err != nil {
		return
	}
	if err := s.b.Observe(e); err != nil {
		s.err, s.seq, s.job = err, e.Seq, e.Job
	}
}

// emptyPoll hands an empty poll to the backend, if it checks those, until
// the first divergence; lastSeq is the event the poll came after.
func (s *backendState) emptyPoll(w model.Actor, at, until model.Time, lastSeq uint64) {
	p, ok := s.b.(EmptyPoller)
	if !ok || s.err != nil {
		return
	}
	if err := p.EmptyPoll(w, at, until); err != nil {
		s.err, s.seq, s.job = err, lastSeq, 0
	}
}

// violation is the divergence as an invariant violation (nil: none).
func (s *backendState) violation(seed uint64) *invariants.Violation {
	if s == nil || s.err == nil {
		return nil
	}
	v := invariants.Violation{Invariant: DivergenceInvariant, Job: s.job,
		Message: fmt.Sprintf("seed %d: %s backend: %v", seed, s.b.Name(), s.err)}
	if s.seq > 0 {
		// The error names the backend ("sqlite said X, the model said Y").
		v.Message = fmt.Sprintf("seed %d at event #%d: %v", seed, s.seq, s.err)
		v.Events = []uint64{s.seq}
	}
	return &v
}

// diverged reports whether the backend has disagreed yet.
func (s *backendState) diverged() bool { return s != nil && s.err != nil }
