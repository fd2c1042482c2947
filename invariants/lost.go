package invariants

import (
	"fmt"
	"slices"

	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/model"
)

// Nothing lost, checked once the run drained: every accepted job was
// enqueued and ends succeeded, dead or cancelled; every committed outbox
// row was published; nothing was published that was never committed (or,
// in the dual-write variant, written); every dual write was published;
// every published event reached the consumer. A run that did not drain
// instead reports each job still live.

// outboxEvent is what the history says about one outbox event id.
type outboxEvent struct {
	commit, publish, apply uint64 // the first commit, publish and apply (or duplicate skip)
	mark, applied          uint64 // the first mark published and the first apply that applied
	job                    model.JobID
	key                    string
	stage                  model.Stage
}

// dbWrite is a stage result written (or published) with no outbox row.
type dbWrite struct {
	seq   uint64
	job   model.JobID
	key   string
	stage model.Stage
}

// outboxTable is what the history says about each outbox event id. An
// event committed, published and applied can no longer be reported by any
// check, and later events naming it change nothing (each field keeps its
// first value), so it is retired: the table keeps only the events from the
// oldest one not yet complete, and memory follows the events in flight, not
// the length of the run. The one use of a retired event is lostWrites'
// "was (key, stage) published": its stage goes into the published bits of
// its job when it carries the job's key, else into retired.
type outboxTable struct {
	live    []outboxEvent // events base, base+1, ... up to end-1
	base    model.EventID // events from 1 up to base-1 are retired
	end     model.EventID // ids below end have been named (0: none yet)
	retired []stageKey    // retired events not under their job's key
	mem     []outboxEvent // live's whole array: retirement slices live past its start
}

// reset empties the table, keeping its array. Retired entries were zeroed
// as they left; the live ones are zeroed here, so the array reads as new.
func (t *outboxTable) reset() {
	clear(t.live)
	t.live = t.mem[:0]
	t.base, t.end = 0, 0
	t.retired = reuse.Slice(t.retired)
}

// complete reports whether nothing can happen to the event any more.
func (o *outboxEvent) complete() bool {
	return o.commit != 0 && o.publish != 0 && o.mark != 0 && o.applied != 0 && o.key != ""
}

// event returns the entry of an outbox event id, growing the table; nil for
// id 0, a bogus id or a retired event (retired is then true).
func (s *Suite) event(id model.EventID) (o *outboxEvent, retired bool) {
	t := &s.outbox
	if id <= 0 || id > t.end+maxJump {
		return nil, false
	}
	if t.base == 0 {
		t.base = 1
	}
	if id < t.base {
		return nil, true
	}
	if id >= t.end {
		n := int(id + 1 - t.base)
		if n > cap(t.live) {
			t.live = slices.Grow(t.live, n-len(t.live))
			t.mem = t.live[:0]
		}
		t.live = t.live[:n]
		t.end = id + 1
	}
	return &t.live[id-t.base], false
}

// note fills the event's identity from the first event that names it.
func (o *outboxEvent) note(e *model.Event) {
	if o.key == "" {
		o.job, o.key, o.stage = e.Job, e.Key, e.Stage
	}
}

// retire drops the complete events at the start of the table.
func (s *Suite) retire() {
	t := &s.outbox
	for len(t.live) > 0 && t.live[0].complete() {
		o := &t.live[0]
		if j := s.known(o.job); j != nil && j.enqueued && j.key == o.key && o.stage < model.StageDone {
			j.published |= 1 << o.stage
		} else {
			t.retired = append(t.retired, stageKey{o.key, o.stage})
		}
		t.live[0] = outboxEvent{} // the key string must not be kept alive
		t.live = t.live[1:]
		t.base++
	}
}

func (s *Suite) accept(e *model.Event, j *job) {
	s.noteServed(e)
	s.backedAnswer(e, j)
	if !e.OK || j == nil {
		return
	}
	if j.accepted == 0 {
		j.accepted = e.Seq
	}
	s.acceptTenant(e, j)
	if e.Key == "" || s.hasPromise(e.Job, j) {
		return
	}
	if j.enqueued {
		s.keepPromise(j, promise{key: e.Key, seq: e.Seq})
	} else {
		s.promises[e.Job] = promise{key: e.Key, seq: e.Seq}
	}
}

// backedAnswer checks what a client was told against the queue's own
// record of the request, made just before at the same time: a job id (new
// or deduplicated) against an enqueue of that job, a conflict against a
// refused enqueue. A client told something the queue never recorded means
// the record, or the answer, is wrong. (A job id given before its job was
// enqueued at all is nothing-lost's promise to check.)
func (s *Suite) backedAnswer(e *model.Event, j *job) {
	if e.Actor.Role != model.RoleClient {
		return
	}
	r := s.g.lastEnq
	switch {
	case e.OK && e.Job != 0 && j != nil && j.enqueued:
		if r.seq == 0 || r.at != e.At || r.job != e.Job || !r.ok && r.code != model.CodeDeduped {
			s.disagree(e.Job, fmt.Sprintf("%v was given to %v at %s with no enqueue of it recorded then", e.Job, e.Actor, millis(e.At)), r.seq, e.Seq)
		}
	case e.Code == model.CodeIdempotencyConflict:
		if r.seq == 0 || r.at != e.At || r.code != model.CodeIdempotencyConflict || e.Payload != 0 && r.payload != e.Payload {
			s.disagree(0, fmt.Sprintf("%v was refused a conflict at %s with no conflicting enqueue recorded then", e.Actor, millis(e.At)), r.seq, e.Seq)
		}
	}
}

// served is what one client was told: its first job id, and its last
// refusal before that.
type served struct{ accepted, refused uint64 }

// noteServed records a client's answer (see [Config.Clients]).
func (s *Suite) noteServed(e *model.Event) {
	id := int(e.Actor.ID)
	if e.Actor.Role != model.RoleClient || id < 1 || id >= len(s.served) || s.served[id].accepted != 0 {
		return
	}
	if e.OK && e.Job != 0 {
		s.served[id].accepted = e.Seq
	} else if !e.OK {
		s.served[id].refused = e.Seq
	}
}

// unserved reports every client of a drained run never told a job id:
// its document was lost at the door, whether every request was refused
// (a well-formed request refused as malformed, say) or none was answered.
func (s *Suite) unserved(out *violations) {
	for id := 1; id < len(s.served); id++ {
		c := s.served[id]
		if c.accepted != 0 {
			continue
		}
		if c.refused != 0 {
			out.add(NothingLost, 0, fmt.Sprintf("client%d was never given a job id: its requests were refused", id), c.refused)
		} else {
			out.add(NothingLost, 0, fmt.Sprintf("client%d was never given a job id: no request of its was answered", id))
		}
	}
}

// promise is the key of the document a client submitted, as the accept
// that gave it a job id names it.
type promise struct {
	key string
	seq uint64
}

// A job's promise is the key of its first accept that names one. Until the
// job is enqueued it waits in s.promises; once it is enqueued it is checked
// (keepPromise), and from then on its key is the job's own (it matched, or
// the mismatch was reported and the promise set to the job's key), so the
// job keeps just a flag.

// hasPromise reports whether job id (entry j) holds a promise.
func (s *Suite) hasPromise(id model.JobID, j *job) bool {
	if j.enqueued {
		return j.promised && j.key != "" // an empty key is no promise
	}
	_, ok := s.promises[id]
	return ok
}

// keepPromise checks that the job a client was given is its own document:
// an id handed out before the enqueue (reply-before-enqueue) may end up
// naming another document's job, and the client's own was never enqueued.
// j is enqueued; p is its promise.
func (s *Suite) keepPromise(j *job, p promise) {
	if p.key != j.key {
		s.report(NothingLost, 0, fmt.Sprintf("the client of %s was given an id that now names the job of %s: its own job was never enqueued",
			p.key, j.key), p.seq, j.enqSeq)
	}
	j.promised = true
}

// keepPending checks, at its enqueue, the promise a job got before it.
func (s *Suite) keepPending(id model.JobID, j *job) {
	if p, ok := s.promises[id]; ok {
		delete(s.promises, id)
		s.keepPromise(j, p)
	}
}

func (s *Suite) commit(e *model.Event) {
	if o, _ := s.event(e.EventID); o != nil && e.OK {
		o.note(e)
		o.commit = first(o.commit, e.Seq)
		s.retire()
	}
}

func (s *Suite) dbWrite(e *model.Event) {
	if e.OK {
		s.writes = append(s.writes, dbWrite{seq: e.Seq, job: e.Job, key: e.Key, stage: e.Stage})
	}
}

func (s *Suite) publish(e *model.Event) {
	o, retired := s.event(e.EventID)
	switch {
	case retired:
	case o == nil:
		s.orphans = append(s.orphans, dbWrite{seq: e.Seq, job: e.Job, key: e.Key, stage: e.Stage})
	default:
		o.note(e)
		o.publish = first(o.publish, e.Seq)
		s.retire()
	}
}

// consumed records that the consumer saw an event (applied or skipped it
// as a duplicate of an earlier apply).
func (s *Suite) consumed(e *model.Event) {
	if o, _ := s.event(e.EventID); o != nil && (e.OK || e.Code == model.CodeDuplicateEvent) {
		o.note(e)
		o.apply = first(o.apply, e.Seq)
		if e.OK {
			o.applied = first(o.applied, e.Seq)
		}
		s.retire()
	}
}

func first(old, seq uint64) uint64 {
	if old != 0 {
		return old
	}
	return seq
}

// finishLost runs the nothing-lost checks over the final state of a
// drained run (one that did not drain fails liveness instead).
func (s *Suite) finishLost(v *finalView, out *violations) {
	if !s.drained {
		return
	}
	s.unfinished(v, out)
	s.lostAccepts(out)
	s.unserved(out)
	s.unpublished(v, out)
	s.phantoms(v, out)
	s.lostWrites(out)
	s.unapplied(out)
}

// unfinished reports every job of a drained run that the history or the
// final state leaves not terminal.
func (s *Suite) unfinished(v *finalView, out *violations) {
	for id := model.JobID(1); int(id) < len(v.state); id++ {
		if !v.known[id] {
			continue
		}
		hist, fin := v.state[id], v.final[id]
		if hist.Terminal() && fin.Terminal() {
			continue
		}
		enq, last := s.seqs(id)
		if hist == fin {
			out.add(NothingLost, id, fmt.Sprintf("%v ended %v, not succeeded, dead or cancelled", id, hist), enq, last)
		} else {
			out.add(NothingLost, id, fmt.Sprintf("%v ended %v by the history, %v in the final state: not succeeded, dead or cancelled", id, hist, fin), enq, last)
		}
	}
}

// seqs returns a job's enqueue and last event.
func (s *Suite) seqs(id model.JobID) (enq, last uint64) {
	if j := s.known(id); j != nil {
		return j.enqSeq, j.lastSeq
	}
	return 0, 0
}

// lostAccepts reports job ids returned to a client but never enqueued.
func (s *Suite) lostAccepts(out *violations) {
	for id := range s.njobs {
		if j := s.at(id); j.accepted != 0 && !j.enqueued {
			out.add(NothingLost, model.JobID(id), fmt.Sprintf("%v returned to the client but never enqueued", model.JobID(id)), j.accepted)
		}
	}
}

// unpublished reports outbox rows never published (each row judged by
// unpublishedRow in the one read of the rows, readRows).
func (s *Suite) unpublished(v *finalView, out *violations) {
	*out = append(*out, s.readRows(v).unpublished...)
}

// unpublishedRow reports r if it was never published.
func (s *Suite) unpublishedRow(r *model.OutboxRow, out *violations) {
	t := &s.outbox
	var o outboxEvent
	switch {
	case r.EventID > 0 && r.EventID < t.base:
		return // retired: it was published
	case r.EventID > 0 && r.EventID < t.end:
		o = t.live[r.EventID-t.base]
	}
	if o.publish == 0 {
		out.add(NothingLost, r.Job, fmt.Sprintf("%v (%v key %s stage=%v) committed but never published",
			r.EventID, r.Job, r.Key, r.Stage), o.commit)
	}
}

// phantoms reports events published with no outbox row and no dual write
// behind them.
func (s *Suite) phantoms(v *finalView, out *violations) {
	written := s.written()
	for i := range s.outbox.live { // a retired event was committed
		o, id := &s.outbox.live[i], s.outbox.base+model.EventID(i)
		if o.publish == 0 || o.commit != 0 || v.row(id) || written[stageKey{o.key, o.stage}] {
			continue
		}
		out.add(NothingLost, o.job, fmt.Sprintf("%v published for %v stage=%v, but no outbox row was committed",
			id, o.job, o.stage), o.publish)
	}
	for _, p := range s.orphans {
		if !written[stageKey{p.key, p.stage}] {
			out.add(NothingLost, p.job, fmt.Sprintf("%v stage=%v published with no event id and nothing committed", p.job, p.stage), p.seq)
		}
	}
}

// written is the set of (key, stage) with a dual write.
func (s *Suite) written() map[stageKey]bool {
	s.keySet = reuse.Map(s.keySet)
	m := s.keySet
	for _, w := range s.writes {
		m[stageKey{w.key, w.stage}] = true
	}
	return m
}

// lostWrites reports dual writes whose event never reached the broker.
func (s *Suite) lostWrites(out *violations) {
	if len(s.writes) == 0 {
		return
	}
	s.keySet2 = reuse.Map(s.keySet2)
	published := s.keySet2
	for i := range s.outbox.live {
		if o := &s.outbox.live[i]; o.publish != 0 {
			published[stageKey{o.key, o.stage}] = true
		}
	}
	for id := range s.njobs {
		if j := s.at(id); j.published != 0 {
			for st := range model.StageDone {
				if j.published&(1<<st) != 0 {
					published[stageKey{j.key, st}] = true
				}
			}
		}
	}
	for _, k := range s.outbox.retired {
		published[k] = true
	}
	for _, p := range s.orphans {
		published[stageKey{p.key, p.stage}] = true
	}
	for _, w := range s.writes {
		if k := (stageKey{w.key, w.stage}); !published[k] {
			published[k] = true // one report per lost event, however often it was written
			out.add(NothingLost, w.job, fmt.Sprintf("%v stage=%v written to the database under key %s but its event was never published",
				w.job, w.stage, w.key), w.seq)
		}
	}
}

// unapplied reports published events the consumer never saw.
func (s *Suite) unapplied(out *violations) {
	for i := range s.outbox.live { // a retired event was applied
		if o := &s.outbox.live[i]; o.publish != 0 && o.apply == 0 {
			out.add(NothingLost, o.job, fmt.Sprintf("%v (%v stage=%v) published but never applied", s.outbox.base+model.EventID(i), o.job, o.stage), o.publish)
		}
	}
}
