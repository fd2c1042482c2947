package invariants

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/model"
)

// Liveness: once the faults stop and the quiescence window passes, the
// system must have drained. A run that did not is a failure, and the
// verdict names every reason the history and the final state show: jobs
// still live (and, for a job visible long ago, the wake-up that never
// came), rows never published, rows a relay published and never marked,
// events never applied, messages never acked, a breaker that never closed,
// dead jobs still waiting in the DLQ.

// maxListed bounds the ids one liveness reason lists.
const maxListed = 8

// reason collects the ids and events behind one liveness reason.
type reason struct {
	what  string
	ids   []string
	seqs  []uint64
	count int
}

func (r *reason) add(id string, seqs ...uint64) {
	r.count++
	if len(r.ids) < maxListed {
		r.ids = append(r.ids, id)
		r.seqs = append(r.seqs, seqs...)
	}
}

func (r *reason) message() string {
	list := strings.Join(r.ids, ", ")
	if r.count > len(r.ids) {
		list += fmt.Sprintf(" and %d more", r.count-len(r.ids))
	}
	return fmt.Sprintf("%d %s: %s", r.count, r.what, list)
}

// finishLiveness reports why a run did not drain.
func (s *Suite) finishLiveness(v *finalView, out *violations) {
	if s.drained {
		return
	}
	end := v.f.End
	head := fmt.Sprintf("the run did not drain by %s", millis(end))
	if s.g.quiesce != 0 {
		head = fmt.Sprintf("the run did not drain in the %s after the faults stopped at %s", millis(end-s.g.quietAt), millis(s.g.quietAt))
	}
	reasons := s.undrainedJobs(v, end)
	reasons = append(reasons, s.undrainedOutbox()...)
	reasons = append(reasons, s.unackedMessages(v)...)
	if b := &s.brk; b.state != model.Closed {
		r := reason{what: "breaker not closed"}
		r.add(fmt.Sprintf("%v since %s", b.state, millis(b.openedAt)), b.seq)
		reasons = append(reasons, r)
	}
	if len(reasons) == 0 && v.recoverable == 0 { // (a job an operator could bring back was reported: finishRecoverable)
		out.add(Liveness, 0, head+": nothing in the history or the final state is pending, so the system's own accounting never reached zero", s.g.quiesce)
		return
	}
	for _, r := range reasons {
		out.add(Liveness, 0, head+": "+r.message(), append([]uint64{s.g.quiesce}, r.seqs...)...)
	}
}

// undrainedJobs lists the jobs not terminal, the waiting ones whose
// visibility passed long ago apart (a timer that never fired), and the
// dead ones whose DLQ entry still waits for an operator.
func (s *Suite) undrainedJobs(v *finalView, end model.Time) []reason {
	leased := reason{what: "jobs still leased"}
	waiting := reason{what: "jobs still waiting"}
	stuck := reason{what: "jobs visible for over a lease yet never leased again (a wake-up that never came)"}
	quarantined := reason{what: "dead jobs still quarantined in the DLQ"}
	for id := model.JobID(1); int(id) < len(v.state); id++ {
		j := s.known(id)
		if j == nil || !j.enqueued {
			continue
		}
		switch st := j.state; {
		case st == model.Leased:
			leased.add(fmt.Sprintf("%v (fence %d, until %s)", id, j.lease.fence, millis(j.lease.until)), j.lease.seq)
		case st == model.Pending || st == model.RetryWait:
			if lease := s.cfg.Model.Lease; lease > 0 && end-j.sh.visibleAt > lease {
				stuck.add(fmt.Sprintf("%v %v since %s", id, st, millis(j.sh.visibleAt)), j.sh.visSeq)
			} else {
				waiting.add(fmt.Sprintf("%v %v", id, st), j.lastSeq)
			}
		case st == model.Dead && j.sh.dlq.seq != 0 && !j.sh.dlqResolved:
			if _, _, ok := s.recovery(j); ok {
				continue // reported on every run, with how it comes back: finishRecoverable
			}
			quarantined.add(fmt.Sprintf("%v (%v)", id, j.sh.dlq.reason), j.sh.dlq.seq)
		}
	}
	return nonEmpty(leased, waiting, stuck, quarantined)
}

// undrainedOutbox lists the outbox events not yet through the pipeline.
func (s *Suite) undrainedOutbox() []reason {
	unpublished := reason{what: "rows committed and never published"}
	held := reason{what: "rows published and never marked (held by a relay)"}
	unapplied := reason{what: "events published and never applied"}
	for i := range s.outbox.live {
		o, id := &s.outbox.live[i], s.outbox.base+model.EventID(i)
		switch {
		case o.commit != 0 && o.publish == 0:
			unpublished.add(id.String(), o.commit)
		case o.publish != 0 && o.apply == 0:
			unapplied.add(id.String(), o.publish)
		}
		if o.publish != 0 && o.mark == 0 && o.commit != 0 {
			held.add(id.String(), o.publish)
		}
	}
	return nonEmpty(unpublished, held, unapplied)
}

// unackedMessages lists the final state's messages the consumer never
// acked.
func (s *Suite) unackedMessages(v *finalView) []reason {
	r := reason{what: "broker messages never acked"}
	v.f.eachMessage(func(m *model.Message) {
		if !m.Acked {
			r.add(fmt.Sprintf("message %d (%v)", m.ID, m.Event), s.msgSeq(m.ID))
		}
	})
	return nonEmpty(r)
}

// msgSeq is the publish of message id, if the history has it.
func (s *Suite) msgSeq(id int64) uint64 {
	if id >= 1 && id <= int64(len(s.g.msgs)) {
		return s.g.msgs[id-1].seq
	}
	return 0
}

func nonEmpty(rs ...reason) []reason {
	var out []reason
	for _, r := range rs {
		if r.count > 0 {
			out = append(out, r)
		}
	}
	return out
}

// finishRevived checks, after a drained run, that a job an operator
// brought back (redriven, or created by a reprocess) after the faults
// stopped ended succeeded — unless a failure since its revival was
// permanent or a provider's 429. (A job brought back while faults still
// struck may have spent its new attempts on them.)
func (s *Suite) finishRevived(out *violations) {
	if !s.drained || s.g.quiesce == 0 {
		return
	}
	for id := range s.njobs {
		j := s.at(id)
		if !j.enqueued || j.sh.revived == 0 || j.state == model.Succeeded || j.sh.excuse != 0 {
			continue
		}
		if j.sh.revivedLate {
			out.add(OperatorActions, model.JobID(id), fmt.Sprintf("%v, brought back by an operator, ended %v after the faults stopped, with no permanent failure since",
				model.JobID(id), j.state), j.sh.revived, s.g.quiesce, j.endSeq)
		}
	}
}
