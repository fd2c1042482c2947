package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// checkFIFO: on an ordered queue a lease takes only the oldest unfinished
// job, so once a job was leased, every older job that existed then had
// finished (succeeded, dead or cancelled) and stays finished unless
// redriven. A lease of an older job, never redriven, that began after a
// younger job's lease had completed is out of order: the store leased
// past an unfinished head (a lease that skipped the head while another
// worker held its row locked, or one that read no order at all).
//
// "Older" needs the older job to have existed at the younger one's lease:
// in a complete feed its enqueue (or reprocess) comes first; in a partial
// one the feed says jobs without an origin were enqueued one at a time,
// so of two such jobs the lower id was committed before the higher one
// existed (a reprocess's id, taken while another enqueue runs, proves
// nothing: both must be enqueued ones).
func checkFIFO(ix *storeIndex, v *storeViolations) {
	if !ix.feed.Ordered {
		return
	}
	created := ix.creations()
	var leases []int
	for i := range ix.ops {
		if ix.ops[i].Kind == OpLease {
			leases = append(leases, i)
		}
	}
	for _, a := range leases {
		oa := &ix.ops[a]
		ja := ix.jobs[oa.Job]
		if ja == nil || ja.RedriveCount > 0 {
			continue
		}
		for _, b := range leases {
			ob := &ix.ops[b]
			if ob.Job <= oa.Job || !ix.before(b, a) || !ix.existedAt(oa.Job, ob.Job, created, b) {
				continue
			}
			v.add(oa.Job, fmt.Sprintf("ordered queue: %v leased%s after the younger %v was leased%s", oa.Job, who(oa), ob.Job, who(ob)), ob, oa)
			break
		}
	}
}

// creations maps each job to the operation that created it (enqueue or
// reprocess), where one is recorded with its id.
func (ix *storeIndex) creations() map[model.JobID]int {
	out := map[model.JobID]int{}
	for i := range ix.ops {
		o := &ix.ops[i]
		switch {
		case o.Kind == OpEnqueue && o.Job != 0:
			out[o.Job] = i
		case o.Kind == OpEnqueue:
			for _, j := range ix.byKey[o.Key] {
				out[j.ID] = i
			}
		case o.Kind == OpReprocess:
			out[o.New] = i
		}
	}
	return out
}

// existedAt reports whether job a certainly existed when the lease at b
// of the younger job y began.
func (ix *storeIndex) existedAt(a, y model.JobID, created map[model.JobID]int, b int) bool {
	c, ok := created[a]
	if ix.feed.Complete {
		return ok && c < b
	}
	return ok && ix.ops[c].Kind == OpEnqueue && ix.enqueued(a) && ix.enqueued(y)
}

// enqueued reports whether the job was enqueued without an origin (not a
// reprocess), whose enqueues a partial ordered feed makes one at a time.
func (ix *storeIndex) enqueued(job model.JobID) bool {
	j := ix.jobs[job]
	return j != nil && j.Origin == 0
}
