package mirror

import (
	"github.com/durasim/durasim/internal/sqlfeed"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// The store checks of package invariants, fed by the mirror: the SQL
// store's final state and the operations the model's events replayed
// against it. The mirror sees every event, in the order the store
// performed it, at its virtual time: a complete feed, T0 == T1.

// feedOf is the mirror's feed. The model dead-letters in two steps (the
// DLQ row, then the job dead, a crash boundary between), and the mirror
// replays them as two transactions: the DLQ row is not atomic with the
// job's state.
func feedOf(drained, ordered bool) invariants.Feed {
	return invariants.Feed{Complete: true, AtomicDeadLetter: false, CommitValues: true, Ordered: ordered, Drained: drained}
}

// Check implements sim.Checker: the store checks over the final state
// End read back and the operations replayed since Begin.
func (b *Backend) Check(drained bool) []invariants.Violation {
	return checkState(b.final, b.ops, feedOf(drained, b.sys != nil && b.sys.Config().Ordered))
}

// CheckState runs the store checks over a store's final state and the
// operations the mirror recorded.
func CheckState(st sqlstore.State, ops []invariants.Op, drained bool) []invariants.Violation {
	return checkState(st, ops, feedOf(drained, false))
}

func checkState(st sqlstore.State, ops []invariants.Op, feed invariants.Feed) []invariants.Violation {
	store := sqlfeed.Store(st)
	return invariants.CheckStore(&store, ops, feed)
}

// Ops returns the operations recorded since Begin (tests).
func (b *Backend) Ops() []invariants.Op { return b.ops }

// record appends e's operation, if it is one the store accepted. The
// model's commit is unfenced (its fence stays 0); the lease path's cancel
// and dead-letter are unfenced too. A redrive carries the reason the job
// had died with (the last DLQ write's), and its audit row is written in
// the same step, as is a reprocess's.
func (b *Backend) record(e *model.Event) {
	op := invariants.Op{Proc: e.Actor.String(), Job: e.Job, T0: e.At, T1: e.At, Seq: e.Seq}
	switch e.Kind {
	case model.EvEnqueue:
		switch e.Code {
		case model.CodeNone:
			op.Kind, op.Key, op.Payload = invariants.OpEnqueue, e.Key, e.Payload
		case model.CodeDeduped:
			op.Kind, op.Key, op.Deduped = invariants.OpResubmit, e.Key, true
		case model.CodeIdempotencyConflict:
			op.Kind, op.Key, op.Job = invariants.OpConflict, e.Key, 0
			if j := b.sys.JobRef(e.Job); j != nil {
				op.Payload = ^j.PayloadHash // the other payload the replay sends (enqueue)
			}
		default:
			return
		}
	case model.EvLease:
		if !e.OK {
			return
		}
		op.Kind, op.Fence, op.Attempt = invariants.OpLease, e.Fence, e.Attempt
	case model.EvCancelAtLease:
		op.Kind = invariants.OpCancelAtLease
	case model.EvExhausted:
		op.Kind, op.Code = invariants.OpDead, e.Code
	case model.EvDLQWrite:
		b.lastDead = setCode(b.lastDead, e.Job, e.Code)
		return
	case model.EvHeartbeat, model.EvAdvance, model.EvAck, model.EvRetry, model.EvDead, model.EvCancel:
		if !e.OK {
			// A refusal the store agreed to (the replay compares its
			// reason): the store checks judge whether it was due.
			if e.Code != model.CodeStaleFence && e.Code != model.CodeNotLeased {
				return
			}
			op.Kind, op.Fence, op.Code = invariants.OpRefused, e.Fence, e.Code
			break
		}
		op.Kind, op.Fence = fencedKinds[e.Kind], e.Fence
		switch e.Kind {
		case model.EvAdvance:
			op.Stage = e.Stage
		case model.EvRetry:
			op.Visible = e.At + e.N
		case model.EvDead:
			op.Code = e.Code
		}
	case model.EvCommit:
		if e.Code != model.CodeNone && e.Code != model.CodeDeduped {
			return
		}
		op.Kind, op.Stage, op.Event, op.Deduped = invariants.OpCommit, e.Stage, e.EventID, e.Code == model.CodeDeduped
		if r, ok := b.sys.Committed(e.Key, e.Stage); ok {
			op.Value = r.Value // what the store must return (the replay compares it)
		}
	case model.EvPublish:
		if !e.OK {
			return
		}
		op.Kind, op.Event, op.Msg = invariants.OpPublish, e.EventID, e.N
	case model.EvMarkPublished:
		if !e.OK {
			return
		}
		op.Kind, op.Event = invariants.OpMark, e.EventID
	case model.EvApply:
		op.Kind, op.Event, op.Msg, op.Applied = invariants.OpApply, e.EventID, e.N2, e.OK
	case model.EvRedrive:
		if !e.OK {
			return
		}
		op.Kind, op.Code = invariants.OpRedrive, codeOf(b.lastDead, e.Job)
		b.ops = append(b.ops, op)
		op.Kind, op.Code, op.Action, op.New = invariants.OpAudit, model.CodeNone, "redrive", e.Job
	case model.EvReprocess:
		if !e.OK {
			return
		}
		op.Kind, op.New = invariants.OpReprocess, e.Other
		b.ops = append(b.ops, op)
		op.Kind, op.Action = invariants.OpAudit, "reprocess"
	default:
		return
	}
	b.ops = append(b.ops, op)
}

var fencedKinds = map[model.EventKind]invariants.OpKind{
	model.EvHeartbeat: invariants.OpBeat, model.EvAdvance: invariants.OpAdvance, model.EvAck: invariants.OpAck,
	model.EvRetry: invariants.OpRetry, model.EvDead: invariants.OpDead, model.EvCancel: invariants.OpCancel,
}

// deadCode is a job's last dead-letter reason.
type deadCode struct {
	job  model.JobID
	code model.Code
}

// setCode records job's reason in a short list (a seed dead-letters a
// handful of jobs: a slice beats a map).
func setCode(l []deadCode, job model.JobID, c model.Code) []deadCode {
	for i := range l {
		if l[i].job == job {
			l[i].code = c
			return l
		}
	}
	return append(l, deadCode{job, c})
}

func codeOf(l []deadCode, job model.JobID) model.Code {
	for _, d := range l {
		if d.job == job {
			return d.code
		}
	}
	return model.CodeNone
}
