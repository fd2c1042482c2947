package model

import (
	"fmt"
	"math"
)

// queue holds jobs by id and the heap of jobs that may become leasable.
type queue struct {
	jobs      pages[Job] // job id-1
	ready     readyHeap
	fence     uint64           // global fencing counter: every lease increments it
	byKey     map[string]JobID // newest job per key, for idempotent enqueue
	live      int              // jobs not yet terminal
	head      JobID            // ordered mode: the oldest job not yet terminal
	cancelled []JobID          // every job ever cancelled, in order
}

// Job returns a copy of the job with id, or false.
func (s *System) Job(id JobID) (Job, bool) {
	if j := s.job(id); j != nil {
		return *j, true
	}
	return Job{}, false
}

// JobRef is Job without the copy, for a host's hot path: the job it points
// to is read-only to the caller and valid until the next call that changes
// the System. Nil when no such job exists.
func (s *System) JobRef(id JobID) *Job { return s.job(id) }

// Jobs returns how many jobs were ever enqueued.
func (s *System) Jobs() int { return s.queue.jobs.len() }

// CancelledJobs returns how many jobs were ever cancelled, and the i-th.
func (s *System) CancelledJobs() int { return len(s.queue.cancelled) }

// CancelledJob returns the i-th job ever cancelled (0-based).
func (s *System) CancelledJob(i int) JobID { return s.queue.cancelled[i] }

// Live is how many jobs are not yet succeeded, dead or cancelled.
func (s *System) Live() int { return s.queue.live }

// EachJob calls f for every job in id order.
func (s *System) EachJob(f func(j *Job)) {
	for i := range s.queue.jobs.len() {
		f(s.queue.jobs.at(i))
	}
}

func (s *System) job(id JobID) *Job {
	if id < 1 || int(id) > s.queue.jobs.len() {
		return nil
	}
	return s.queue.jobs.at(int(id - 1))
}

// schedule (re)places the job in the ready heap at time at.
func (s *System) schedule(j *Job, at Time) { s.queue.place(j, at) }

// unschedule removes the job's ready-heap entry.
func (s *System) unschedule(j *Job) { s.queue.unplace(j) }

// EnqueueRequest describes a new job.
type EnqueueRequest struct {
	Tenant      string
	Document    string
	Version     int
	PayloadHash uint64
	Deadline    Time  // 0: the configured default
	Origin      JobID // reprocess: the dead job this one redoes
	Actor       Actor
}

// Enqueue durably records a job and makes it visible now. The same key with
// the same payload hash returns the existing job (an accept retried by the
// client); with a different hash it is an IdempotencyConflictError.
func (s *System) Enqueue(r EnqueueRequest) (JobID, error) {
	if r.Version > math.MaxInt32 {
		return 0, fmt.Errorf("operationVersion %d is too large (at most %d)", r.Version, math.MaxInt32)
	}
	key, err := s.design.BuildKey(r.Tenant, r.Document, r.Version)
	if err != nil {
		return 0, err
	}
	if id, ok := s.queue.byKey[key]; ok {
		old := s.job(id)
		if old.PayloadHash != r.PayloadHash {
			e := jobEvent(s.event(EvEnqueue, r.Actor), old)
			e.Code = CodeIdempotencyConflict
			e.Tenant, e.Payload = r.Tenant, r.PayloadHash
			s.emit(e)
			return 0, &IdempotencyConflictError{Key: key}
		}
		e := jobEvent(s.event(EvEnqueue, r.Actor), old)
		e.Code = CodeDeduped
		e.Tenant, e.Payload = r.Tenant, r.PayloadHash
		s.emit(e)
		return id, nil
	}
	now := s.Now()
	deadline := r.Deadline
	if deadline <= 0 {
		deadline = s.cfg.Deadline
	}
	id := JobID(s.queue.jobs.len() + 1)
	j := s.queue.jobs.push(Job{
		ID: id, Tenant: r.Tenant, Document: r.Document, Version: int32(r.Version), Key: key,
		PayloadHash: r.PayloadHash, State: Pending, MaxAttempts: s.cfg.MaxAttempts,
		CreatedAt: now, VisibleAt: now, DeadlineAt: now + deadline,
		TokenBudget: s.cfg.TokenBudget, Origin: r.Origin,
	})
	s.queue.byKey[key] = id
	s.queue.live++
	s.schedule(j, now)
	e := jobEvent(s.event(EvEnqueue, r.Actor), j)
	e.N, e.N2, e.Payload = deadline, int64(r.Version), r.PayloadHash
	e.OK = true
	s.emit(e)
	return id, nil
}

// Lease is what LeaseNext hands a worker.
type Lease struct {
	Job   JobID
	Fence uint64
	Stage Stage // checkpoint: resume here, not from zero (seed 004)
	// HeldBack, when no lease is granted, is the ready job the circuit
	// breaker refused (0: nothing was ready): the worker is told why it
	// got nothing.
	HeldBack JobID
}

// LeaseNext leases the next visible job to worker: the earliest visible
// pending or retry_wait job, or a leased job whose lease expired
// (redelivery, counted as an attempt like SQS's receive count). A job whose
// deadline has passed is cancelled instead of leased; one with no attempt
// left is dead-lettered. Every lease increments the global fence.
func (s *System) LeaseNext(worker Actor) (Lease, bool) {
	now := s.Now()
	if s.cfg.Ordered {
		return s.leaseHead(worker, now)
	}
	for len(s.queue.ready.items) > 0 {
		top := s.queue.ready.items[0]
		if top.at > now {
			return Lease{}, false
		}
		j := s.job(top.job)
		if j.State.Terminal() {
			s.queue.popReady()
			continue
		}
		if !s.breaker.allow(s, now) {
			s.heldBack(worker, j)
			return Lease{HeldBack: j.ID}, false
		}
		s.queue.popReady()
		if j.State == Leased {
			s.emit(s.leaseEvent(EvLeaseExpired, j.Holder, j))
		}
		if s.design.PastDeadline(j, now) {
			s.breaker.release()
			s.finish(j, Cancelled, CodeDeadlineExceeded, EvCancelAtLease, worker, j.Fence)
			continue
		}
		if code := s.design.Exhausted(j); code != CodeNone {
			s.breaker.release()
			s.writeDLQ(j, code, nil, worker)
			s.finish(j, Dead, code, EvExhausted, worker, j.Fence)
			continue
		}
		return s.grant(j, worker, now), true
	}
	return Lease{}, false
}

// NextReadyAt is the earliest time a job may become leasable (a hint for
// idle workers: it ignores the breaker); ok is false when no job is waiting.
func (s *System) NextReadyAt() (at Time, ok bool) {
	h := &s.queue.ready
	for len(h.items) > 0 {
		top := h.items[0]
		if j := s.job(top.job); !j.State.Terminal() {
			return top.at, true
		}
		s.queue.popReady()
	}
	return 0, false
}

// leaseHead is LeaseNext for an ordered queue: only the head may go, and
// only once it is visible (or its lease expired).
func (s *System) leaseHead(worker Actor, now Time) (Lease, bool) {
	for {
		j := s.headJob()
		if j == nil || !s.headReady(j, now) {
			return Lease{}, false
		}
		if !s.breaker.allow(s, now) {
			s.heldBack(worker, j)
			return Lease{HeldBack: j.ID}, false
		}
		if j.State == Leased {
			s.emit(s.leaseEvent(EvLeaseExpired, j.Holder, j))
		}
		switch {
		case s.design.PastDeadline(j, now):
			s.breaker.release()
			s.finish(j, Cancelled, CodeDeadlineExceeded, EvCancelAtLease, worker, j.Fence)
		case s.design.Exhausted(j) != CodeNone:
			code := s.design.Exhausted(j)
			s.breaker.release()
			s.writeDLQ(j, code, nil, worker)
			s.finish(j, Dead, code, EvExhausted, worker, j.Fence)
		default:
			return s.grant(j, worker, now), true
		}
	}
}

// heldBack records a lease the breaker refused: the job that was ready,
// and the worker that asked for it.
func (s *System) heldBack(worker Actor, j *Job) {
	e := jobEvent(s.event(EvLease, worker), j)
	e.Code = CodeBreakerOpen
	s.emit(e)
}

// headJob advances the head past finished jobs and returns it.
func (s *System) headJob() *Job {
	if s.queue.head == 0 {
		s.queue.head = 1
	}
	for j := s.job(s.queue.head); j != nil; j = s.job(s.queue.head) {
		if !j.State.Terminal() {
			return j
		}
		s.queue.head++
	}
	return nil
}

func (s *System) headReady(j *Job, now Time) bool {
	switch j.State {
	case Leased:
		return now >= j.LeaseUntil
	case RetryWait:
		return now >= j.VisibleAt
	}
	return j.State == Pending && now >= j.VisibleAt
}

func (s *System) grant(j *Job, worker Actor, now Time) Lease {
	s.queue.fence++
	j.Fence = s.queue.fence
	j.Attempt++
	j.State = Leased
	j.Holder = worker
	j.LeaseUntil = now + s.cfg.Lease
	s.schedule(j, j.LeaseUntil)
	e := s.leaseEvent(EvLease, worker, j)
	e.N = s.cfg.Lease
	e.OK = true
	s.emit(e)
	return Lease{Job: j.ID, Fence: j.Fence, Stage: j.Stage}
}

func (s *System) leaseEvent(kind EventKind, actor Actor, j *Job) *Event {
	e := jobEvent(s.event(kind, actor), j)
	e.Fence, e.Attempt = j.Fence, j.Attempt
	return e
}

// finish moves a job to a terminal state and records it with the fence the
// caller presented.
func (s *System) finish(j *Job, st State, code Code, kind EventKind, actor Actor, fence uint64) {
	s.unschedule(j)
	j.State = st
	j.LastCode = code
	s.queue.live--
	if st == Cancelled {
		s.queue.cancelled = append(s.queue.cancelled, j.ID)
	}
	e := s.leaseEvent(kind, actor, j)
	e.Fence, e.Code, e.OK = fence, code, true
	s.emit(e)
}

// checkLease validates a fenced call: the job must exist and be leased, and
// the fence must be current (unless the design skips the check).
func (s *System) checkLease(kind EventKind, actor Actor, id JobID, fence uint64) (*Job, error) {
	j := s.job(id)
	if j == nil {
		return nil, ErrNotFound
	}
	if !s.design.FenceOK(j, fence) {
		e := jobEvent(s.event(kind, actor), j)
		e.Fence, e.Code, e.N2 = fence, CodeStaleFence, int64(j.Fence)
		s.emit(e)
		return nil, &FenceError{Job: id, Presented: fence, Current: j.Fence}
	}
	if j.State != Leased {
		e := jobEvent(s.event(kind, actor), j)
		e.Fence, e.Code = fence, CodeNotLeased
		s.emit(e)
		return nil, ErrNotLeased
	}
	return j, nil
}

// accepted records a fenced call that changed state.
func (s *System) accepted(kind EventKind, actor Actor, j *Job, fence uint64) *Event {
	e := jobEvent(s.event(kind, actor), j)
	e.Fence, e.Attempt, e.OK = fence, j.Attempt, true
	return e
}

// Heartbeat extends the lease of the current holder.
func (s *System) Heartbeat(actor Actor, id JobID, fence uint64) error {
	j, err := s.checkLease(EvHeartbeat, actor, id, fence)
	if err != nil {
		return err
	}
	j.LeaseUntil = s.Now() + s.cfg.Lease
	s.schedule(j, j.LeaseUntil)
	e := s.accepted(EvHeartbeat, actor, j, fence)
	e.N = s.cfg.Lease
	s.emit(e)
	return nil
}

// Advance records a stage checkpoint: next is the stage a later lease will
// resume from. It is fenced like an ack.
func (s *System) Advance(actor Actor, id JobID, fence uint64, next Stage) error {
	j, err := s.checkLease(EvAdvance, actor, id, fence)
	if err != nil {
		return err
	}
	if next > j.Stage {
		j.Stage = next
	}
	e := s.accepted(EvAdvance, actor, j, fence)
	e.Stage, e.HasStage = next, true
	s.emit(e)
	return nil
}

// Ack marks the job succeeded. An ack by the current holder after its lease
// expired, but before anyone else leased the job, is accepted: the fence is
// still current, so no one else can have acted on the job, and rejecting it
// would only force a redundant redelivery.
func (s *System) Ack(actor Actor, id JobID, fence uint64) error {
	j, err := s.checkLease(EvAck, actor, id, fence)
	if err != nil {
		return err
	}
	j.Stage = StageDone
	s.unschedule(j)
	j.State = Succeeded
	s.queue.live--
	if env := s.dlq.entries[id]; env != nil && env.Status == Quarantined {
		env.Status = Resolved // a crash after the DLQ write, then a successful redelivery
	}
	s.breaker.report(s, s.Now(), false)
	s.emit(s.accepted(EvAck, actor, j, fence))
	return nil
}

// Fail reports a failed attempt. The design's policy decides: retry (the job
// waits in retry_wait), dead_letter (the caller must then write the DLQ and
// call MarkDead — two steps, with the after_dlq_write boundary between) or
// cancel. It returns the decision.
func (s *System) Fail(actor Actor, id JobID, fence uint64, cause error) (Decision, error) {
	j, err := s.checkLease(EvRetry, actor, id, fence)
	if err != nil {
		return Decision{}, err
	}
	now := s.Now()
	if Classify(cause) == CancelledClass {
		// A call cut at the job's own deadline says nothing of the work's
		// health: no sample, and a canary's slot goes back (counting it a
		// failure lets a backlog open the breaker, which lets more jobs
		// reach their deadlines: a cancellation storm).
		s.breaker.release()
	} else {
		s.breaker.report(s, now, true)
	}
	j.LastCode = codeOf(cause)
	d := s.design.Decide(s.cfg.Retry, j, cause, now, s.rnd)
	switch d.Outcome {
	case RetryOutcome:
		j.State = RetryWait
		j.VisibleAt = now + d.Delay
		s.schedule(j, j.VisibleAt)
		e := s.accepted(EvRetry, actor, j, fence)
		e.Code, e.N, e.N2 = j.LastCode, d.Delay, d.Bound
		s.emit(e)
	case CancelOutcome:
		s.finish(j, Cancelled, d.Reason, EvCancel, actor, fence)
	}
	return d, nil
}

// MarkDead completes a dead-letter decision after the envelope was written.
func (s *System) MarkDead(actor Actor, id JobID, fence uint64, reason Code) error {
	j, err := s.checkLease(EvDead, actor, id, fence)
	if err != nil {
		return err
	}
	s.finish(j, Dead, reason, EvDead, actor, fence)
	return nil
}

// SpendTokens charges an attempt's token use to the job's budget.
func (s *System) SpendTokens(id JobID, tokens int64) {
	if j := s.job(id); j != nil {
		j.TokensSpent += tokens
	}
}

// LastFence is the global fencing counter: the fence of the last lease.
func (s *System) LastFence() uint64 { return s.queue.fence }
