package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// The store checks that read the operations against each other and
// against the final state: fences and durability. Each reads a record as
// "this happened", never a missing record as "this did not" (unless the
// feed guarantees that kind).

// checkNoStaleFence: fences are unique per lease and never above the
// job's final fence, and no fenced write (fence > 0) was accepted under a
// fence after a lease of the same job with a higher fence had completed
// before the write began; and the other way, no fenced write refused
// (OpRefused) while its fence was still the job's current lease
// (refusalDue).
func checkNoStaleFence(ix *storeIndex, v *storeViolations) {
	defer checkRefusals(ix, v)
	owner := map[uint64]int{} // fence → the lease that took it
	for i := range ix.ops {
		o := &ix.ops[i]
		if o.Kind != OpLease {
			continue
		}
		if p, ok := owner[o.Fence]; ok {
			v.add(o.Job, fmt.Sprintf("fence %d granted twice (%s, %s)", o.Fence, ix.ops[p].Proc, o.Proc), &ix.ops[p], o)
		}
		owner[o.Fence] = i
		if j, ok := ix.jobs[o.Job]; !ok || j.Fence < o.Fence {
			v.add(o.Job, fmt.Sprintf("job %v leased%s under fence %d, above its final fence", o.Job, who(o), o.Fence), o)
		}
	}
	for i := range ix.ops {
		o := &ix.ops[i]
		switch o.Kind {
		case OpBeat, OpCommit, OpAdvance, OpAck, OpRetry, OpCancel, OpDead:
		default:
			continue
		}
		if o.Fence == 0 {
			continue // unfenced: the lease path's, or a store that does not fence commits
		}
		for _, l := range ix.jobOps(o.Job, OpLease) {
			if lo := &ix.ops[l]; lo.Fence > o.Fence && ix.before(l, i) {
				v.add(o.Job, fmt.Sprintf("%s%s on %v under fence %d accepted after a lease%s under fence %d",
					o.Kind, who(o), o.Job, o.Fence, who(lo), lo.Fence), lo, o)
				break
			}
		}
	}
}

// checkDurable: every recorded write is in the final state; and where
// every delivery is recorded, the broker's delivery counts (when the
// store keeps them) are the recorded deliveries.
func checkDurable(ix *storeIndex, v *storeViolations) {
	audits := map[string]int{}
	for _, a := range ix.st.Audit {
		audits[auditSig(a.Action, a.OldJob, a.NewJob)]++
	}
	deliveries := map[int64]int32{}
	for i := range ix.ops {
		o := &ix.ops[i]
		if msg := durableMiss(ix, o, audits); msg != "" {
			v.add(o.Job, msg, o)
		}
		if o.Kind == OpApply {
			deliveries[o.Msg]++
		}
	}
	if !ix.feed.recorded(OpApply) {
		return
	}
	counted := false
	for _, m := range ix.st.Broker {
		counted = counted || m.Deliveries > 0
	}
	for _, m := range ix.st.Broker {
		if counted && m.Deliveries != deliveries[m.ID] {
			v.add(0, fmt.Sprintf("message %d delivered %d times by the history, %d by the broker", m.ID, deliveries[m.ID], m.Deliveries))
		}
	}
}

// durableMiss says how o's write is missing from the final state ("":
// it is there).
func durableMiss(ix *storeIndex, o *Op, audits map[string]int) string {
	j := ix.jobs[o.Job]
	if j == nil {
		j = &StoreJob{}
	}
	switch o.Kind {
	case OpCommit:
		if r, ok := ix.rows[o.Event]; !ok || r.Job != o.Job || r.Stage != o.Stage {
			return fmt.Sprintf("commit%s of %v %s as %v is not in the outbox", who(o), o.Job, o.Stage, o.Event)
		}
	case OpAck:
		if j.State != model.Succeeded {
			return fmt.Sprintf("ack%s of %v, which is %s", who(o), o.Job, j.State)
		}
	case OpDead:
		if _, ok := ix.dlq[o.Job]; !ok {
			return fmt.Sprintf("dead%s of %v, not in the DLQ", who(o), o.Job)
		}
	case OpCancel, OpCancelAtLease:
		if j.State != model.Cancelled {
			return fmt.Sprintf("%s%s of %v, which is %s", o.Kind, who(o), o.Job, j.State)
		}
	case OpRedrive:
		if j.RedriveCount == 0 {
			return fmt.Sprintf("redrive%s of %v, whose redrive count is 0", who(o), o.Job)
		}
	case OpReprocess:
		if nj, ok := ix.jobs[o.New]; !ok || nj.Origin != o.Job {
			return fmt.Sprintf("reprocess%s of %v as %v: no such job with that origin", who(o), o.Job, o.New)
		}
	case OpAudit:
		if audits[auditSig(o.Action, o.Job, o.New)] == 0 {
			return fmt.Sprintf("audit%s of %s %v→%v is not in the audit log", who(o), o.Action, o.Job, o.New)
		}
	case OpPublish:
		if m, ok := ix.msgs[o.Msg]; !ok || m.Event != o.Event {
			return fmt.Sprintf("publish%s of %v as message %d is not on the broker", who(o), o.Event, o.Msg)
		}
	case OpMark:
		if r, ok := ix.rows[o.Event]; !ok || !r.Published {
			return fmt.Sprintf("mark%s of %v, which is unpublished", who(o), o.Event)
		}
	case OpApply:
		if o.Applied && ix.ledger[o.Event] == 0 {
			return fmt.Sprintf("apply%s of %v, not in the ledger", who(o), o.Event)
		}
	}
	return ""
}

func auditSig(action string, job, newJob model.JobID) string {
	return fmt.Sprintf("%s %d %d", action, int64(job), int64(newJob))
}

// checkRefusals judges each recorded refusal of a fenced write: it was
// due if a newer lease of the job had begun before the refusal ended, or
// the fence's lease had ended (an ack, retry, dead-letter or cancel under
// it, or the lease path's cancel or dead-letter) before it. A complete
// feed holds every such operation. A partial one may miss the ending
// operation's record (never a lease's), so there a refusal is judged
// undue only when nothing can have ended the lease: the job is still
// leased under that fence at the end (fences only grow, and leaving
// leased and coming back takes a new lease).
func checkRefusals(ix *storeIndex, v *storeViolations) {
	for i := range ix.ops {
		o := &ix.ops[i]
		if o.Kind != OpRefused || o.Fence == 0 {
			continue
		}
		if msg := refusalDue(ix, i); msg != "" {
			v.add(o.Job, msg, o)
		}
	}
}

// refusalDue says why the refusal at i was not due ("": it was).
func refusalDue(ix *storeIndex, i int) string {
	o := &ix.ops[i]
	var granted *Op
	for _, l := range ix.jobOps(o.Job, OpLease) {
		lo := &ix.ops[l]
		switch {
		case lo.Fence > o.Fence && ix.began(l, i):
			return "" // replaced: stale
		case lo.Fence == o.Fence:
			granted = lo
		}
	}
	if granted == nil {
		return "" // a fence never granted to this job: stale
	}
	if !ix.feed.Complete {
		if j := ix.jobs[o.Job]; j == nil || j.State != model.Leased || j.Fence != o.Fence {
			return ""
		}
	} else if ix.leaseEnded(o.Job, o.Fence, i) {
		return ""
	}
	why := ""
	if o.Code != model.CodeNone {
		why = " as " + o.Code.String()
	}
	return fmt.Sprintf("write%s on %v under fence %d refused%s while that fence's lease%s was the job's current one", who(o), o.Job, o.Fence, why, who(granted))
}

// began reports whether operation a began before b ended: in a complete
// feed, a comes first; otherwise a's interval began before b's ended.
func (ix *storeIndex) began(a, b int) bool {
	if ix.feed.Complete {
		return a < b
	}
	return ix.ops[a].T0 < ix.ops[b].T1
}

// leaseEnded reports whether, in a complete feed, job's lease under fence
// was ended before operation i: by a write under it that leaves leased,
// or by the lease path (unfenced cancel or dead-letter).
func (ix *storeIndex) leaseEnded(job model.JobID, fence uint64, i int) bool {
	for _, k := range ix.byJob[job] {
		if k >= i {
			break
		}
		o := &ix.ops[k]
		switch o.Kind {
		case OpAck, OpRetry, OpCancel, OpDead:
			if o.Fence == fence || o.Fence == 0 {
				return true
			}
		case OpCancelAtLease:
			return true
		}
	}
	return false
}
