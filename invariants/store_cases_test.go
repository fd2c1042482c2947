package invariants_test

import (
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
)

// jobOf returns job id of st.
func jobOf(st *invariants.Store, id model.JobID) *invariants.StoreJob {
	for i := range st.Jobs {
		if st.Jobs[i].ID == id {
			return &st.Jobs[i]
		}
	}
	panic("no job")
}

type (
	st  = invariants.Store
	ops = []invariants.Op
)

// storeCases: each check fails when one of its facts is broken.
var storeCases = []storeCase{
	{"an effect applied twice", invariants.StoreNoDuplicates, nil, "ta:d1:v1:ingest has 2 effects", func(s *st, o *ops) {
		e := s.Effects[0]
		e.EventID = 99
		s.Effects = append(s.Effects, e)
	}},
	{"two deliveries both applied", invariants.StoreNoDuplicates, nil, "applied by consumer and again by consumer2", func(s *st, o *ops) {
		a := *find(*o, invariants.OpApply, 0, 0)
		a.Proc = "consumer2"
		*o = append(*o, a)
	}},
	{"a stage committed twice", invariants.StoreNoDuplicates, nil, "committed 2 times", func(s *st, o *ops) {
		r := s.Outbox[0]
		r.EventID = 99
		s.Outbox = append(s.Outbox, r)
	}},
	{"a key with two jobs", invariants.StoreNoLostJobs, nil, "has 2 jobs", func(s *st, o *ops) {
		j := *jobOf(s, 1)
		j.ID = 9
		s.Jobs = append(s.Jobs, j)
	}},
	{"a dead job not in the DLQ", invariants.StoreNoLostJobs, nil, "dead but not in the DLQ", func(s *st, o *ops) {
		s.DLQ = s.DLQ[:1]
	}},
	{"a success without its results", invariants.StoreNoLostJobs, nil, "succeeded without a review result", func(s *st, o *ops) {
		s.Results = s.Results[:3]
	}},
	{"a DLQ row of no job", invariants.StoreNoLostJobs, nil, "does not exist", func(s *st, o *ops) {
		s.DLQ = append(s.DLQ, invariants.StoreDLQ{Job: 77})
	}},
	{"a row never published", invariants.StoreNoUnpublished, nil, "never marked published", func(s *st, o *ops) {
		s.Outbox[1].Published = false
	}},
	{"a row marked with no message", invariants.StoreNoUnpublished, nil, "no broker message", func(s *st, o *ops) {
		s.Broker = s.Broker[1:]
	}},
	{"a ledger entry without its effect", invariants.StoreNoUnpublished, nil, "in the ledger without its effect", func(s *st, o *ops) {
		s.Effects = s.Effects[1:]
	}},
	{"a result without its row", invariants.StoreNoOrphans, nil, "not its outbox row", func(s *st, o *ops) {
		s.Results = append(s.Results, model.Result{Key: "ta:x:v1", EventID: 999})
	}},
	{"a message of no commit", invariants.StoreNoOrphans, nil, "carries event e999, never committed", func(s *st, o *ops) {
		s.Broker = append(s.Broker, model.Message{ID: 99, Event: 999})
	}},
	{"a publish of no commit", invariants.StoreNoOrphans, nil, "publish by relay of event e999", func(s *st, o *ops) {
		*o = append(*o, invariants.Op{Kind: invariants.OpPublish, Proc: "relay", Event: 999, Msg: 1})
	}},
	{"a zombie's heartbeat accepted", invariants.StoreNoStaleFence, nil, "beat by zombie on j2 under fence 2 accepted after a lease by w0 under fence 3", func(s *st, o *ops) {
		l := find(*o, invariants.OpLease, 2, 1)
		*o = append(*o, invariants.Op{Kind: invariants.OpBeat, Proc: "zombie", Job: 2, Fence: 2, T0: l.T1 + 1, T1: l.T1 + 2})
	}},
	{"a fence granted twice", invariants.StoreNoStaleFence, nil, "fence 1 granted twice", func(s *st, o *ops) {
		*o = append(*o, *find(*o, invariants.OpLease, 1, 0))
	}},
	{"an ack lost", invariants.StoreDurable, nil, "ack by w0 of j5, which is cancelled", func(s *st, o *ops) {
		*o = append(*o, invariants.Op{Kind: invariants.OpAck, Proc: "w0", Job: 5, Fence: 99})
	}},
	{"an audit row lost", invariants.StoreDurable, nil, "not in the audit log", func(s *st, o *ops) {
		s.Audit = s.Audit[1:]
	}},
	{"a delivery the broker did not count", invariants.StoreDurable, nil, "delivered 1 times by the history, 0 by the broker", func(s *st, o *ops) {
		s.Broker[0].Deliveries = 0
	}},
	{"a DLQ row short of attempts", invariants.StoreMaxAttempts, nil, "after 1 of 2 attempts (DLQ row)", func(s *st, o *ops) {
		s.DLQ[0].Attempts = 1
	}},
	{"a life one lease short", invariants.StoreMaxAttempts, nil, "after 1 leases of 2", func(s *st, o *ops) {
		drop(o, find(*o, invariants.OpLease, 2, 1))
	}},
	{"a lease before the retry's visible time", invariants.StoreRetryTiming, nil, "before the visible time its retry", func(s *st, o *ops) {
		rt, l := find(*o, invariants.OpRetry, 2, 0), find(*o, invariants.OpLease, 2, 1)
		l.T0, l.T1 = rt.T1+1, rt.T1+1
	}},
	{"a lease past the deadline", invariants.StoreDeadline, nil, "past its deadline", func(s *st, o *ops) {
		jobOf(s, 5).DeadlineAt = 1
	}},
	{"a cancel at a retry before the deadline", invariants.StoreDeadline, nil, "at a retry visible 10ms before its deadline", func(s *st, o *ops) {
		find(*o, invariants.OpCancel, 5, 0).Visible = jobOf(s, 5).DeadlineAt - 10*msec
	}},
	{"a cancel at lease before the deadline", invariants.StoreDeadline, []string{"complete"}, "cancelled at lease by w0", func(s *st, o *ops) {
		jobOf(s, 6).DeadlineAt = 1 << 40
	}},
	{"a cancel with no record before the deadline", invariants.StoreDeadline, []string{"partial"}, "deadline after the run's last operation", func(s *st, o *ops) {
		jobOf(s, 6).DeadlineAt = 1 << 40
	}},
	{"a redrive that kept the attempts", invariants.StoreRedrive, nil, "first lease after its redrive by op is attempt 3", func(s *st, o *ops) {
		find(*o, invariants.OpLease, 2, 2).Attempt = 3
	}},
	{"a reprocess audited twice", invariants.StoreReprocess, nil, "has 2 audit rows", func(s *st, o *ops) {
		s.Audit = append(s.Audit, s.Audit[1])
	}},
	{"a reprocess of the wrong version", invariants.StoreReprocess, nil, "not the next version", func(s *st, o *ops) {
		jobOf(s, 4).Version = 3
	}},
	{"a reprocess of a live job", invariants.StoreReprocess, nil, "reprocesses j3, which is leased", func(s *st, o *ops) {
		jobOf(s, 3).State = model.Leased
	}},
	{"a resubmission that created a job", invariants.StoreIdempotency, nil, "created j1", func(s *st, o *ops) {
		find(*o, invariants.OpResubmit, 1, 0).Deduped = false
	}},
	{"a conflict accepted", invariants.StoreIdempotency, nil, "accepted as j9", func(s *st, o *ops) {
		(*o)[len(*o)-1].Err = "accepted as j9"
	}},
	{"a dedupe answered with the caller's event", invariants.StoreIdempotency, nil,
		"deduplicated commit by zombie of j1 ingest returned event e99, the stored result's is e1", func(s *st, o *ops) {
			c := find(*o, invariants.OpCommit, 1, 4)
			c.Event = 99
		}},
	{"a dedupe answered with the caller's value", invariants.StoreIdempotency, nil,
		"deduplicated commit by zombie of j1 ingest returned value 5, the stored result's is b", func(s *st, o *ops) {
			find(*o, invariants.OpCommit, 1, 4).Value = 5
		}},
	{"a commit answered with another value than it stored", invariants.StoreIdempotency, nil,
		"commit by w0 of j1 validate returned value 17, the stored result's is 21", func(s *st, o *ops) {
			find(*o, invariants.OpCommit, 1, 2).Value = 0x17
		}},
	{"a write refused under the current fence", invariants.StoreNoStaleFence, nil,
		"write by w0 on j5 under fence 7 refused as stale_fence while that fence's lease by w0 was the job's current one", func(s *st, o *ops) {
			drop(o, find(*o, invariants.OpCancel, 5, 0))
			jobOf(s, 5).State = model.Leased
			*o = append(*o, invariants.Op{Kind: invariants.OpRefused, Proc: "w0", Job: 5, Fence: jobOf(s, 5).Fence, Code: model.CodeStaleFence, T0: 1 << 40, T1: 1 << 40, Seq: 999})
		}},
	{"a write refused as not leased while leased", invariants.StoreNoStaleFence, []string{"complete"},
		"write by w0 on j2 under fence 3 refused as not_leased while that fence's lease by w0 was the job's current one", func(s *st, o *ops) {
			drop(o, find(*o, invariants.OpRetry, 2, 1)) // nothing ended fence 3's lease before the refusal
		}},
	{"a conflict refused for the key's own payload", invariants.StoreIdempotency, nil,
		"enqueue of ta:d1:v1 by api refused as a conflict, but j1 holds that very payload 7", func(s *st, o *ops) {
			(*o)[len(*o)-1].Payload = 7
		}},
	{"a conflict refused for a key no job holds", invariants.StoreIdempotency, nil,
		"enqueue of ta:d9:v1 by api refused as a conflict, but no job holds the key", func(s *st, o *ops) {
			(*o)[len(*o)-1].Key = "ta:d9:v1"
		}},
	{"a payload overwritten", invariants.StoreIdempotency, nil, "not the one its enqueue carried", func(s *st, o *ops) {
		jobOf(s, 1).PayloadHash = 8
	}},
	{"a job left pending", invariants.StoreDrained, nil, "1 jobs pending: j1", func(s *st, o *ops) {
		jobOf(s, 1).State = model.Pending
	}},
	{"a row left unpublished", invariants.StoreDrained, nil, "1 outbox rows unpublished: e2", func(s *st, o *ops) {
		s.Outbox[1].Published = false
	}},
	{"a redrive without its audit row", invariants.StoreDrained, nil, "redriven without an audit row: j2", func(s *st, o *ops) {
		s.Audit = s.Audit[1:]
	}},
}
