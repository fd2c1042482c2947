package invariants

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/model"
)

// Suite runs every checker over one run. Safety is checked as events
// arrive ([Suite.Record]); liveness and final-state checks run in
// [Suite.Finish], liveness only when the run drained ([Suite.Drained]).
// A Suite implements [model.Recorder].
type Suite struct {
	cfg     Config
	drained bool
	safety  violations

	jobTable                            // jobs by id
	owners      map[string]int32        // tenant-isolation: index+1 in ownerList of each key's owner
	ownerList   []owner                 // the owners, in order claimed: updated in place, no second map write
	applied     map[stageKey]uint64     // exactly-once: first applied effect per (key, stage)
	outbox      outboxTable             // nothing-lost: per EventID
	writes      []dbWrite               // nothing-lost: dual writes
	orphans     []dbWrite               // nothing-lost: publishes with no event id
	promises    map[model.JobID]promise // nothing-lost: promises of jobs not yet enqueued
	ops         operatorLog             // reprocess-redrive
	buckets     map[string]*bucket      // reprocess-redrive: per-tenant reprocess limit
	secrets     secretIndex             // dlq-hygiene: finds any workload secret in a text
	g           global                  // the oracle's shared account: fences, messages, phases
	brk         breakerRef              // circuit-breaker: the oracle's reference breaker
	loose       map[string]*keyRecord   // idempotency: keys no enqueue owns
	rows        []rowRec                // by event id: each outbox row's identity, mark and prune
	noRow       rowRec                  // what rowAt reads for an id no row has (never written)
	lastKey     string                  // the key sig hashed last
	lastKeyHash uint64
	readyQ      readyQueue          // the oracle's own ready queue (queue order)
	orderedHead model.JobID         // the oldest job an ordered queue may still hold
	texts       map[string]struct{} // dlq-hygiene: every distinct event text, judged once
	textSlots   [16]string          // texts noted lately, by where their bytes lie (noteText)
	others      map[string]struct{} // dlq-hygiene: keys and tenants of events that are not their job's
	leaked      map[string]bool     // dlq-hygiene: event strings already reported as they came
	excerpts    excerptIndex        // dlq-hygiene: the secrets' windows
	excerptHits []checked           // dlq-hygiene: event strings holding an excerpt or a canary
	served      []served            // nothing-lost: by client id, what it was told
	wf          wfTables            // durable-workflow

	scratchChecked []checked // Finish's scratch, kept for the next seed
	scratchFound   []excerptFound
	finalEffects   []model.Effect // FinalOf's buffers
	finalCancelled []model.JobID
	// (and these)
	finalQuarantined []model.JobID
	finalResults     []model.Result

	// Scratch of Finish, kept so that a Suite reused across seeds
	// (Reset) does not allocate them again; cleared before each use.
	fv       finalView
	keySet   map[stageKey]bool
	keySet2  map[stageKey]bool
	links    map[auditLink]bool
	redriven map[model.JobID]int
}

// NewSuite returns a suite with no history.
func NewSuite(cfg Config) *Suite {
	s := new(Suite)
	s.Reset(cfg)
	return s
}

// Reset makes s exactly what NewSuite(cfg) returns, keeping its storage:
// a sweep runs thousands of short seeds, and building each one's tables
// anew was a tenth of its time. Every slice that holds strings is cleared
// before it is truncated, so nothing of the previous run stays reachable,
// and a table grown back over its array reads as new.
func (s *Suite) Reset(cfg Config) {
	s.cfg = cfg
	s.drained = false
	s.safety = reuse.Slice(s.safety)

	s.jobTable.reset()
	s.grow(1) // index 0 is unused
	s.owners = reuse.Map(s.owners)
	s.ownerList = reuse.Slice(s.ownerList)
	s.applied = reuse.Map(s.applied)
	s.wf.reset()
	s.outbox.reset()
	s.writes = reuse.Slice(s.writes)
	s.orphans = reuse.Slice(s.orphans)
	s.promises = reuse.Map(s.promises)
	s.ops.reset(cfg.Model.Redrive)
	s.buckets = reuse.Map(s.buckets)
	s.g.reset()
	s.brk.reset(cfg.Model.Breaker)
	s.loose = reuse.Map(s.loose)
	s.rows = reuse.Slice(s.rows)
	s.readyQ.items, s.orderedHead = s.readyQ.items[:0], 0
	s.texts = reuse.Map(s.texts)
	s.textSlots = [len(s.textSlots)]string{} // (a seed's texts are new)
	s.others = reuse.Map(s.others)
	s.leaked = reuse.Map(s.leaked)
	s.excerptHits = reuse.Slice(s.excerptHits)
	s.scratchChecked = reuse.Slice(s.scratchChecked)
	s.served = reuse.Resized(s.served, int(max(cfg.Clients, 0))+1)

	var src SecretSource = secretList(cfg.Secrets)
	if cfg.SecretSource != nil {
		src = cfg.SecretSource
	}
	s.secrets.reset(src)
	s.excerpts.reset(src)

	s.fv.reset()
	clear(s.keySet) // the scratch maps are made on first use
	clear(s.keySet2)
	clear(s.links)
	clear(s.redriven)
}

// Check is the pure-function form for fixtures: it feeds history to a new
// suite, then checks the final state.
func Check(cfg Config, history []model.Event, f Final, drained bool) []Violation {
	s := NewSuite(cfg)
	for i := range history {
		s.Record(&history[i])
	}
	s.Drained(drained)
	return s.Finish(f)
}

// Drained tells the suite whether the run reached quiescence (faults
// stopped and the system drained). Liveness checks apply only when it did;
// when it did not, [NothingLost] reports every job still live. Call it
// before [Suite.Finish].
func (s *Suite) Drained(ok bool) { s.drained = ok }

// Failed reports whether a safety violation was found so far.
func (s *Suite) Failed() bool { return len(s.safety) > 0 }

// Violations returns the safety violations found so far, in history order.
func (s *Suite) Violations() []Violation { return cloneViolations(s.safety) }

// cloneViolations copies vs, nil when empty: a reset suite's empty list
// keeps its array, yet must read as a fresh suite's nil one.
func cloneViolations(vs []Violation) []Violation {
	if len(vs) == 0 {
		return nil
	}
	return slices.Clone(vs)
}

// Finish runs the end-of-run checks over f and returns every violation:
// the safety ones in history order, then the final ones invariant by
// invariant in the order of [Names]. It may be called more than once.
func (s *Suite) Finish(f Final) []Violation {
	v := s.view(f)
	out := violations(cloneViolations(s.safety))
	s.finishOnce(v, &out)
	s.finishLost(v, &out)
	s.finishHygiene(v, &out)
	s.finishOperator(v, &out)
	s.finishRevived(&out)
	s.finishBreaker(&out)
	s.finishConsistency(v, &out)
	s.finishRecoverable(v, &out)
	s.finishLiveness(v, &out)
	v.f = Final{} // the scratch view must not keep the system alive
	return out
}

// Record observes one event. It keeps nothing that points into e (the
// caller reuses it) and does not allocate on the common path.
func (s *Suite) Record(e *model.Event) {
	var j *job
	if e.Kind != model.EvStatus { // a status query may name any id
		if j = s.known(e.Job); j == nil { // (known inlines: most events name a job already known)
			j = s.job(e.Job)
		}
	}
	if e.Text != "" {
		s.checkText(e)
	}
	own := j != nil && sameString(e.Key, j.key) && sameString(e.Tenant, j.tenant) // the job's own key and tenant
	// (An event with its job's own key and tenant, its tenant owning the
	// key, is fine without a call.)
	if e.Key != "" && e.Kind != model.EvStatus && !(own && j.keyOwned) {
		s.checkKey(e, j, own)
	}
	if j != nil && j.sh.failOpen {
		s.answerFailure(e, j)
	}
	s.observe(e, j)
	if j != nil && e.OK && e.Code != model.CodeNone && decidesReason(e.Kind) {
		j.sh.lastCode = e.Code
		if e.Kind == model.EvCancel || e.Kind == model.EvCancelAtLease {
			s.g.cancels = append(s.g.cancels, cancelRec{job: e.Job, seq: e.Seq})
		}
	}
	if e.Kind == model.EvRefused {
		s.refusedCall(e)
	}
	if !e.OK && e.Code == model.CodeNone && refusable(e.Kind) {
		s.disagree(e.Job, fmt.Sprintf("%v %v refused with no reason code", e.Job, e.Kind), e.Seq)
	}
	if !e.OK && e.Code == model.CodeNotFound && j != nil && j.enqueued && e.Kind != model.EvRefused {
		// (A status query is judged by its asker's tenant: status.)
		s.disagree(e.Job, fmt.Sprintf("%v %v refused as not_found, but the history has it %v", e.Job, e.Kind, j.state), j.enqSeq, e.Seq)
	}
	if !own && (j == nil || !sameString(e.Key, j.key) || !sameString(e.Tenant, j.tenant)) { // (an enqueue gives the job its key)
		s.noteStrings(e) // a key or tenant other than its job's: kept for the excerpt check
	}
	if j != nil {
		j.advance(e)
		// (requeue's own guard, without the call: it acts on the kinds
		// that make a job ready and on a job that just ended.)
		if e.OK && j.enqueued && (requeueKinds&e.Kind.Bit() != 0 || j.state.Terminal()) {
			s.requeue(e, j)
		}
	}
	s.g.prevSeq = e.Seq
	if !e.OK { // only a refusal can be the record a refused event follows
		s.g.prev = prevEvent{seq: e.Seq, kind: e.Kind, actor: e.Actor, job: e.Job, code: e.Code}
	}
}

// requeueKinds are the kinds of event requeue makes a job ready at
// (TestRequeueKindsMatchRequeue holds it to requeue's switch).
const requeueKinds = 1<<model.EvEnqueue | 1<<model.EvLease | 1<<model.EvRetry | 1<<model.EvRedrive

// observe hands the event to the checkers that look at its kind, before
// the job's lifecycle moves on (one switch: the outbox, broker and
// workflow events, most of a run's, take no second call to dispatch).
func (s *Suite) observe(e *model.Event, j *job) {
	switch e.Kind {
	case model.EvEnqueue:
		s.g.lastEnq = enqRecord{seq: e.Seq, at: e.At, job: e.Job, code: e.Code, ok: e.OK, payload: e.Payload}
		s.enqueue(e, j)
		s.enqueueDecision(e)
		s.checkKeyShape(e)
	case model.EvAccept:
		s.accept(e, j)
	case model.EvStatus:
		s.status(e)
	case model.EvLease:
		if e.Code == model.CodeBreakerOpen {
			s.breakerRefusal(e)
			return
		}
		s.takeOver(e, j)
		s.takenInOrder(e, j)
		s.lease(e, j)
	case model.EvLeaseExpired:
		s.expired(e, j)
	case model.EvCancelAtLease:
		s.breakerAtLease(e)
		s.takeOver(e, j)
		s.takenInOrder(e, j)
		s.cancelledAtLease(e, j)
	case model.EvExhausted:
		s.breakerAtLease(e)
		s.takeOver(e, j)
		s.takenInOrder(e, j)
		s.exhausted(e, j)
	case model.EvHeartbeat:
		s.heartbeat(e, j)
		s.lostLease(e, j)
		s.refusal(e, j)
	case model.EvAdvance, model.EvAck:
		s.effectInTime(e, j)
		s.checkFence(e, j)
		s.refusal(e, j)
		s.checkpointed(e, j)
		s.acked(e, j)
		if e.Kind == model.EvAck {
			s.wfAcked(e)
		}
	case model.EvRetry:
		s.checkFence(e, j)
		s.refusal(e, j)
		s.retry(e, j)
		if e.OK {
			s.retryPolicy(e, j)
		}
	case model.EvDead:
		s.checkHolder(e, j)
		s.refusal(e, j)
		s.markedDead(e, j)
	case model.EvCancel:
		s.checkHolder(e, j)
		s.refusal(e, j)
		if e.OK {
			s.cancelPolicy(e, j)
		}
	// The outbox, broker, consumer, DLQ, operator and simulation events.
	case model.EvCommit:
		s.effectInTime(e, j)
		s.commit(e)
		s.commitDecision(e, j)
		s.signRow(e)
	case model.EvDBWrite:
		s.effectInTime(e, j)
		s.dbWrite(e)
		s.wroteDirect(e, j)
	case model.EvPublish:
		s.publish(e)
		s.published(e)
		s.directPublish(e)
	case model.EvMarkPublished:
		s.marked(e)
	case model.EvPrune:
		s.pruned(e)
	case model.EvApply:
		s.delivered(e)
		s.applyOnce(e, j)
		s.skipped(e)
		s.consumed(e)
	case model.EvDLQWrite:
		s.dlqWrite(e, j)
		s.dlqPolicy(e, j)
		if j != nil {
			s.deadAgain(e, j)
		}
	case model.EvExtract:
		s.workInTime(e, j)
		s.resumed(e, j)
		s.extract(e, j)
		s.wfWorkStarted(e)
	case model.EvWorkFail:
		s.workFailed(e, j)
	case model.EvCrash:
		s.crashed(e, j)
	case model.EvPause:
		if j != nil {
			j.sh.pause = e.Seq
		}
	case model.EvRedrive:
		s.redrive(e, j)
		s.redriveWasted(e, j)
		s.revive(e, j)
	case model.EvReprocess:
		s.reprocess(e, j)
		s.reprocessed(e, j)
	case model.EvBreaker:
		s.breakerEvent(e)
	case model.EvPhase:
		s.phase(e)
	case model.EvFault:
		s.fault(e)
	case model.EvWfEffect, model.EvWfRecord, model.EvWfReplay:
		s.workflowEvent(e)
	}
}

// lease checks a lease: that it waited for the job to become visible, is
// an attempt the job may make, has a fresh fence, does not overlap a valid
// lease and that the breaker let it through; it then becomes current.
func (s *Suite) lease(e *model.Event, j *job) {
	if !e.OK {
		return
	}
	s.leaseTimely(e, j)
	s.countAttempt(e, j)
	s.leaseAttempt(e, j)
	s.grantFence(e)
	s.leaseFence(e, j)
	s.breakerLease(e)
	if j != nil {
		j.sh.resume, j.sh.resumeFence = j.sh.checkpoint, e.Fence
	}
}

// acked feeds a successful attempt to the breaker and resolves the job's
// DLQ entry, if a crash after writing it left the job to a redelivery.
func (s *Suite) acked(e *model.Event, j *job) {
	if e.Kind != model.EvAck || !e.OK {
		return
	}
	s.breakerOutcome(e, false)
	if j != nil && j.sh.dlq.seq != 0 {
		j.sh.dlqResolved = true
	}
}

// decidesReason says whether an accepted event of kind k sets its job's
// failure reason to its code: the queue's decisions after a failure, and
// its cancels and dead letters at a lease.
func decidesReason(k model.EventKind) bool {
	switch k {
	case model.EvRetry, model.EvDead, model.EvCancel, model.EvCancelAtLease, model.EvExhausted:
		return true
	}
	return false
}

// refusable says whether events of kind k are calls the system answers:
// accepted (OK) or refused with a reason code, never neither.
func refusable(k model.EventKind) bool {
	switch k {
	case model.EvEnqueue, model.EvHeartbeat, model.EvAdvance, model.EvAck, model.EvRetry, model.EvDead,
		model.EvCommit, model.EvRedrive, model.EvReprocess, model.EvAccept, model.EvStatus, model.EvLease:
		return true
	}
	return false
}

// report records a safety violation.
func (s *Suite) report(inv string, job model.JobID, msg string, seqs ...uint64) {
	s.safety.add(inv, job, msg, seqs...)
}

// sameString is a == b, without a call when both are the very same string
// (a job's events carry the key and tenant its enqueue gave it).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}
