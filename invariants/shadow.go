package invariants

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/model"
)

// The oracles keep their own model of the system, built only from the
// history, in the way porcupine's and Jepsen's checkers do: how many
// attempts a job has had, when it may next be leased, its checkpoint, the
// failure its worker reported, the fences granted, the broker's messages.
// Where an event carries a number the system computed (attempt, fence,
// delay, delivery, deadline), the oracle recomputes it and reports a
// disagreement under [Consistency]; every other checker judges events
// against these recomputed facts, never against the event's own numbers.

// shadow is the oracle's own account of one job.
type shadow struct {
	attempts    int32       // leases granted since the enqueue or the last redrive
	visibleAt   model.Time  // no lease before this: the enqueue, a retry's delay, a redrive
	visSeq      uint64      // the event that set visibleAt
	checkpoint  model.Stage // the next stage to run, from the accepted advances
	checkSeq    uint64      // the advance or ack that set it
	resume      model.Stage // the checkpoint the current lease resumes from
	resumeFence uint64      // the lease whose first work must start at resume (0: checked)
	redrives    int32
	origin      model.JobID   // reprocessed job: the dead job it redoes
	fail        failure       // the failure a worker reported and the queue has not yet decided
	failOpen    bool          // that failure's report still awaits the queue's answer (the job's next event)
	lastCode    model.Code    // the reason of its last failure the queue took: what a status query must answer
	decided     uint64        // the last policy decision (retry, dead letter, cancel) by a worker
	revived     uint64        // the last redrive, or the enqueue of a reprocessed job
	revivedLate bool          // that revival came after the faults stopped
	excuse      uint64        // a permanent or provider-429 failure since the revival, or a breaker stop that let its deadline pass
	dlq         dlqRecord     // the last DLQ write
	readyGen    uint32        // the generation of its live entry in the oracle's ready queue
	dlqResolved bool          // revived or acked since the last DLQ write
	pause       uint64        // the last pause of a worker holding it
	wasted      wastedRedrive // its last redrive, if wasted and the job has not ended since
	limited     uint64        // the last operator call on it refused, justly, as rate_limited
	refillAt    model.Time    // when that limit had a token again
}

// failure is a stage failure a worker reported (EvWorkFail).
type failure struct {
	paths string // the schema paths the worker was told ("a,b"), if any
	ref   uint64 // the worker's reference to the raw error (0: none recorded)
	work  bool   // reported as a work error (it has a raw error text)
	code  model.Code
	seq   uint64
	actor model.Actor
	fence uint64
}

// dlqRecord is what a DLQ write said.
type dlqRecord struct {
	paths    string // the schema paths of the failure it records
	ref      uint64 // the worker's reference to that failure's raw error (0: none recorded)
	work     bool   // it records a work error, which has a raw error to point at
	seq      uint64
	reason   model.Code
	attempts int32
	tokens   int64
}

// global is the oracle's account of what is shared by every job.
type global struct {
	fence    uint64 // the highest fence granted
	fenceSeq uint64 // by this lease
	msgs     []msgRec
	asked    map[string]askedDeadline // key → the deadline its latest request asked for
	quiesce  uint64                   // the phase event that stopped the faults (0: not yet)
	quietAt  model.Time
	pass     prunePass     // the relay's prune pass under way
	lastEnq  enqRecord     // the queue's record of the latest enqueue request
	prev     prevEvent     // the last refusal recorded (an event not OK)
	prevSeq  uint64        // the event just recorded
	cancels  []cancelRec   // the jobs cancelled, in order
	applies  []applyRec    // the effects applied, in order
	dlqOrder []model.JobID // the jobs dead-lettered, in the order of their first DLQ write
}

// applyRec is one effect the consumer applied, as the history tells it.
type applyRec struct {
	event model.EventID
	at    model.Time
	seq   uint64
}

// cancelRec is one cancel the history records.
type cancelRec struct {
	job model.JobID
	seq uint64
}

// prevEvent is what the refusal check needs of a refusal the system
// recorded.
type prevEvent struct {
	seq   uint64
	kind  model.EventKind
	actor model.Actor
	job   model.JobID
	code  model.Code
}

// refusedCall checks an actor's record of a refused call against the
// system's record of the refusal, which must come just before it: the same
// call by the same actor on the same job, refused with the same reason.
// (A call about a job id that does not exist has no job to record it
// against.)
func (s *Suite) refusedCall(e *model.Event) {
	p := s.g.prev // the system's refusal, if it is the event just before
	call := strings.TrimPrefix(e.Text, "call=")
	if p.seq != 0 && p.seq == s.g.prevSeq && p.job == e.Job && p.actor == e.Actor && p.code == e.Code && p.kind.String() == call {
		return
	}
	if j := s.known(e.Job); e.Code == model.CodeNotFound && (j == nil || !j.enqueued) {
		return
	}
	s.disagree(e.Job, fmt.Sprintf("%v was refused its %s of %v (%v), and the system recorded no such refusal", e.Actor, call, e.Job, e.Code), s.g.prevSeq, e.Seq)
}

// enqRecord is the queue's record of an enqueue request: created,
// deduplicated into an existing job, or refused as a conflict.
type enqRecord struct {
	seq     uint64
	at      model.Time
	job     model.JobID
	code    model.Code
	ok      bool
	payload uint64 // the request's payload hash
}

// prunePass is what a relay's prune pass has pruned so far: the rows
// pruned at one time by one actor, until the relay records the pass.
type prunePass struct {
	at    model.Time
	actor model.Actor
	rows  int64
	first uint64 // its first prune
	kept  int    // rows below this event id are all pruned (a cursor for the retention scan)
}

// msgRec is one broker message as the history tells it.
type msgRec struct {
	event      model.EventID
	seq        uint64 // its publish
	deliveries int32  // deliveries the consumer reported
}

// askedDeadline is a deadline-pressure fault on a request: the span the
// client asked for.
type askedDeadline struct {
	span model.Time
	seq  uint64
}

// resetGlobal empties the shared account, keeping its storage.
func (g *global) reset() {
	msgs, asked, cancels, applies, dlqOrder := g.msgs[:0], g.asked, g.cancels[:0], g.applies[:0], g.dlqOrder[:0]
	clear(asked)
	if asked == nil {
		asked = map[string]askedDeadline{}
	}
	*g = global{msgs: msgs, asked: asked, cancels: cancels, applies: applies, dlqOrder: dlqOrder}
}

// disagree reports a number the system computed that the oracle computes
// otherwise.
func (s *Suite) disagree(job model.JobID, msg string, seqs ...uint64) {
	s.report(Consistency, job, msg, seqs...)
}

// answerFailure checks the event that follows a worker's failure report
// for the same job. A worker reports a failure (EvWorkFail) and at once
// calls the queue, which answers it with a retry, a cancel, a refusal,
// or a dead-letter decision the worker acts on by writing the DLQ: the
// job's next event is that worker's. Anything else means the call left
// no trace, or the queue acted on the job without answering it.
func (s *Suite) answerFailure(e *model.Event, j *job) {
	j.sh.failOpen = false
	if e.OK && e.Actor == j.sh.fail.actor {
		j.sh.lastCode = j.sh.fail.code // the queue took the report (a refusal leaves the job as it was)
	}
	// A lease_expired bears the holder's name but is the queue's own act.
	if f := j.sh.fail; e.Actor != f.actor || e.Kind == model.EvLeaseExpired {
		s.disagree(e.Job, fmt.Sprintf("%v failure reported by %v has no answer from the queue: the job's next event is %v by %v",
			e.Job, f.actor, e.Kind, e.Actor), f.seq, e.Seq)
	}
}

// unansweredFailures reports the failure reports the run ended on.
func (s *Suite) unansweredFailures(out *violations) {
	for id := range s.njobs {
		if j := s.at(id); j.sh.failOpen {
			out.add(Consistency, model.JobID(id), fmt.Sprintf("%v failure reported by %v has no answer from the queue: the history ends there",
				model.JobID(id), j.sh.fail.actor), j.sh.fail.seq)
		}
	}
}

// phase follows the simulation's phases: when the faults stopped.
func (s *Suite) phase(e *model.Event) {
	if e.Text == "quiesce" && s.g.quiesce == 0 {
		s.g.quiesce, s.g.quietAt = e.Seq, e.At
	}
}

// fault reads the faults a request carries: a deadline-pressure fault
// tells the deadline the client asked for.
func (s *Suite) fault(e *model.Event) {
	if e.Text == "deadline" && e.Key != "" && e.N2 > 0 {
		s.g.asked[e.Key] = askedDeadline{span: e.N2, seq: e.Seq}
	}
}

// expectDeadline checks the deadline an enqueue stored against the one its
// request asked for: a deadline fault's, else the configured default.
func (s *Suite) expectDeadline(e *model.Event) {
	want, why := s.cfg.Model.Deadline, uint64(0)
	if a, ok := s.g.asked[e.Key]; ok {
		want, why = a.span, a.seq
		delete(s.g.asked, e.Key)
	}
	if want > 0 && e.N != want {
		s.disagree(e.Job, fmt.Sprintf("%v enqueued with a deadline of %s, but its request asked for %s",
			e.Job, millis(e.N), millis(want)), why, e.Seq)
	}
}

// grantFence checks a lease's fence against every fence granted before:
// fences are a global counter, so each lease's exceeds all earlier ones.
func (s *Suite) grantFence(e *model.Event) {
	if e.Fence <= s.g.fence && s.g.fence != 0 {
		s.report(Fencing, e.Job, fmt.Sprintf("%v leased with fence %d, but fence %d was granted before",
			e.Job, e.Fence, s.g.fence), s.g.fenceSeq, e.Seq)
		return
	}
	s.g.fence, s.g.fenceSeq = e.Fence, e.Seq
}

// countAttempt counts a lease as the job's next attempt and compares the
// count with the attempt the event carries.
func (s *Suite) countAttempt(e *model.Event, j *job) {
	if j == nil || !j.enqueued {
		return
	}
	j.sh.attempts++
	if e.Attempt != j.sh.attempts {
		s.disagree(e.Job, fmt.Sprintf("%v lease says attempt %d, the history counts %d since %s",
			e.Job, e.Attempt, j.sh.attempts, j.countedFrom()), j.countSeq(), e.Seq)
	}
}

// countedFrom names where the oracle's attempt count starts.
func (j *job) countedFrom() string {
	if j.sh.redrives > 0 {
		return "its last redrive"
	}
	return "its enqueue"
}

// countSeq is the event the attempt count starts from.
func (j *job) countSeq() uint64 {
	if j.sh.redrives > 0 && j.sh.revived != 0 {
		return j.sh.revived
	}
	return j.enqSeq
}

// span checks the lease span an event grants against the configuration
// and returns the configured one: a lease or heartbeat is valid for
// exactly Lease from the moment it is granted.
func (s *Suite) span(e *model.Event) model.Time {
	want := s.cfg.Model.Lease
	if want <= 0 {
		return e.N
	}
	if e.N != want && e.OK {
		s.disagree(e.Job, fmt.Sprintf("%v %v announces a lease of %s, the configuration gives %s",
			e.Job, e.Kind, millis(e.N), millis(want)), e.Seq)
	}
	return want
}
