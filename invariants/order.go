package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// Queue order: the queue hands out the job that became ready first — the
// earliest visibility (enqueue, retry, redrive) or lease expiry, ties by
// job id — and in an ordered queue only the oldest unfinished job. The
// oracle keeps its own ready queue from the history and checks that every
// lease, and every cancel or dead letter at a lease, takes its head: a job
// passed over waits, and a queue that keeps passing it over starves it.

// readyRef is an entry of the oracle's ready queue: job id may be handed
// out from at; entries whose gen is not the job's current one are stale.
type readyRef struct {
	at  model.Time
	job model.JobID
	gen uint32
}

// readyQueue is a binary min-heap of readyRefs by (at, job).
type readyQueue struct{ items []readyRef }

func (q *readyQueue) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	return a.at < b.at || a.at == b.at && a.job < b.job
}

func (q *readyQueue) push(r readyRef) {
	q.items = append(q.items, r)
	for i := len(q.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

func (q *readyQueue) pop() {
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items = q.items[:last]
	for i := 0; ; {
		l, s := 2*i+1, i
		if l < last && q.less(l, s) {
			s = l
		}
		if r := l + 1; r < last && q.less(r, s) {
			s = r
		}
		if s == i {
			return
		}
		q.items[i], q.items[s] = q.items[s], q.items[i]
		i = s
	}
}

// ready (re)places job j in the oracle's queue at time at.
func (s *Suite) ready(id model.JobID, j *job, at model.Time) {
	j.sh.readyGen++
	s.readyQ.push(readyRef{at: at, job: id, gen: j.sh.readyGen})
}

// unready takes job j out of the oracle's queue (finished).
func (j *job) unready() { j.sh.readyGen++ }

// head returns the job the queue must hand out at now, if any: the first
// live entry, ready by now.
func (s *Suite) head(now model.Time) (model.JobID, model.Time, bool) {
	q := &s.readyQ
	for len(q.items) > 0 {
		top := q.items[0]
		j := s.known(top.job)
		if j == nil || j.sh.readyGen != top.gen || j.state.Terminal() {
			q.pop()
			continue
		}
		if at := s.readyAt(j); at != top.at { // heartbeats moved its lease's end: not pushed each time
			q.pop()
			q.push(readyRef{at: at, job: top.job, gen: top.gen})
			continue
		}
		return top.job, top.at, top.at <= now
	}
	return 0, 0, false
}

// takenInOrder checks a lease, or a cancel or dead letter at a lease, of
// job e.Job: it must be the head of the queue. In an ordered queue the
// head is the oldest unfinished job.
func (s *Suite) takenInOrder(e *model.Event, j *job) {
	if j == nil || !j.enqueued {
		return
	}
	if s.cfg.Model.Ordered {
		if h := s.oldestLive(); h != 0 && h != e.Job {
			s.disagree(e.Job, fmt.Sprintf("%v %v from an ordered queue whose oldest unfinished job is %v", e.Job, e.Kind, h),
				s.at(int(h)).enqSeq, e.Seq)
		}
		return
	}
	id, at, ok := s.head(e.At)
	if ok && id != e.Job && s.readyAt(j) >= at {
		s.disagree(e.Job, fmt.Sprintf("%v %v out of order: %v was ready first, at %s", e.Job, e.Kind, id, millis(at)),
			s.at(int(id)).lastSeq, e.Seq)
	}
}

// readyAt is when job j became ready to be handed out, by the oracle's
// account: its visibility, or its lease's end.
func (s *Suite) readyAt(j *job) model.Time {
	if j.state == model.Leased {
		return j.lease.until
	}
	return j.sh.visibleAt
}

// oldestLive is the oldest unfinished job: the head of an ordered queue.
func (s *Suite) oldestLive() model.JobID {
	if s.orderedHead == 0 {
		s.orderedHead = 1
	}
	for ; s.orderedHead < model.JobID(s.njobs); s.orderedHead++ {
		if j := s.at(int(s.orderedHead)); j.enqueued && !j.state.Terminal() {
			return s.orderedHead
		}
	}
	return 0
}

// requeue keeps the oracle's queue in step with a job's event, after the
// job's lifecycle moved on.
func (s *Suite) requeue(e *model.Event, j *job) {
	if j == nil || !j.enqueued || !e.OK {
		return
	}
	switch e.Kind {
	case model.EvEnqueue:
		s.ready(e.Job, j, j.sh.visibleAt)
	case model.EvLease:
		s.ready(e.Job, j, j.lease.until)
	case model.EvRetry:
		s.ready(e.Job, j, j.sh.visibleAt)
	case model.EvRedrive:
		s.ready(e.Job, j, j.sh.visibleAt)
		s.orderedHead = min(s.orderedHead, e.Job) // the redriven job is unfinished again
	}
	if j.state.Terminal() {
		j.unready()
	}
}
