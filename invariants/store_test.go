package invariants_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
)

const msec = model.Millisecond

// storeFx builds a store's final state and its operations together: each
// operation takes the next millisecond, T1 half a millisecond after T0.
type storeFx struct {
	st    invariants.Store
	ops   []invariants.Op
	t     model.Time
	fence uint64
	ev    model.EventID
	msg   int64
}

func (f *storeFx) op(o invariants.Op) *invariants.Op {
	f.t += msec
	o.T0, o.T1, o.Seq = f.t, f.t+msec/2, uint64(len(f.ops)+1)
	if o.Proc == "" {
		o.Proc = "w0"
	}
	f.ops = append(f.ops, o)
	return &f.ops[len(f.ops)-1]
}

func (f *storeFx) job(id model.JobID) *invariants.StoreJob {
	for i := range f.st.Jobs {
		if f.st.Jobs[i].ID == id {
			return &f.st.Jobs[i]
		}
	}
	panic("no job")
}

// enqueue adds job id for document doc, version v.
func (f *storeFx) enqueue(id model.JobID, doc string, v int32, maxAttempts int32, deadline model.Time, origin model.JobID) {
	key, _ := model.BuildIdempotencyKey("ta", doc, int(v))
	f.st.Jobs = append(f.st.Jobs, invariants.StoreJob{ID: id, Tenant: "ta", Key: key, Document: doc, Version: v, PayloadHash: 7,
		State: model.Pending, MaxAttempts: maxAttempts, DeadlineAt: deadline, Origin: origin})
	if origin == 0 {
		f.op(invariants.Op{Kind: invariants.OpEnqueue, Proc: "api", Job: id, Key: key, Payload: 7})
	}
}

func (f *storeFx) lease(id model.JobID) {
	j := f.job(id)
	f.fence++
	j.Attempt++
	j.Fence, j.State = f.fence, model.Leased
	f.op(invariants.Op{Kind: invariants.OpLease, Job: id, Fence: f.fence, Attempt: j.Attempt})
}

// succeed commits every stage, acks, and relays and applies each event.
func (f *storeFx) succeed(id model.JobID) {
	j := f.job(id)
	for _, s := range model.Stages() {
		f.ev++
		f.msg++
		f.st.Outbox = append(f.st.Outbox, model.OutboxRow{EventID: f.ev, Key: j.Key, Stage: s, Tenant: "ta", Job: id, Published: true})
		f.st.Results = append(f.st.Results, model.Result{Key: j.Key, Stage: s, Tenant: "ta", Job: id, EventID: f.ev, Value: uint64(f.ev) * 11})
		f.st.Broker = append(f.st.Broker, model.Message{ID: f.msg, Event: f.ev, Deliveries: 1})
		f.st.Ledger = append(f.st.Ledger, f.ev)
		f.st.Effects = append(f.st.Effects, model.Effect{EventID: f.ev, Key: j.Key, Stage: s, Tenant: "ta", Job: id})
		f.op(invariants.Op{Kind: invariants.OpCommit, Job: id, Fence: j.Fence, Stage: s, Event: f.ev, Value: uint64(f.ev) * 11})
		f.op(invariants.Op{Kind: invariants.OpPublish, Proc: "relay", Event: f.ev, Msg: f.msg})
		f.op(invariants.Op{Kind: invariants.OpMark, Proc: "relay", Event: f.ev})
		f.op(invariants.Op{Kind: invariants.OpApply, Proc: "consumer", Event: f.ev, Msg: f.msg, Applied: true})
	}
	j.State, j.Stage = model.Succeeded, model.StageDone
	f.op(invariants.Op{Kind: invariants.OpAck, Job: id, Fence: j.Fence})
}

func (f *storeFx) retry(id model.JobID, after model.Time) {
	j := f.job(id)
	j.State, j.VisibleAt = model.RetryWait, f.t+after
	f.op(invariants.Op{Kind: invariants.OpRetry, Job: id, Fence: j.Fence, Visible: j.VisibleAt})
	f.t = j.VisibleAt
}

// storeFixture is a run that takes every path: a plain success; a job
// dead for max attempts at lease, redriven, then succeeding; a poison job
// dead and reprocessed as its next version; a job cancelled at a retry
// and one at lease; a resubmission and a refused conflict.
func storeFixture() *storeFx {
	f := &storeFx{}
	f.enqueue(1, "d1", 1, 5, 1<<40, 0)
	f.enqueue(2, "d2", 1, 2, 1<<40, 0)
	f.enqueue(3, "d3", 1, 5, 1<<40, 0)
	f.enqueue(5, "d5", 1, 5, 1<<40, 0)
	f.enqueue(6, "d6", 1, 5, 10*msec, 0)
	f.lease(1)
	f.succeed(1)
	// d2: two attempts, then dead for max attempts at lease, redriven.
	f.lease(2)
	f.retry(2, 5*msec)
	f.lease(2)
	f.op(invariants.Op{Kind: invariants.OpRefused, Proc: "zombie", Job: 2, Fence: f.fence - 1, Code: model.CodeStaleFence})
	f.retry(2, 5*msec)
	f.op(invariants.Op{Kind: invariants.OpRefused, Job: 2, Fence: f.fence, Code: model.CodeNotLeased})
	f.op(invariants.Op{Kind: invariants.OpDead, Job: 2, Code: model.CodeMaxAttemptsExceeded})
	f.st.DLQ = append(f.st.DLQ, invariants.StoreDLQ{Job: 2, Reason: model.CodeMaxAttemptsExceeded, Attempts: 2, At: f.t})
	f.op(invariants.Op{Kind: invariants.OpRedrive, Proc: "op", Job: 2, Code: model.CodeMaxAttemptsExceeded})
	f.op(invariants.Op{Kind: invariants.OpAudit, Proc: "op", Job: 2, New: 2, Action: "redrive"})
	f.st.Audit = append(f.st.Audit, model.AuditEntry{Action: "redrive", OldJob: 2, NewJob: 2, Operator: "op"})
	j := f.job(2)
	j.RedriveCount, j.Attempt = 1, 0
	f.lease(2)
	f.succeed(2)
	// d3: poison, dead at once, reprocessed as job 4.
	f.lease(3)
	f.op(invariants.Op{Kind: invariants.OpDead, Job: 3, Fence: f.job(3).Fence, Code: model.CodePoisonSchema})
	f.job(3).State = model.Dead
	f.st.DLQ = append(f.st.DLQ, invariants.StoreDLQ{Job: 3, Reason: model.CodePoisonSchema, Attempts: 1, At: f.t})
	f.enqueue(4, "d3", 2, 5, 1<<40, 3)
	f.op(invariants.Op{Kind: invariants.OpReprocess, Proc: "op", Job: 3, New: 4})
	f.op(invariants.Op{Kind: invariants.OpAudit, Proc: "op", Job: 3, New: 4, Action: "reprocess"})
	f.st.Audit = append(f.st.Audit, model.AuditEntry{Action: "reprocess", OldJob: 3, NewJob: 4, Operator: "op"})
	f.lease(4)
	f.succeed(4)
	// d5: a retry that would pass the deadline cancels it.
	f.job(5).DeadlineAt = f.t + 20*msec
	f.lease(5)
	f.op(invariants.Op{Kind: invariants.OpCancel, Job: 5, Fence: f.job(5).Fence, Visible: f.job(5).DeadlineAt + 10*msec})
	f.job(5).State = model.Cancelled
	// d6: its deadline passed while it waited.
	f.op(invariants.Op{Kind: invariants.OpCancelAtLease, Job: 6})
	f.job(6).State = model.Cancelled
	// A zombie of job 1 commits its ingest again, with a value of its own:
	// it is deduplicated to the stored result.
	f.op(invariants.Op{Kind: invariants.OpCommit, Proc: "zombie", Job: 1, Fence: 1, Stage: model.StageIngest, Event: 1, Value: 11, Deduped: true})
	f.op(invariants.Op{Kind: invariants.OpResubmit, Proc: "api", Job: 1, Key: f.job(1).Key, Deduped: true})
	f.op(invariants.Op{Kind: invariants.OpConflict, Proc: "api", Key: f.job(1).Key, Payload: 8})
	return f
}

// feeds are the two kinds of feed: a simulator's and a real-crash run's.
var feeds = map[string]invariants.Feed{
	"complete": {Complete: true, Drained: true, CommitValues: true},
	"partial": {Recorded: []invariants.OpKind{invariants.OpLease, invariants.OpApply, invariants.OpEnqueue},
		AtomicDeadLetter: true, Drained: true, CommitValues: true},
}

// ops returns f's operations as the feed gives them: a complete feed's
// at one instant each (T0 == T1); a partial feed's with every lease-path
// record dropped (a real process records no line for them).
func (f *storeFx) opsFor(feed invariants.Feed) []invariants.Op {
	out := slices.Clone(f.ops)
	if feed.Complete {
		for i := range out {
			out[i].T1 = out[i].T0
		}
		return out
	}
	return slices.DeleteFunc(out, func(o invariants.Op) bool {
		return o.Kind == invariants.OpCancelAtLease || o.Kind == invariants.OpDead && o.Fence == 0
	})
}

func TestStoreFixtureHolds(t *testing.T) {
	for name, feed := range feeds {
		f := storeFixture()
		if vs := invariants.CheckStore(&f.st, f.opsFor(feed), feed); len(vs) != 0 {
			t.Errorf("%s feed: %v", name, vs)
		}
	}
}

func TestStoreCheckNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range invariants.StoreChecks() {
		if !strings.HasPrefix(c.String(), "store-") || c.Title() == "?" || seen[c.String()] {
			t.Errorf("check %d: %q %q", c, c, c.Title())
		}
		seen[c.String()] = true
	}
}

// find returns the operation of kind k on job (the nth, from 0).
func find(ops []invariants.Op, k invariants.OpKind, job model.JobID, nth int) *invariants.Op {
	for i := range ops {
		if ops[i].Kind == k && ops[i].Job == job {
			if nth == 0 {
				return &ops[i]
			}
			nth--
		}
	}
	panic("no such op")
}

// storeCase breaks one fact of the fixture; the check must say so, in
// every feed listed (both when feeds is empty), and in the others hold.
type storeCase struct {
	name  string
	check invariants.StoreCheck
	feeds []string // "" both
	want  string
	mod   func(st *invariants.Store, ops *[]invariants.Op)
}

func TestStoreChecksCatch(t *testing.T) {
	for _, tc := range storeCases {
		for name, feed := range feeds {
			if len(tc.feeds) > 0 && !slices.Contains(tc.feeds, name) {
				continue
			}
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				f := storeFixture()
				ops := f.opsFor(feed)
				tc.mod(&f.st, &ops)
				var got []string
				for _, v := range invariants.CheckStore(&f.st, ops, feed) {
					if v.Invariant == tc.check.String() {
						got = append(got, v.String())
					}
				}
				if !strings.Contains(strings.Join(got, "; "), tc.want) {
					t.Fatalf("%s: %q, want a violation with %q", tc.check, got, tc.want)
				}
			})
		}
	}
}

// Where the feeds differ, the same change is a violation in one and
// proves nothing in the other.
func TestStoreChecksRespectTheFeed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check invariants.StoreCheck
		holds string // the feed in which the change proves nothing
		mod   func(st *invariants.Store, ops *[]invariants.Op)
	}{
		{"a job with no enqueue recorded", invariants.StoreNoLostJobs, "", func(st *invariants.Store, ops *[]invariants.Op) {
			*ops = slices.DeleteFunc(*ops, func(o invariants.Op) bool { return o.Kind == invariants.OpEnqueue && o.Job == 5 })
		}},
		{"a DLQ row for a succeeded job", invariants.StoreNoLostJobs, "complete", func(st *invariants.Store, ops *[]invariants.Op) {
			st.DLQ = append(st.DLQ, invariants.StoreDLQ{Job: 1, Reason: model.CodePermanentError, Attempts: 1})
		}},
		{"a lease missing from a life dead for max attempts", invariants.StoreMaxAttempts, "", func(st *invariants.Store, ops *[]invariants.Op) {
			drop(ops, find(*ops, invariants.OpLease, 2, 0))
		}},
	} {
		for name, feed := range feeds {
			f := storeFixture()
			ops := f.opsFor(feed)
			tc.mod(&f.st, &ops)
			n := 0
			for _, v := range invariants.CheckStore(&f.st, ops, feed) {
				n += b2i(v.Invariant == tc.check.String())
			}
			if want := name != tc.holds; (n > 0) != want {
				t.Errorf("%s, %s feed: %d %s violations, want some: %v", tc.name, name, n, tc.check, want)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// drop removes o from ops.
func drop(ops *[]invariants.Op, o *invariants.Op) {
	seq := o.Seq
	i := slices.IndexFunc(*ops, func(x invariants.Op) bool { return x.Seq == seq })
	*ops = slices.Delete(*ops, i, i+1)
}
