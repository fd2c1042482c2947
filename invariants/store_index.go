package invariants

import (
	"cmp"
	"slices"

	"github.com/durasim/durasim/model"
)

// storeIndex is the final state and the operations, indexed for the store
// checks. Maps are for lookups only: every check walks slices (jobs, rows,
// operations) or sorted keys, so its violations come out in one order.
type storeIndex struct {
	st      *Store
	ops     []Op
	feed    Feed
	jobs    map[model.JobID]*StoreJob
	byKey   map[string][]*StoreJob
	rows    map[model.EventID]*model.OutboxRow
	results map[string]*model.Result // by StageKey
	dlq     map[model.JobID]*StoreDLQ
	ledger  map[model.EventID]int
	msgs    map[int64]*model.Message
	byJob   map[model.JobID][]int // job operations' positions in ops, in store order (complete) or by T0
	end     model.Time            // the latest time of any operation
}

func newStoreIndex(st *Store, ops []Op, feed Feed) *storeIndex {
	ix := &storeIndex{st: st, ops: ops, feed: feed, jobs: map[model.JobID]*StoreJob{}, byKey: map[string][]*StoreJob{},
		rows: map[model.EventID]*model.OutboxRow{}, results: map[string]*model.Result{}, dlq: map[model.JobID]*StoreDLQ{},
		ledger: map[model.EventID]int{}, msgs: map[int64]*model.Message{}, byJob: map[model.JobID][]int{}}
	for i := range st.Jobs {
		j := &st.Jobs[i]
		ix.jobs[j.ID] = j
		ix.byKey[j.Key] = append(ix.byKey[j.Key], j)
	}
	for i := range st.Outbox {
		ix.rows[st.Outbox[i].EventID] = &st.Outbox[i]
	}
	for i := range st.Results {
		r := &st.Results[i]
		ix.results[model.StageKey(r.Key, r.Stage)] = r
	}
	for i := range st.DLQ {
		ix.dlq[st.DLQ[i].Job] = &st.DLQ[i]
	}
	for _, ev := range st.Ledger {
		ix.ledger[ev]++
	}
	for i := range st.Broker {
		ix.msgs[st.Broker[i].ID] = &st.Broker[i]
	}
	for i := range ops {
		o := &ops[i]
		if o.Job != 0 && o.Kind.ofJob() {
			ix.byJob[o.Job] = append(ix.byJob[o.Job], i)
		}
		ix.end = max(ix.end, o.T0, o.T1)
	}
	if !feed.Complete {
		// Records of different processes come in no common order (files
		// read one after another): each job's by start time.
		//det:sorted (each list sorted on its own)
		for _, is := range ix.byJob {
			slices.SortStableFunc(is, func(a, b int) int { return cmp.Compare(ops[a].T0, ops[b].T0) })
		}
	}
	return ix
}

// ofJob reports whether the operation acts on its job's queue state (the
// ones each job's timeline is made of).
func (k OpKind) ofJob() bool {
	switch k {
	case OpLease, OpBeat, OpCommit, OpAdvance, OpAck, OpRetry, OpCancel, OpCancelAtLease, OpDead, OpRedrive, OpRefused:
		return true
	}
	return false
}

// jobOps returns the positions of job's operations of kind k, in the
// job's order.
func (ix *storeIndex) jobOps(job model.JobID, k OpKind) []int {
	var out []int
	for _, i := range ix.byJob[job] {
		if ix.ops[i].Kind == k {
			out = append(out, i)
		}
	}
	return out
}

// before reports whether operation a certainly completed before b began:
// in a complete feed, a comes first in the store's order; otherwise a's
// interval ended before b's began.
func (ix *storeIndex) before(a, b int) bool {
	if ix.feed.Complete {
		return a < b
	}
	return ix.ops[a].T1 < ix.ops[b].T0
}

// who prints an operation's actor for a message (" by w1.2"), or nothing.
func who(o *Op) string {
	if o.Proc == "" {
		return ""
	}
	return " by " + o.Proc
}

// sortedKeys returns m's keys in order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	//det:sorted (just below)
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
