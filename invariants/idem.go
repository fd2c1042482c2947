package invariants

import (
	"fmt"
	"math/bits"

	"github.com/durasim/durasim/model"
)

// Idempotency decisions, recomputed from the payload hashes the requests
// carried: under one key, the same payload is deduplicated into what exists
// (the same job, the same event) and a different payload is refused as a
// conflict — never silently reused, never a second job or event.

// keyRecord is what the history says about one key: the job enqueued under
// it, its payload, and each stage's committed event.
type keyRecord struct {
	job        model.JobID
	payload    uint64
	enqSeq     uint64
	committed  [model.StageDone]model.EventID
	commitHash [model.StageDone]uint64
	commitSeq  [model.StageDone]uint64
	written    uint8 // a bit per stage written with no outbox row (dual write)
}

// keyRec returns the record of key: kept with its owner when the key has
// one, else in s.loose.
func (s *Suite) keyRec(key string, j *job) *keyRecord {
	if o := s.ownerOf(key, j); o != nil {
		return &o.rec
	}
	r, ok := s.loose[key]
	if !ok {
		r = &keyRecord{}
		s.loose[key] = r
	}
	return r
}

// enqueueDecision checks an enqueue under a key that already holds a job.
func (s *Suite) enqueueDecision(e *model.Event) {
	if e.Key == "" {
		return
	}
	var j *job
	if e.OK {
		j = s.known(e.Job)
	}
	r := s.keyRec(e.Key, j)
	if r.job == 0 {
		if e.OK {
			r.job, r.payload, r.enqSeq = e.Job, e.Payload, e.Seq
		}
		return
	}
	switch {
	case e.OK && e.Job != r.job:
		s.report(ExactlyOnce, e.Job, fmt.Sprintf("%v enqueued under key %s, which %v already holds: a second job for one operation",
			e.Job, e.Key, r.job), r.enqSeq, e.Seq)
	case e.Code == model.CodeDeduped && (e.Job != r.job || e.Payload != r.payload):
		s.report(ExactlyOnce, r.job, fmt.Sprintf("a request under key %s with payload %016x was deduplicated into %v, enqueued with payload %016x",
			e.Key, e.Payload, e.Job, r.payload), r.enqSeq, e.Seq)
	case e.Code == model.CodeIdempotencyConflict && e.Payload == r.payload:
		s.report(NothingLost, r.job, fmt.Sprintf("a request under key %s was refused as a conflict, but its payload is the one %v was enqueued with",
			e.Key, r.job), r.enqSeq, e.Seq)
	}
}

// commitDecision checks a commit against the earlier ones of its (key,
// stage).
func (s *Suite) commitDecision(e *model.Event, j *job) {
	if !e.HasStage || e.Stage >= model.StageDone || e.Key == "" {
		return
	}
	r, st := s.keyRec(e.Key, j), e.Stage
	first := r.committed[st]
	switch {
	case first == 0 && e.OK && e.Code == model.CodeNone:
		r.committed[st], r.commitHash[st], r.commitSeq[st] = e.EventID, e.Payload, e.Seq
	case first == 0:
		s.disagree(e.Job, fmt.Sprintf("%v stage=%v commit answered %v under key %s, where nothing was committed", e.Job, st, e.Code, e.Key), e.Seq)
	case e.OK && e.Code == model.CodeNone:
		s.report(ExactlyOnce, e.Job, fmt.Sprintf("%v stage=%v committed twice under key %s (%v, then %v): the second commit must deduplicate",
			e.Job, st, e.Key, first, e.EventID), r.commitSeq[st], e.Seq)
	case e.Code == model.CodeDeduped && !e.OK:
		s.disagree(e.Job, fmt.Sprintf("%v stage=%v commit deduplicated into %v but recorded as refused: the worker is told the committed result", e.Job, st, first),
			r.commitSeq[st], e.Seq)
	case e.Code == model.CodeDeduped && (e.EventID != first || e.Payload != r.commitHash[st]):
		s.report(ExactlyOnce, e.Job, fmt.Sprintf("%v stage=%v commit with payload %016x deduplicated into %v of payload %016x, answered %v",
			e.Job, st, e.Payload, first, r.commitHash[st], e.EventID), r.commitSeq[st], e.Seq)
	case e.Code == model.CodeIdempotencyConflict && e.Payload == r.commitHash[st]:
		s.report(NothingLost, e.Job, fmt.Sprintf("%v stage=%v commit refused as a conflict, but its payload is the committed one", e.Job, st),
			r.commitSeq[st], e.Seq)
	}
}

// wroteDirect records a dual write: a result with no outbox row.
func (s *Suite) wroteDirect(e *model.Event, j *job) {
	if e.OK && e.HasStage && e.Stage < model.StageDone && e.Key != "" {
		s.keyRec(e.Key, j).written |= 1 << e.Stage
	}
}

// wasCommitted reports whether (key, stage) has a result: committed
// through the outbox or written directly.
func (s *Suite) wasCommitted(o *owner, key string, st model.Stage) bool {
	var r *keyRecord
	if o != nil {
		r = &o.rec
	} else if r = s.loose[key]; r == nil {
		return false
	}
	return r.committed[st] != 0 || r.written&(1<<st) != 0
}

// published checks a broker publish: message ids are handed out in order,
// and the event is the committed row's (its job, key and stage).
func (s *Suite) published(e *model.Event) {
	if !e.OK {
		s.disagree(e.Job, fmt.Sprintf("%v publish reported as failed, yet the relay went on", e.EventID), e.Seq)
	}
	s.sameRow(e)
	want := int64(len(s.g.msgs) + 1)
	if e.N != want {
		s.disagree(e.Job, fmt.Sprintf("%v published as message %d, the history counts %d", e.EventID, e.N, want), e.Seq)
	}
	s.g.msgs = append(s.g.msgs, msgRec{event: e.EventID, seq: e.Seq})
}

// delivered checks what the consumer says it got: the event its message
// carries and the delivery's number.
func (s *Suite) delivered(e *model.Event) {
	i := e.N2 - 1
	if i < 0 || i >= int64(len(s.g.msgs)) {
		s.disagree(e.Job, fmt.Sprintf("%v applied from message %d, which was never published", e.EventID, e.N2), e.Seq)
		return
	}
	s.sameRow(e)
	m := &s.g.msgs[i]
	m.deliveries++
	if m.event != e.EventID {
		s.disagree(e.Job, fmt.Sprintf("message %d carried %v, the consumer applied %v", e.N2, m.event, e.EventID), m.seq, e.Seq)
	}
	if e.N != int64(m.deliveries) {
		s.disagree(e.Job, fmt.Sprintf("%v delivery %d of message %d, the history counts %d", e.EventID, e.N, e.N2, m.deliveries), m.seq, e.Seq)
	}
}

// sameRow checks that an event naming an outbox event id names the row
// its commit wrote: the same job, key and stage.
func (s *Suite) sameRow(e *model.Event) {
	r := s.rowAt(e.EventID)
	if r.sig == 0 || r.sig == s.sig(e) {
		return
	}
	s.disagree(e.Job, fmt.Sprintf("%v %v names %v %s stage=%v, not the row its commit wrote", e.EventID, e.Kind, e.Job, e.Key, e.Stage), r.sigSeq, e.Seq)
}

// skipped checks a delivery the consumer skipped as a duplicate: the
// event was applied before.
func (s *Suite) skipped(e *model.Event) {
	if e.OK || e.Code != model.CodeDuplicateEvent {
		return
	}
	o, retired := s.event(e.EventID)
	if retired || o != nil && o.applied != 0 {
		return
	}
	s.report(NothingLost, e.Job, fmt.Sprintf("%v (%v stage=%v) skipped as a duplicate, but it was never applied", e.EventID, e.Job, e.Stage), e.Seq)
}

// rowRec is what the history says about one outbox row, kept for every
// event id (the per-event table retires complete events): who it belongs
// to, as a signature of its key, stage and job, when the relay marked it,
// and its prune.
type rowRec struct {
	sig      uint64     // keySig of its first commit (or direct publish); 0: none
	sigSeq   uint64     // that commit or publish
	markedAt model.Time // +1: a mark at time 0 still reads as marked; 0: never marked
	markSeq  uint64
	pruneSeq uint64
	overdue  bool // reported kept past its retention
}

// row returns the record of event id, growing the table; nil for a bogus id.
func (s *Suite) row(id model.EventID) *rowRec {
	if id <= 0 || int(id) > len(s.rows)+maxJump {
		return nil
	}
	if int(id) >= len(s.rows) {
		s.rows = growRows(s.rows, int(id)+1)
	}
	return &s.rows[id]
}

// rowAt returns the record of event id if the table has one, a zero
// record if not; to read, not to write.
func (s *Suite) rowAt(id model.EventID) *rowRec {
	if id > 0 && int(id) < len(s.rows) {
		return &s.rows[id]
	}
	return &s.noRow
}

// keyHash hashes a key eight bytes at a time, then its last bytes and its
// length.
func keyHash(key string) uint64 {
	h := uint64(14695981039346656037)
	for ; len(key) >= 8; key = key[8:] {
		w := uint64(key[0]) | uint64(key[1])<<8 | uint64(key[2])<<16 | uint64(key[3])<<24 |
			uint64(key[4])<<32 | uint64(key[5])<<40 | uint64(key[6])<<48 | uint64(key[7])<<56
		h = bits.RotateLeft64(h^w, 29) * 0x9e3779b97f4a7c15
	}
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * 1099511628211
	}
	return bits.RotateLeft64(h^uint64(len(key)), 29) * 0x9e3779b97f4a7c15
}

func sigOf(keyHash uint64, st model.Stage, job model.JobID) uint64 {
	h := (keyHash ^ uint64(st)) * 1099511628211
	return (h^uint64(job))*1099511628211 | 1 // never 0
}

// sig is keySig of an event's key, stage and job, the key's hash kept
// from the last call: a job's commit, publish, mark and apply come close
// together and name the same key.
func (s *Suite) sig(e *model.Event) uint64 { return s.keySig(e.Key, e.Stage, e.Job) }

// keySig folds a row's key, stage and job into one word, sigOf(keyHash(key),
// st, job): a row read back under another key, stage or job has another
// signature. A job's own key was hashed at its enqueue; another key's hash
// is kept from the last call (the effects read back come a job's stages at
// a time, under one key).
func (s *Suite) keySig(key string, st model.Stage, job model.JobID) uint64 {
	if j := s.known(job); j != nil && j.enqueued && sameString(key, j.key) {
		return sigOf(j.keyHash, st, job) // its job's own key, hashed at its enqueue
	}
	if key != s.lastKey {
		s.lastKey, s.lastKeyHash = key, keyHash(key)
	}
	return sigOf(s.lastKeyHash, st, job)
}

// signRow records the identity of a committed or directly published row.
func (s *Suite) signRow(e *model.Event) {
	if r := s.row(e.EventID); r != nil && r.sig == 0 && e.OK {
		r.sig, r.sigSeq = s.sig(e), e.Seq
	}
}

// directPublish records a row born published (a dual write's): the
// publish is its mark.
func (s *Suite) directPublish(e *model.Event) {
	o, retired := s.event(e.EventID)
	if retired || o == nil || o.commit != 0 {
		return
	}
	if r := s.row(e.EventID); r != nil && r.markedAt == 0 {
		s.signRow(e)
		r.markedAt, r.markSeq = e.At+1, e.Seq
	}
}

// marked checks a relay's mark: the row's event was published first.
func (s *Suite) marked(e *model.Event) {
	if !e.OK || e.EventID <= 0 {
		return
	}
	if r := s.row(e.EventID); r != nil && r.markedAt == 0 {
		r.markedAt, r.markSeq = e.At+1, e.Seq
	}
	s.sameRow(e)
	o, retired := s.event(e.EventID)
	if retired || o != nil && o.publish != 0 {
		if o != nil {
			o.mark = first(o.mark, e.Seq)
			s.retire()
		}
		return
	}
	s.report(NothingLost, e.Job, fmt.Sprintf("%v (%v stage=%v) marked published before it was published", e.EventID, e.Job, e.Stage), e.Seq)
	if o != nil {
		o.mark = first(o.mark, e.Seq)
	}
}

// pruned checks the outbox retention: only a row marked published at least
// the retention ago is pruned.
func (s *Suite) pruned(e *model.Event) {
	if !e.OK {
		return
	}
	if e.EventID == 0 {
		s.prunePassDone(e)
		return
	}
	r := s.row(e.EventID)
	if r == nil {
		return
	}
	if p := &s.g.pass; p.rows == 0 || p.at != e.At || p.actor != e.Actor {
		*p = prunePass{at: e.At, actor: e.Actor, first: e.Seq, kept: p.kept}
	}
	s.g.pass.rows++
	if r.pruneSeq != 0 {
		s.report(NothingLost, e.Job, fmt.Sprintf("%v pruned from the outbox twice", e.EventID), r.pruneSeq, e.Seq)
		return
	}
	r.pruneSeq = e.Seq
	switch at := r.markedAt; {
	case at == 0:
		s.report(NothingLost, e.Job, fmt.Sprintf("%v pruned from the outbox before it was marked published", e.EventID), e.Seq)
	case s.cfg.Model.Retention > 0 && e.At-(at-1) < s.cfg.Model.Retention:
		s.report(NothingLost, e.Job, fmt.Sprintf("%v pruned %s after it was marked published, before the retention of %s",
			e.EventID, millis(e.At-(at-1)), millis(s.cfg.Model.Retention)), r.markSeq, e.Seq)
	}
}

// prunePassDone checks a relay's record of a prune pass (a prune event
// with no event id, N the rows the outbox said it pruned): the rows the
// history saw it prune just before, at the same time, number N; and every
// row marked published at least the retention before the pass is gone.
func (s *Suite) prunePassDone(e *model.Event) {
	p := &s.g.pass
	var n int64
	var first uint64
	if p.rows > 0 && p.at == e.At && p.actor == e.Actor {
		n, first = p.rows, p.first
	}
	if e.N != n {
		s.disagree(0, fmt.Sprintf("prune pass by %v at %s says it pruned %d rows, the history shows %d", e.Actor, millis(e.At), e.N, n), first, e.Seq)
	}
	*p = prunePass{kept: p.kept}
	if ret := s.cfg.Model.Retention; ret > 0 {
		s.keptPastRetention(e, ret)
	}
}

// keptPastRetention reports the rows a prune pass kept though they were
// marked published at least the retention before it.
func (s *Suite) keptPastRetention(e *model.Event, ret model.Time) {
	p := &s.g.pass
	for p.kept = max(p.kept, 1); p.kept < len(s.rows) && s.rows[p.kept].pruneSeq != 0; p.kept++ {
	}
	for id := p.kept; id < len(s.rows); id++ {
		r := &s.rows[id]
		if r.pruneSeq == 0 && !r.overdue && r.markedAt != 0 && e.At-(r.markedAt-1) >= ret {
			s.report(NothingLost, 0, fmt.Sprintf("e%d marked published %s before the prune pass by %v at %s, past the retention of %s, yet kept",
				id, millis(e.At-(r.markedAt-1)), e.Actor, millis(e.At), millis(ret)), r.markSeq, e.Seq)
			r.overdue = true
		}
	}
}

func growRows(b []rowRec, n int) []rowRec {
	if n <= cap(b) {
		return b[:n] // past len the array is zero (see Reset)
	}
	nb := make([]rowRec, n, max(n, 2*cap(b), 64))
	copy(nb, b)
	return nb
}
