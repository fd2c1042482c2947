package invariants

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// Consistency: what the system reports and what it stores agree with the
// history. During the run, every number an event carries that the system
// computed (attempt, fence, delay bound, lease span, deadline, message id,
// delivery, DLQ counts) is recomputed by the oracle. At the end, the final
// durable state is read back — every job, outbox row, broker message,
// effect, DLQ entry and audit entry — and compared field by field with the
// oracle's own account. A bookkeeping bug that the system's own checks read
// and trust shows here, as a disagreement naming the events.

// finishConsistency reads the final state back and compares it with the
// history.
func (s *Suite) finishConsistency(v *finalView, out *violations) {
	v.f.eachJob(func(mj *model.Job) { s.agreeJob(v, mj, out) })
	if v.f.Full {
		s.agreeRows(v, out)
		s.agreeEffects(v, out)
	}
	if v.f.EffectsInOrder {
		s.agreeEffectOrder(v, out)
	}
	if v.f.messagesKnown() {
		s.agreeMessages(v, out)
	}
	s.agreeUnknownIDs(v, out)
	s.agreeResults(v, out)
	s.agreeFence(v, out)
	s.agreeDLQ(v, out)
	s.agreeAudit(v, out)
	s.agreeCancelled(v, out)
	s.agreeQuarantined(v, out)
	s.unansweredFailures(out)
}

// agreeResults reads back the results table: every (key,
// stage) the history committed, and nothing else, under the event id and
// payload hash of its first commit, for the job and tenant of that
// commit's row. (A dual write's result, written with no commit event, is
// checked only to exist in the history.)
func (s *Suite) agreeResults(v *finalView, out *violations) {
	if v.f.Results == nil {
		return
	}
	n := 0
	for i := range v.f.Results {
		r := &v.f.Results[i] // (not a copy of each result)
		var rec *keyRecord
		if o := s.ownerOf(r.Key, s.known(r.Job)); o != nil { // (by its job's key when it is that)
			rec = &o.rec
		} else {
			rec = s.loose[r.Key]
		}
		if rec == nil || r.Stage >= model.StageDone || rec.committed[r.Stage] == 0 && rec.written&(1<<r.Stage) == 0 {
			out.add(Consistency, r.Job, fmt.Sprintf("the results table holds %s stage=%v as %v, which the history never committed", r.Key, r.Stage, r.EventID))
			continue
		}
		first := rec.committed[r.Stage]
		if first == 0 {
			continue // a dual write
		}
		n++
		if r.EventID != first || r.PayloadHash != rec.commitHash[r.Stage] {
			out.add(Consistency, r.Job, fmt.Sprintf("%s stage=%v reads back as %v with payload %016x; the history committed %v with payload %016x",
				r.Key, r.Stage, r.EventID, r.PayloadHash, first, rec.commitHash[r.Stage]), rec.commitSeq[r.Stage])
		}
		if h := s.rowAt(r.EventID); h.sig != 0 && h.sig != s.keySig(r.Key, r.Stage, r.Job) {
			out.add(Consistency, r.Job, fmt.Sprintf("the result of %s stage=%v names %v; its commit wrote another job's row", r.Key, r.Stage, r.Job), h.sigSeq)
		}
		if j := s.known(r.Job); j != nil && j.enqueued && r.Tenant != j.tenant {
			out.add(Consistency, r.Job, fmt.Sprintf("the result of %s stage=%v belongs to tenant %q, %v to %q", r.Key, r.Stage, r.Tenant, r.Job, j.tenant), j.enqSeq)
		}
	}
	if want := s.commitsSeen(); n != want {
		out.add(Consistency, 0, fmt.Sprintf("the results table reads back %d committed results; the history committed %d", n, want))
	}
}

// commitsSeen counts the (key, stage) pairs the history committed.
func (s *Suite) commitsSeen() int {
	n := 0
	count := func(r *keyRecord) {
		for _, ev := range r.committed {
			if ev != 0 {
				n++
			}
		}
	}
	for i := range s.ownerList {
		count(&s.ownerList[i].rec)
	}
	//det:sorted (a count: the order cannot matter)
	for _, r := range s.loose {
		count(r)
	}
	return n
}

// agreeFence reads back the fencing counter: the last fence the history
// saw granted (a counter that moved without a lease, or went back, is the
// next lease's stale fence or a duplicate one).
func (s *Suite) agreeFence(v *finalView, out *violations) {
	if !v.f.FenceRead {
		return
	}
	if got := v.f.LastFence; got != s.g.fence {
		out.add(Consistency, 0, fmt.Sprintf("the fencing counter reads back %d; the last lease the history saw took fence %d", got, s.g.fence), s.g.fenceSeq)
	}
}

// agreeUnknownIDs asks the system, read in place, for ids the history
// never issued (zero, and the one after the last of each kind): a job, a
// row or a message it answers for is one it made up.
func (s *Suite) agreeUnknownIDs(v *finalView, out *violations) {
	sys := v.f.sys
	if sys == nil {
		return
	}
	for _, id := range [2]model.JobID{0, model.JobID(max(s.njobs, 1))} {
		if _, ok := sys.Job(id); ok {
			out.add(Consistency, id, fmt.Sprintf("the queue answers for %v, a job the history never enqueued", id))
		}
	}
	for _, id := range [2]model.EventID{0, max(s.outbox.end, s.outbox.base)} {
		if _, ok := sys.Row(id); ok {
			out.add(Consistency, 0, fmt.Sprintf("the outbox answers for %v, an event the history never committed", id))
		}
	}
	for _, id := range [2]int64{0, int64(len(s.g.msgs)) + 1} {
		if _, ok := sys.Message(id); ok {
			out.add(Consistency, 0, fmt.Sprintf("the broker answers for message %d, which the history never published", id))
		}
	}
}

// agreeCancelled compares the queue's list of cancelled jobs with the
// cancels the history records, one by one and in order.
func (s *Suite) agreeCancelled(v *finalView, out *violations) {
	if v.f.Cancelled == nil {
		return
	}
	got, want := v.f.Cancelled, s.g.cancels
	switch i, d := firstDiff(len(got), len(want), func(i int) bool { return got[i] == want[i].job }); d {
	case listMissing:
		out.add(Consistency, want[i].job, fmt.Sprintf("the queue lists %d cancelled jobs; the history cancels %v too", len(got), want[i].job), want[i].seq)
	case listExtra:
		out.add(Consistency, got[i], fmt.Sprintf("the queue lists %v as cancelled job %d; the history cancels only %d jobs", got[i], i+1, len(want)))
	case listOther:
		out.add(Consistency, got[i], fmt.Sprintf("the queue lists %v as cancelled job %d; the history's is %v", got[i], i+1, want[i].job), want[i].seq)
	}
}

// listDiff says how two lists compared position by position first
// disagree: one says it, the rest of the list is shifted.
type listDiff uint8

const (
	listsAgree  listDiff = iota
	listMissing          // the list read back ends where the history's goes on
	listExtra            // the list read back goes on where the history's ends
	listOther            // another item at this position
)

// firstDiff compares a list read back (got items) with the history's (want
// items), same telling whether item i of each agree: the first position
// where they do not, and how (listsAgree and the common length if none).
func firstDiff(got, want int, same func(i int) bool) (int, listDiff) {
	for i := range max(got, want) {
		switch {
		case i >= got:
			return i, listMissing
		case i >= want:
			return i, listExtra
		case !same(i):
			return i, listOther
		}
	}
	return got, listsAgree
}

// agreeQuarantined compares the queue's list of the entries awaiting a
// decision with the history's: the jobs dead-lettered, in the order of
// their first DLQ write, that are still dead and whose entry no redrive or
// reprocess resolved.
func (s *Suite) agreeQuarantined(v *finalView, out *violations) {
	if v.f.Quarantined == nil {
		return
	}
	var want []model.JobID
	for _, id := range s.g.dlqOrder {
		if j := s.known(id); j != nil && !j.sh.dlqResolved && j.state == model.Dead {
			want = append(want, id)
		}
	}
	got := v.f.Quarantined
	switch i, d := firstDiff(len(got), len(want), func(i int) bool { return got[i] == want[i] }); d {
	case listMissing:
		out.add(Consistency, want[i], fmt.Sprintf("the queue lists %d jobs awaiting a DLQ decision; the history's %v awaits one too", len(got), want[i]), s.known(want[i]).sh.dlq.seq)
	case listExtra:
		out.add(Consistency, got[i], fmt.Sprintf("the queue lists %v as awaiting a DLQ decision; by the history it does not (%d await one)", got[i], i))
	case listOther:
		out.add(Consistency, got[i], fmt.Sprintf("the queue lists %v as DLQ entry %d awaiting a decision; the history's is %v", got[i], i+1, want[i]), s.known(want[i]).sh.dlq.seq)
	}
}

// agreeJob compares one job read back with the oracle's account of it.
func (s *Suite) agreeJob(v *finalView, mj *model.Job, out *violations) {
	j := s.known(mj.ID)
	if j == nil || !j.enqueued {
		if v.f.Full {
			out.add(Consistency, mj.ID, fmt.Sprintf("%v is in the final state, but the history never enqueued it", mj.ID))
		}
		return
	}
	bad := func(field string, got, want any, seq uint64) {
		out.add(Consistency, mj.ID, fmt.Sprintf("%v %s is %v in the final state, %v by the history", mj.ID, field, got, want), seq)
	}
	if mj.State != j.state {
		bad("state", mj.State, j.state, j.lastSeq)
	}
	if !v.f.Full {
		return
	}
	if mj.Key != j.key || mj.Tenant != j.tenant || int64(mj.Version) != j.version {
		bad("identity", fmt.Sprintf("%s/%s/v%d", mj.Tenant, mj.Key, mj.Version), fmt.Sprintf("%s/%s/v%d", j.tenant, j.key, j.version), j.enqSeq)
	}
	if mj.PayloadHash != j.payload {
		bad("payload", fmt.Sprintf("%016x", mj.PayloadHash), fmt.Sprintf("%016x", j.payload), j.enqSeq)
	}
	if mj.Attempt != j.sh.attempts {
		bad("attempt", mj.Attempt, j.sh.attempts, j.lease.seq)
	}
	if mj.Fence != j.lease.fence {
		bad("fence", mj.Fence, j.lease.fence, j.lease.seq)
	}
	if j.lease.fence != 0 && mj.LeaseUntil != j.lease.until {
		bad("lease end", millis(mj.LeaseUntil), millis(j.lease.until), max(j.lease.seq, j.lease.beat))
	}
	if want := j.checkpointNow(); mj.Stage != want {
		bad("checkpoint", mj.Stage, want, cmp.Or(j.sh.checkSeq, j.countSeq()))
	}
	if mj.RedriveCount != j.sh.redrives {
		bad("redrive count", mj.RedriveCount, j.sh.redrives, j.sh.revived)
	}
	if mj.TokensSpent != j.work.tokens {
		bad("tokens spent", mj.TokensSpent, j.work.tokens, j.work.seq)
	}
	if j.deadline > 0 && mj.DeadlineAt != j.deadline {
		bad("deadline", millis(mj.DeadlineAt), millis(j.deadline), j.deadlineSeq())
	}
	if mj.VisibleAt != j.sh.visibleAt {
		bad("visible-at", millis(mj.VisibleAt), millis(j.sh.visibleAt), j.sh.visSeq)
	}
	if mj.Origin != j.sh.origin {
		bad("origin", mj.Origin, j.sh.origin, j.sh.revived)
	}
}

// checkpointNow is the checkpoint the job should hold: done once it
// succeeded, else the furthest accepted advance.
func (j *job) checkpointNow() model.Stage {
	if j.state == model.Succeeded {
		return model.StageDone
	}
	return j.sh.checkpoint
}

// agreeRows compares the outbox read back with the commits, publishes,
// marks and prunes of the history (each row compared by agreeRow in the
// one read of the rows, readRows).
func (s *Suite) agreeRows(v *finalView, out *violations) {
	t := &s.outbox
	c := s.readRows(v)
	*out = append(*out, c.disagree...)
	n := c.n
	if committed := int(max(t.end, t.base)) - 1; n < committed {
		out.add(Consistency, 0, fmt.Sprintf("the outbox holds %d rows, but the history names %d events", n, committed))
	}
	if v.f.sys != nil && v.f.sys.Rows() != n {
		out.add(Consistency, 0, fmt.Sprintf("the outbox counts %d rows, but lists %d", v.f.sys.Rows(), n))
	}
}

// agreeRow compares one outbox row read back with the history's account.
func (s *Suite) agreeRow(r *model.OutboxRow, out *violations) {
	t := &s.outbox
	id, h := r.EventID, s.rowAt(r.EventID)
	if pruned := h.pruneSeq != 0; r.Pruned != pruned {
		out.add(Consistency, r.Job, fmt.Sprintf("%v pruned is %v in the final state, %v by the history", id, r.Pruned, pruned), h.pruneSeq)
	}
	var o outboxEvent // the live account, for a message naming the history's row
	if id >= t.base && id < t.end {
		o = t.live[id-t.base]
	}
	if h.sig == 0 {
		out.add(Consistency, r.Job, fmt.Sprintf("%v (%v stage=%v) is in the outbox, but the history never committed it", id, r.Job, r.Stage))
		return
	}
	if s.keySig(r.Key, r.Stage, r.Job) != h.sig {
		what := "another key, stage or job"
		if o.key != "" {
			what = fmt.Sprintf("%v %s stage=%v", o.job, o.key, o.stage)
		}
		out.add(Consistency, r.Job, fmt.Sprintf("%v is %v %s stage=%v in the final state, %s by the history",
			id, r.Job, r.Key, r.Stage, what), h.sigSeq)
	}
	if want := h.markedAt != 0; r.Published != want {
		out.add(Consistency, r.Job, fmt.Sprintf("%v published is %v in the final state, %v by the history", id, r.Published, want), h.sigSeq, h.markSeq)
	}
}

// agreeEffectOrder compares the consumer's effects read back with the
// applies of the history one by one, in the order applied: which event,
// when, and the row it names.
func (s *Suite) agreeEffectOrder(v *finalView, out *violations) {
	got, want := v.f.Effects, s.g.applies
	i, d := firstDiff(len(got), len(want), func(i int) bool { return got[i].EventID == want[i].event })
	for k := range i {
		s.agreeEffect(&got[k], want[k], out)
	}
	switch d {
	case listMissing:
		out.add(Consistency, 0, fmt.Sprintf("the consumer lists %d applied effects; the history applies %v too", len(got), want[i].event), want[i].seq)
	case listExtra:
		out.add(Consistency, got[i].Job, fmt.Sprintf("the consumer lists %v as applied effect %d; the history applies only %d", got[i].EventID, i+1, len(want)))
	case listOther:
		out.add(Consistency, got[i].Job, fmt.Sprintf("the consumer lists %v as applied effect %d; the history's is %v", got[i].EventID, i+1, want[i].event), want[i].seq)
	}
}

// agreeEffect compares one effect read back with the apply that made it
// and the commit of its row.
func (s *Suite) agreeEffect(e *model.Effect, a applyRec, out *violations) {
	if e.At != a.at {
		out.add(Consistency, e.Job, fmt.Sprintf("%v applied at %s in the final state, at %s by the history", e.EventID, millis(e.At), millis(a.at)), a.seq)
	}
	if h := s.rowAt(e.EventID); h.sig != 0 && s.keySig(e.Key, e.Stage, e.Job) != h.sig {
		out.add(Consistency, e.Job, fmt.Sprintf("the effect of %v names %v %s stage=%v in the final state, another row by the history", e.EventID, e.Job, e.Key, e.Stage), h.sigSeq, a.seq)
	}
	if j := s.known(e.Job); j != nil && j.enqueued && e.Tenant != j.tenant {
		out.add(Consistency, e.Job, fmt.Sprintf("the effect of %v belongs to tenant %q in the final state, %q by the history", e.EventID, e.Tenant, j.tenant), j.enqSeq, a.seq)
	}
}

// agreeEffects compares the consumer's effects read back with the applies
// of the history, job by job and stage by stage.
func (s *Suite) agreeEffects(v *finalView, out *violations) {
	for id := model.JobID(1); int(id) < len(v.effects); id++ {
		j := s.known(id)
		for st := range model.StageDone {
			var seen uint8
			var first uint64
			if j != nil {
				seen, first = j.once.count[st], j.once.first[st]
			}
			if n := v.effects[id][st]; n != int32(seen) && seen < 255 {
				out.add(Consistency, id, fmt.Sprintf("%v stage=%v has %d applied effects in the final state, %d by the history", id, st, n, seen), first)
			}
		}
	}
}

// agreeMessages compares the broker read back with the publishes and
// deliveries of the history.
func (s *Suite) agreeMessages(v *finalView, out *violations) {
	n := 0
	v.f.eachMessage(func(m *model.Message) {
		n++
		if m.ID < 1 || m.ID > int64(len(s.g.msgs)) {
			out.add(Consistency, 0, fmt.Sprintf("message %d is in the broker, but the history never published it", m.ID))
			return
		}
		h := &s.g.msgs[m.ID-1]
		switch {
		case m.Event != h.event:
			out.add(Consistency, 0, fmt.Sprintf("message %d carries %v in the final state, %v by the history", m.ID, m.Event, h.event), h.seq)
		case m.Deliveries != h.deliveries:
			out.add(Consistency, 0, fmt.Sprintf("message %d was delivered %d times by the final state, %d by the history", m.ID, m.Deliveries, h.deliveries), h.seq)
		case m.Acked && h.deliveries == 0:
			out.add(Consistency, 0, fmt.Sprintf("message %d is acked but was never delivered", m.ID), h.seq)
		case s.drained && !m.Acked:
			out.add(NothingLost, 0, fmt.Sprintf("message %d (%v) was never acked, yet the run drained", m.ID, m.Event), h.seq)
		}
	})
	if n != len(s.g.msgs) {
		out.add(Consistency, 0, fmt.Sprintf("the broker holds %d messages, the history published %d", n, len(s.g.msgs)))
	}
}

// agreeDLQ compares the DLQ read back with the DLQ writes of the history.
func (s *Suite) agreeDLQ(v *finalView, out *violations) {
	listed := map[model.JobID]int{} // job → its entry's position, from 1
	unordered := false              // an entry listed twice or made up: reported, and the order with it
	for i := range v.f.DLQ {
		env := &v.f.DLQ[i]
		if first := listed[env.Job]; first != 0 {
			out.add(Consistency, env.Job, fmt.Sprintf("the DLQ lists %v twice (entries %d and %d): one entry per job, a later write overwrites it", env.Job, first, i+1))
			unordered = true
			continue
		}
		listed[env.Job] = i + 1
		j := s.known(env.Job)
		if j == nil || j.sh.dlq.seq == 0 {
			out.add(Consistency, env.Job, fmt.Sprintf("the DLQ holds an entry for %v, but the history never dead-lettered it", env.Job))
			unordered = true
			continue
		}
		s.agreeEnvelope(env, j, out)
	}
	for id := range s.njobs {
		if j := s.at(id); v.f.Full && j.enqueued && j.sh.dlq.seq != 0 && listed[model.JobID(id)] == 0 {
			out.add(NothingLost, model.JobID(id), fmt.Sprintf("%v was dead-lettered, but the DLQ has no entry for it", model.JobID(id)), j.sh.dlq.seq)
		}
	}
	if !v.f.Full || unordered {
		return
	}
	// The entries in the order of each job's first DLQ write (an entry
	// missing is reported above).
	got, want := v.f.DLQ, s.g.dlqOrder
	if i, d := firstDiff(len(got), len(want), func(i int) bool { return got[i].Job == want[i] }); d == listOther {
		out.add(Consistency, got[i].Job, fmt.Sprintf("the DLQ lists %v as entry %d; by the history's first DLQ writes it is %v's", got[i].Job, i+1, want[i]),
			s.known(want[i]).sh.dlq.seq)
	}
}

// agreeEnvelope compares one DLQ entry with its job's last DLQ write.
func (s *Suite) agreeEnvelope(env *model.Envelope, j *job, out *violations) {
	d := &j.sh.dlq
	bad := func(field string, got, want any) {
		out.add(Consistency, env.Job, fmt.Sprintf("DLQ entry of %v: %s is %v, the history says %v", env.Job, field, got, want), d.seq)
	}
	if env.Reason != d.reason {
		bad("reason", env.Reason, d.reason)
	}
	if env.Attempts != d.attempts {
		bad("attempts", env.Attempts, d.attempts)
	}
	if env.Tokens.Total != d.tokens || env.Tokens.Prompt+env.Tokens.Completion != env.Tokens.Total {
		bad("tokens", fmt.Sprintf("%d+%d=%d", env.Tokens.Prompt, env.Tokens.Completion, env.Tokens.Total), d.tokens)
	}
	if env.CorrelationID != j.key || env.Tenant != j.tenant {
		bad("key", env.Tenant+"/"+env.CorrelationID, j.tenant+"/"+j.key)
	}
	if env.RedriveCount != j.sh.redrives {
		bad("redrive count", env.RedriveCount, j.sh.redrives)
	}
	if got := strings.Join(env.SchemaPaths, ","); got != d.paths {
		bad("schema paths", strconv.Quote(got), strconv.Quote(d.paths))
	}
	switch {
	case d.work && env.ErrorRef == 0:
		bad("error reference", 0, "a hash of the raw error")
	case d.ref != 0 && env.ErrorRef != d.ref:
		bad("error reference", fmt.Sprintf("%016x", env.ErrorRef), fmt.Sprintf("%016x (the raw error the worker reported)", d.ref))
	}
	if env.PayloadRef != j.payload {
		bad("payload reference", fmt.Sprintf("%016x", env.PayloadRef), fmt.Sprintf("%016x", j.payload))
	}
	want := model.Quarantined
	if j.sh.dlqResolved {
		want = model.Resolved
	}
	if env.Status != want {
		bad("status", env.Status, want)
	}
}

// agreeAudit checks that every audit entry stands for an operator action
// of the history.
func (s *Suite) agreeAudit(v *finalView, out *violations) {
	redrives := map[model.JobID]int{}
	for _, r := range s.ops.redrives {
		redrives[r.job]++
	}
	reprocessed := map[auditLink]bool{}
	for _, r := range s.ops.reprocesses {
		reprocessed[auditLink{r.old, r.new, r.operator}] = true
	}
	for _, a := range v.f.Audit {
		switch {
		case a.Action == "redrive" && a.OldJob == a.NewJob && redrives[a.OldJob] > 0:
			redrives[a.OldJob]--
		case a.Action == "reprocess" && reprocessed[auditLink{a.OldJob, a.NewJob, a.Operator}]:
		default:
			out.add(OperatorActions, a.OldJob, fmt.Sprintf("audit entry %q of %v (new %v, operator %s) stands for no operator action of the history",
				a.Action, a.OldJob, a.NewJob, a.Operator))
		}
	}
}
