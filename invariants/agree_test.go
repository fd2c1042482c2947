package invariants

import (
	"fmt"
	"slices"
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixtures of the final durable state read back field by field (agree.go).

const d3v2 = "acme:d3:v2"

// richRun is a whole drained run and its durable state, every field
// listed (Full): j1 retried once and succeeded, spending tokens; j2
// dead-lettered, redriven and succeeded; j3 poison, reprocessed as j4,
// which succeeded. The history is numbered.
func richRun() ([]model.Event, Final) {
	j1 := payAll(0xa1, cat(one(enqueue(1), accept(1), lease(1, 1, 1), work(1, 1, ingest, 0), commit(1, ingest, 1), advance(1, 1, extract),
		work(1, 1, extract, 1500), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0), lease(1, 2, 2), work(1, 2, extract, 1500)),
		fromStage(1, 2, 1, extract), delivered(1, 1)))
	j2 := payAll(0xb2, cat(one(enqueue(2), lease(2, 3, 1), work(2, 3, ingest, 0)), failDead(2, 3, model.CodePermanentError)))
	j3 := payAll(0xc3, one(enqueue(3), lease(3, 4, 1), work(3, 4, ingest, 500), with(failed(3, 4, model.CodePoisonSchema), func(e *model.Event) { e.Text = "paths=$.fields.total" }),
		dlqOf(3, model.CodePoisonSchema, 1, 500), dead(3, 4, model.CodePoisonSchema)))
	j2again := payAll(0xb2, cat(one(redriveTo(2, ingest), lease(2, 5, 1)), rest(2, 5, 5)))
	j4 := payAll(0xc3, cat(one(with(enqueueAs(4, "acme", d3v2), func(e *model.Event) { e.N2, e.Actor = 2, op }), reprocess(3, 4, "op-ana")),
		retag(cat(one(lease(4, 6, 1)), rest(4, 6, 9)), "acme", d3v2)))
	h := hist(cat(j1, j2, j3, j2again, j4)...)

	enq := func(j model.JobID) model.Time { return find(h, model.EvEnqueue, j).At }
	until := func(j model.JobID) model.Time { return find(h, model.EvLease, j).At + lease30s }
	redriveAt := find(h, model.EvRedrive, 2).At
	f := Final{Full: true, End: h[len(h)-1].At, Messages: []model.Message{}}
	stored := func(j model.JobID, k string, p uint64) model.Job {
		return model.Job{ID: j, Tenant: "acme", Key: k, Version: 1, PayloadHash: p, State: model.Succeeded, Attempt: 1, MaxAttempts: 3,
			CreatedAt: enq(j), VisibleAt: enq(j), DeadlineAt: enq(j) + deadline, LeaseUntil: until(j), Stage: model.StageDone, TokenBudget: 6000}
	}
	j1s := stored(1, key(1), 0xa1)
	j1s.Attempt, j1s.Fence, j1s.TokensSpent, j1s.VisibleAt = 2, 2, 3000, find(h, model.EvRetry, 1).At
	j2s := stored(2, key(2), 0xb2)
	j2s.Fence, j2s.RedriveCount, j2s.VisibleAt, j2s.DeadlineAt = 5, 1, redriveAt, redriveAt+deadline
	j3s := stored(3, key(3), 0xc3)
	j3s.State, j3s.Fence, j3s.Stage, j3s.TokensSpent, j3s.LastCode = model.Dead, 4, ingest, 500, model.CodePoisonSchema
	j4s := stored(4, d3v2, 0xc3)
	j4s.Version, j4s.Fence, j4s.Origin = 2, 6, 3
	f.Jobs = []model.Job{j1s, j2s, j3s, j4s}
	for i, r := range []struct {
		job model.JobID
		key string
	}{{1, key(1)}, {2, key(2)}, {4, d3v2}} {
		for st := range model.StageDone {
			id := model.EventID(4*i+1) + model.EventID(st)
			f.Rows = append(f.Rows, model.OutboxRow{EventID: id, Key: r.key, Stage: st, Tenant: "acme", Job: r.job, Published: true})
			f.Effects = append(f.Effects, model.Effect{EventID: id, Key: r.key, Stage: st, Tenant: "acme", Job: r.job})
			f.Messages = append(f.Messages, model.Message{ID: int64(id), Event: id, Deliveries: 1, Acked: true})
		}
	}
	env := model.Envelope{Job: 2, CorrelationID: key(2), Tenant: "acme", OriginalQueue: "pipeline", AgentID: "extractor",
		Reason: model.CodePermanentError, Attempts: 1, PayloadRef: 0xb2, RedriveCount: 1, Status: model.Resolved, ErrorRef: 0x5eed}
	f.DLQ = append(f.DLQ, env)
	env.Job, env.CorrelationID, env.Reason, env.PayloadRef, env.RedriveCount = 3, key(3), model.CodePoisonSchema, 0xc3, 0
	env.Tokens, env.SchemaPaths = model.Tokens{Prompt: 375, Completion: 125, Total: 500}, []string{"$.fields.total"}
	f.DLQ = append(f.DLQ, env)
	f.Audit = []model.AuditEntry{
		{Action: "redrive", OldJob: 2, NewJob: 2, Operator: "op", Tenant: "acme", At: redriveAt},
		{Action: "reprocess", OldJob: 3, NewJob: 4, Operator: "op-ana", Tenant: "acme"},
	}
	return h, f
}

// TestAgreeJob: agreeJob, every field.
func TestAgreeJob(t *testing.T) {
	h, f := richRun()
	last := func(j model.JobID) []uint64 { return []uint64{lastSeq(h, j)} }
	// Each field's disagreement names the event that set the field.
	of := func(kind model.EventKind, j model.JobID) []uint64 { return []uint64{find(h, kind, j).Seq} }
	job := func(id model.JobID, change func(j *model.Job)) Final {
		return full(f, func(f *Final) { change(jobIn(f, id)) })
	}
	enq2 := find(h, model.EvEnqueue, 2).At
	runOracle(t, Consistency, []fixture{
		{name: "every job as the history tells it", history: h, final: f},
		{name: "a job the history never enqueued", history: h,
			final: full(f, func(f *Final) {
				f.Jobs = append(f.Jobs, model.Job{ID: 5, Tenant: "acme", Key: key(5), State: model.Pending})
			}),
			want: []want{{5, nil, "j5 is in the final state, but the history never enqueued it"}}},
		{name: "state", history: h, final: job(3, func(j *model.Job) { j.State = model.Succeeded }),
			want: []want{{3, last(3), "j3 state is succeeded in the final state, dead by the history"}}},
		{name: "identity", history: h, final: job(4, func(j *model.Job) { j.Version = 1 }),
			want: []want{{4, of(model.EvEnqueue, 4), "j4 identity is acme/acme:d3:v2/v1 in the final state, acme/acme:d3:v2/v2 by the history"}}},
		{name: "attempt", history: h, final: job(1, func(j *model.Job) { j.Attempt = 3 }),
			want: []want{{1, of(model.EvLease, 1), "j1 attempt is 3 in the final state, 2 by the history"}}},
		{name: "fence", history: h, final: job(1, func(j *model.Job) { j.Fence = 1 }),
			want: []want{{1, of(model.EvLease, 1), "j1 fence is 1 in the final state, 2 by the history"}}},
		{name: "checkpoint", history: h, final: job(3, func(j *model.Job) { j.Stage = extract }),
			want: []want{{3, of(model.EvEnqueue, 3), "j3 checkpoint is extract in the final state, ingest by the history"}}},
		{name: "redrive count", history: h, final: job(2, func(j *model.Job) { j.RedriveCount = 0 }),
			want: []want{{2, of(model.EvRedrive, 2), "j2 redrive count is 0 in the final state, 1 by the history"}}},
		{name: "tokens spent", history: h, final: job(1, func(j *model.Job) { j.TokensSpent = 1500 }),
			want: []want{{1, of(model.EvExtract, 1), "j1 tokens spent is 1500 in the final state, 3000 by the history"}}},
		{name: "deadline", history: h, final: job(2, func(j *model.Job) { j.DeadlineAt = enq2 + deadline }),
			want: []want{{2, of(model.EvRedrive, 2), "j2 deadline is " + millis(enq2+deadline) + " in the final state, " +
				millis(find(h, model.EvRedrive, 2).At+deadline) + " by the history"}}},
		{name: "visible-at", history: h, final: job(1, func(j *model.Job) { j.VisibleAt = ms }),
			want: []want{{1, of(model.EvRetry, 1), "j1 visible-at is 1ms in the final state, " + millis(find(h, model.EvRetry, 1).At) + " by the history"}}},
		{name: "lease end", history: h, final: job(4, func(j *model.Job) { j.LeaseUntil += sec }),
			want: []want{{4, of(model.EvLease, 4), "j4 lease end is " + millis(find(h, model.EvLease, 4).At+lease30s+sec) + " in the final state"}}},
		{name: "origin", history: h, final: job(4, func(j *model.Job) { j.Origin = 0 }),
			want: []want{{4, of(model.EvEnqueue, 4), "j4 origin is j0 in the final state, j3 by the history"}}},
		{name: "payload", history: h, final: job(2, func(j *model.Job) { j.PayloadHash = 0xb3 }),
			want: []want{{2, of(model.EvEnqueue, 2), "j2 payload is 00000000000000b3 in the final state, 00000000000000b2 by the history"}}},
	})
	// Without Full, only the states are read back.
	partial := job(1, func(j *model.Job) { j.Attempt, j.Fence, j.PayloadHash = 9, 9, 9 })
	partial.Full = false
	runTable(t, Consistency, []fixture{{name: "fields of a partial read-back are not compared", history: h, final: partial}})
}

// undrainedRun is richRun stopped before e12 was published: e12 is
// committed only, the rows before it are done.
func undrainedRun() ([]model.Event, Final) {
	h, f := richRun()
	h = h[:len(h)-3]
	return h, full(f, func(f *Final) {
		f.Rows[11].Published = false
		f.Effects, f.Messages = f.Effects[:11], f.Messages[:11]
		f.End = h[len(h)-1].At
	})
}

// TestAgreeRows: agreeRows.
func TestAgreeRows(t *testing.T) {
	h, f := richRun()
	uh, uf := undrainedRun()
	commit12 := find(uh, model.EvCommit, 4).Seq
	row := func(f Final, id model.EventID, change func(r *model.OutboxRow)) Final {
		return full(f, func(f *Final) { change(&f.Rows[id-1]) })
	}
	runOracle(t, Consistency, []fixture{
		{name: "every row as the history tells it", history: h, final: f},
		{name: "pruned in the final state only", history: h, final: row(f, 1, func(r *model.OutboxRow) { r.Pruned = true }),
			want: []want{{1, nil, "e1 pruned is true in the final state, false by the history"}}},
		{name: "a row the history never committed", history: h,
			final: full(f, func(f *Final) {
				f.Rows = append(f.Rows, model.OutboxRow{EventID: 13, Key: key(1), Stage: ingest, Tenant: "acme", Job: 1})
			}),
			want: []want{{1, nil, "e13 (j1 stage=ingest) is in the outbox, but the history never committed it"}}},
		{name: "a row missing", history: h, final: full(f, func(f *Final) { f.Rows = f.Rows[:11] }),
			want: []want{{0, nil, "the outbox holds 11 rows, but the history names 12 events"}}},
		// A retired row (committed, published, marked, applied) is
		// compared for its publication only; see TestAgreeBugs.
		{name: "a retired row not published", history: h, final: row(f, 1, func(r *model.OutboxRow) { r.Published = false }),
			want: []want{{1, []uint64{5, 19}, "e1 published is false in the final state, true by the history"}}},
	})
	runTable(t, Consistency, []fixture{
		{name: "a row in flight as the history tells it", history: uh, final: uf, undrained: true},
		{name: "a row in flight under another key", history: uh, final: row(uf, 12, func(r *model.OutboxRow) { r.Key = key(1) }), undrained: true,
			want: []want{{4, []uint64{commit12}, "e12 is j4 acme:d1:v1 stage=review in the final state, j4 acme:d3:v2 stage=review by the history"}}},
		{name: "a row in flight published in the final state only", history: uh, final: row(uf, 12, func(r *model.OutboxRow) { r.Published = true }),
			undrained: true,
			want:      []want{{4, []uint64{commit12}, "e12 published is true in the final state, false by the history"}}},
	})
}

// TestAgreeEffects: agreeEffects.
func TestAgreeEffects(t *testing.T) {
	h, f := richRun()
	firstApply := func(j model.JobID, st model.Stage) []uint64 {
		for _, e := range h {
			if e.Kind == model.EvApply && e.OK && e.Job == j && e.Stage == st {
				return []uint64{e.Seq}
			}
		}
		return nil
	}
	runOracle(t, Consistency, []fixture{
		{name: "every effect as the history tells it", history: h, final: f},
		{name: "an effect applied twice in the final state", history: h,
			final: full(f, func(f *Final) { f.Effects = append(f.Effects, f.Effects[0]) }),
			want:  []want{{1, firstApply(1, ingest), "j1 stage=ingest has 2 applied effects in the final state, 1 by the history"}}},
		{name: "an effect missing from the final state", history: h,
			final: full(f, func(f *Final) { f.Effects = f.Effects[:11] }),
			want:  []want{{4, firstApply(4, review), "j4 stage=review has 0 applied effects in the final state, 1 by the history"}}},
	})
}

// TestAgreeMessages: agreeMessages.
func TestAgreeMessages(t *testing.T) {
	h, f := richRun()
	pub := func(id int64) []uint64 {
		for _, e := range h {
			if e.Kind == model.EvPublish && e.N == id {
				return []uint64{e.Seq}
			}
		}
		return nil
	}
	msg := func(id int64, change func(m *model.Message)) Final {
		return full(f, func(f *Final) { change(&f.Messages[id-1]) })
	}
	// The relay published e12 again (a crash before its mark); the
	// consumer skipped the duplicate and acked it.
	again := hist(cat(h, retag(one(publish(4, review, 12), duplicate(4, review, 12)), "acme", d3v2))...)
	againPub := again[len(again)-2].Seq
	againF := full(f, func(f *Final) {
		f.Messages = append(f.Messages, model.Message{ID: 13, Event: 12, Deliveries: 1, Acked: true})
	})
	runOracle(t, Consistency, []fixture{
		{name: "every message as the history tells it", history: h, final: f},
		{name: "a republished message, skipped and acked", history: again, final: againF},
		{name: "a message never published", history: h,
			final: full(f, func(f *Final) {
				f.Messages = append(f.Messages, model.Message{ID: 13, Event: 12, Deliveries: 1, Acked: true})
			}),
			want: []want{
				{0, nil, "message 13 is in the broker, but the history never published it"},
				{0, nil, "the broker holds 13 messages, the history published 12"},
			}},
		{name: "a message carrying another event", history: h, final: msg(1, func(m *model.Message) { m.Event = 2 }),
			want: []want{{0, pub(1), "message 1 carries e2 in the final state, e1 by the history"}}},
		{name: "a message delivered more often", history: h, final: msg(1, func(m *model.Message) { m.Deliveries = 2 }),
			want: []want{{0, pub(1), "message 1 was delivered 2 times by the final state, 1 by the history"}}},
		{name: "a message acked but never delivered", history: again[:len(again)-1],
			final: full(againF, func(f *Final) { f.Messages[12].Deliveries = 0 }),
			want:  []want{{0, []uint64{againPub}, "message 13 is acked but was never delivered"}}},
		{name: "a message missing", history: h, final: full(f, func(f *Final) { f.Messages = f.Messages[:11] }),
			want: []want{{0, nil, "the broker holds 11 messages, the history published 12"}}},
	})
	runOracle(t, NothingLost, []fixture{
		{name: "every message acked", history: h, final: f},
		{name: "a message never acked in a drained run", history: h, final: msg(12, func(m *model.Message) { m.Acked = false }),
			want: []want{{0, pub(12), "message 12 (e12) was never acked, yet the run drained"}}},
	})
}

// TestAgreeDLQ: agreeDLQ and agreeEnvelope, every field and the status.
func TestAgreeDLQ(t *testing.T) {
	h, f := richRun()
	dlq2, dlq3 := []uint64{seqOf(h, model.EvDLQWrite, 2)}, []uint64{seqOf(h, model.EvDLQWrite, 3)}
	env := func(id model.JobID, change func(e *model.Envelope)) Final {
		return full(f, func(f *Final) { change(envIn(f, id)) })
	}
	// A poison job nobody has decided on yet: its entry is quarantined.
	waiting := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePoisonSchema))
	waitingEnv := model.Envelope{Job: 1, CorrelationID: key(1), Tenant: "acme", OriginalQueue: "pipeline", AgentID: "extractor",
		Reason: model.CodePoisonSchema, Attempts: 1, Status: model.Quarantined, ErrorRef: 0x5eed}
	resolved := waitingEnv
	resolved.Status = model.Resolved
	runOracle(t, Consistency, []fixture{
		{name: "every entry as the history tells it", history: h, final: f},
		{name: "a quarantined entry", history: waiting, final: Final{DLQ: []model.Envelope{waitingEnv}}},
		{name: "an entry for a job never dead-lettered", history: h,
			final: full(f, func(f *Final) {
				e := f.DLQ[0]
				e.Job, e.CorrelationID = 1, key(1)
				f.DLQ = append(f.DLQ, e)
			}),
			want: []want{{1, nil, "the DLQ holds an entry for j1, but the history never dead-lettered it"}}},
		{name: "reason", history: h, final: env(3, func(e *model.Envelope) { e.Reason = model.CodePermanentError }),
			want: []want{{3, dlq3, "DLQ entry of j3: reason is permanent_error, the history says poison_schema"}}},
		{name: "attempts", history: h, final: env(3, func(e *model.Envelope) { e.Attempts = 2 }),
			want: []want{{3, dlq3, "DLQ entry of j3: attempts is 2, the history says 1"}}},
		{name: "schema paths dropped", history: h, final: env(3, func(e *model.Envelope) { e.SchemaPaths = nil }),
			want: []want{{3, dlq3, `DLQ entry of j3: schema paths is "", the history says "$.fields.total"`}}},
		{name: "the reference the worker reported", history: withRef(waiting, "ref=5eed"), final: Final{DLQ: []model.Envelope{waitingEnv}}},
		{name: "a reference to another raw error", history: withRef(waiting, "ref=5eee paths=$.total"),
			final: Final{DLQ: []model.Envelope{func(e model.Envelope) model.Envelope { e.SchemaPaths = []string{"$.total"}; return e }(waitingEnv)}},
			want:  []want{{1, []uint64{4}, "DLQ entry of j1: error reference is 0000000000005eed, the history says 0000000000005eee (the raw error the worker reported)"}}},
		{name: "no reference to the raw error", history: h, final: env(2, func(e *model.Envelope) { e.ErrorRef = 0 }),
			want: []want{{2, dlq2, "DLQ entry of j2: error reference is 0, the history says a hash of the raw error"}}},
		{name: "tokens total", history: h, final: env(3, func(e *model.Envelope) { e.Tokens = model.Tokens{Prompt: 300, Completion: 100, Total: 400} }),
			want: []want{{3, dlq3, "DLQ entry of j3: tokens is 300+100=400, the history says 500"}}},
		{name: "tokens that do not add up", history: h, final: env(3, func(e *model.Envelope) { e.Tokens.Prompt = 300 }),
			want: []want{{3, dlq3, "DLQ entry of j3: tokens is 300+125=500, the history says 500"}}},
		{name: "key", history: h, final: env(3, func(e *model.Envelope) { e.CorrelationID = key(1) }),
			want: []want{{3, dlq3, "DLQ entry of j3: key is acme/acme:d1:v1, the history says acme/acme:d3:v1"}}},
		{name: "tenant", history: h, final: env(3, func(e *model.Envelope) { e.Tenant = "globex" }),
			want: []want{{3, dlq3, "DLQ entry of j3: key is globex/acme:d3:v1, the history says acme/acme:d3:v1"}}},
		{name: "redrive count", history: h, final: env(2, func(e *model.Envelope) { e.RedriveCount = 0 }),
			want: []want{{2, dlq2, "DLQ entry of j2: redrive count is 0, the history says 1"}}},
		{name: "payload reference", history: h, final: env(2, func(e *model.Envelope) { e.PayloadRef = 0 }),
			want: []want{{2, dlq2, "DLQ entry of j2: payload reference is 0000000000000000, the history says 00000000000000b2"}}},
		{name: "status of a redriven job's entry", history: h, final: env(2, func(e *model.Envelope) { e.Status = model.Quarantined }),
			want: []want{{2, dlq2, "DLQ entry of j2: status is QUARANTINED, the history says RESOLVED"}}},
		{name: "status of a reprocessed job's entry", history: h, final: env(3, func(e *model.Envelope) { e.Status = model.Quarantined }),
			want: []want{{3, dlq3, "DLQ entry of j3: status is QUARANTINED, the history says RESOLVED"}}},
		{name: "status of an entry nobody decided on", history: waiting, final: Final{DLQ: []model.Envelope{resolved}},
			want: []want{{1, []uint64{4}, "DLQ entry of j1: status is RESOLVED, the history says QUARANTINED"}}},
	})
	runOracle(t, NothingLost, []fixture{
		{name: "every dead-lettered job has its entry", history: h, final: f},
		{name: "an entry missing", history: h, final: full(f, func(f *Final) { f.DLQ = f.DLQ[:1] }),
			want: []want{{3, dlq3, "j3 was dead-lettered, but the DLQ has no entry for it"}}},
	})
}

// TestAgreeAudit: agreeAudit.
func TestAgreeAudit(t *testing.T) {
	h, f := richRun()
	reprocessSeq := seqOf(h, model.EvReprocess, 3)
	runOracle(t, OperatorActions, []fixture{
		{name: "every entry stands for an action", history: h, final: f},
		{name: "a redrive entry for a job never redriven", history: h,
			final: full(f, func(f *Final) {
				f.Audit = append(f.Audit, model.AuditEntry{Action: "redrive", OldJob: 1, NewJob: 1, Operator: "op", Tenant: "acme"})
			}),
			want: []want{{1, nil, `audit entry "redrive" of j1 (new j1, operator op) stands for no operator action of the history`}}},
		{name: "one redrive audited twice", history: h,
			final: full(f, func(f *Final) { f.Audit = append(f.Audit, f.Audit[0]) }),
			want:  []want{{2, nil, `audit entry "redrive" of j2 (new j2, operator op) stands for no operator action of the history`}}},
		{name: "a reprocess audited under another operator", history: h,
			final: full(f, func(f *Final) { f.Audit[1].Operator = "op-bob" }),
			want: []want{
				{3, []uint64{reprocessSeq}, "reprocess of j3 into j4 by operator op-ana is not in the audit log"},
				{3, nil, `audit entry "reprocess" of j3 (new j4, operator op-bob) stands for no operator action of the history`},
			}},
	})
}

// TestAgreeCancelled: agreeCancelled.
func TestAgreeCancelled(t *testing.T) {
	h := one(enqueue(1), enqueue(2), enqueue(3), at(ms+deadline, cancelAtLease(1)), at(2*ms+deadline, cancelAtLease(2)))
	list := func(ids ...model.JobID) Final { return Final{Cancelled: ids} }
	runTable(t, Consistency, []fixture{
		{name: "the queue lists the history's cancels in order", history: h, final: list(1, 2)},
		{name: "not read back", history: h},
		{name: "a cancel missing from the list", history: h, final: list(1),
			want: []want{{2, []uint64{5}, "the queue lists 1 cancelled jobs; the history cancels j2 too"}}},
		{name: "a job listed that the history never cancelled", history: h, final: list(1, 2, 3),
			want: []want{{3, nil, "the queue lists j3 as cancelled job 3; the history cancels only 2 jobs"}}},
		{name: "listed out of order", history: h, final: list(2, 1),
			want: []want{{2, []uint64{4}, "the queue lists j2 as cancelled job 1; the history's is j1"}}},
	})
}

// TestAgreeDLQOrder: agreeDLQ lists one entry per job, in the order of
// each job's first DLQ write (jobs 1 then 2, both poisoned).
func TestAgreeDLQOrder(t *testing.T) {
	h := cat(one(enqueue(1), enqueue(2), lease(1, 1, 1)), failDead(1, 1, model.CodePoisonSchema),
		one(lease(2, 2, 1)), failDead(2, 2, model.CodePoisonSchema))
	env := func(j model.JobID) model.Envelope {
		return model.Envelope{Job: j, CorrelationID: key(j), Tenant: "acme", OriginalQueue: "pipeline", AgentID: "extractor",
			Reason: model.CodePoisonSchema, Attempts: 1, Status: model.Quarantined, ErrorRef: 0x5eed}
	}
	dlq := func(jobs ...model.JobID) Final {
		f := Final{Full: true, Messages: []model.Message{}}
		for _, j := range jobs {
			f.DLQ = append(f.DLQ, env(j))
		}
		return f
	}
	runTable(t, Consistency, []fixture{
		{name: "one entry per job, in the order written", history: h, final: dlq(1, 2), undrained: true},
		{name: "a job listed twice", history: h, final: dlq(1, 2, 1), undrained: true,
			want: []want{{1, nil, "the DLQ lists j1 twice (entries 1 and 3): one entry per job, a later write overwrites it"}}},
		{name: "listed out of order", history: h, final: dlq(2, 1), undrained: true,
			want: []want{{2, []uint64{5}, "the DLQ lists j2 as entry 1; by the history's first DLQ writes it is j1's"}}},
	})
}

// TestAgreeQuarantined: agreeQuarantined. Jobs 1, 2 and 3 are
// dead-lettered in that order; job 2 is redriven (no longer dead).
func TestAgreeQuarantined(t *testing.T) {
	h := cat(one(enqueue(1), enqueue(2), enqueue(3), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError),
		one(lease(2, 2, 1)), failDead(2, 2, model.CodePermanentError), one(lease(3, 3, 1)), failDead(3, 3, model.CodePermanentError),
		one(redrive(2)))
	list := func(ids ...model.JobID) Final { return Final{Quarantined: append([]model.JobID{}, ids...)} }
	runTable(t, Consistency, []fixture{
		{name: "the dead jobs awaiting a decision, in DLQ order", history: h, final: list(1, 3), undrained: true},
		{name: "not read back", history: h, undrained: true},
		{name: "an entry missing from the list", history: h, final: list(1), undrained: true,
			want: []want{{3, []uint64{14}, "the queue lists 1 jobs awaiting a DLQ decision; the history's j3 awaits one too"}}},
		{name: "a redriven job listed", history: h, final: list(1, 2, 3), undrained: true,
			want: []want{{2, []uint64{14}, "the queue lists j2 as DLQ entry 2 awaiting a decision; the history's is j3"}}},
		{name: "a job listed after every entry", history: h, final: list(1, 3, 2), undrained: true,
			want: []want{{2, nil, "the queue lists j2 as awaiting a DLQ decision; by the history it does not (2 await one)"}}},
		{name: "listed out of order", history: h, final: list(3, 1), undrained: true,
			want: []want{{3, []uint64{6}, "the queue lists j3 as DLQ entry 1 awaiting a decision; the history's is j1"}}},
	})
}

// TestAgreeEffectsInOrder: agreeEffects, one by one against the applies.
func TestAgreeEffectsInOrder(t *testing.T) {
	h := cat(clean(1, 1, 1), clean(2, 2, 5))
	numbered := hist(h...)
	var applied []model.Effect // what a correct consumer lists: each apply, in order
	for _, e := range numbered {
		if e.Kind == model.EvApply && e.OK {
			applied = append(applied, model.Effect{EventID: e.EventID, Key: e.Key, Stage: e.Stage, Tenant: e.Tenant, Job: e.Job, At: e.At})
		}
	}
	final := func(edit func(fx []model.Effect) []model.Effect) Final {
		f := succeeded(1, 2)
		f.Effects, f.EffectsInOrder = edit(slices.Clone(applied)), true
		return f
	}
	same := func(fx []model.Effect) []model.Effect { return fx }
	seqOfApply := func(id model.EventID) uint64 {
		for _, e := range numbered {
			if e.Kind == model.EvApply && e.EventID == id {
				return e.Seq
			}
		}
		return 0
	}
	first, last := applied[0], applied[len(applied)-1]
	runTable(t, Consistency, []fixture{
		{name: "every apply, in order, at its time", history: h, final: final(same)},
		{name: "an effect stamped with another time", history: h,
			final: final(func(fx []model.Effect) []model.Effect { fx[0].At += ms; return fx }),
			want:  []want{{1, []uint64{seqOfApply(first.EventID)}, fmt.Sprintf("e1 applied at %s in the final state, at %s by the history", millis(first.At+ms), millis(first.At))}}},
		{name: "two effects listed out of order", history: h,
			final: final(func(fx []model.Effect) []model.Effect { fx[0], fx[1] = fx[1], fx[0]; return fx }),
			want:  []want{{1, []uint64{seqOfApply(first.EventID)}, "the consumer lists e2 as applied effect 1; the history's is e1"}}},
		{name: "the last effect missing", history: h,
			final: final(func(fx []model.Effect) []model.Effect { return fx[:len(fx)-1] }),
			want:  []want{{0, []uint64{seqOfApply(last.EventID)}, "the consumer lists 7 applied effects; the history applies e8 too"}}},
		{name: "an effect the history never applied", history: h,
			final: final(func(fx []model.Effect) []model.Effect { return append(fx, fx[0]) }),
			want:  []want{{1, nil, "the consumer lists e1 as applied effect 9; the history applies only 8"}}},
		{name: "an effect naming another row", history: h,
			final: final(func(fx []model.Effect) []model.Effect { fx[1].Stage = model.StageReview; return fx }),
			want:  []want{{1, []uint64{6, seqOfApply(applied[1].EventID)}, "the effect of e2 names j1 acme:d1:v1 stage=review in the final state, another row by the history"}}},
		{name: "an effect of another tenant", history: h,
			final: final(func(fx []model.Effect) []model.Effect { fx[2].Tenant = "globex"; return fx }),
			want:  []want{{1, []uint64{1, seqOfApply(applied[2].EventID)}, `the effect of e3 belongs to tenant "globex" in the final state, "acme" by the history`}}},
	})
}

func TestAgreeRegressions(t *testing.T) {
	h, f := richRun()
	retention := testCfg.Model.Retention
	pruned := hist(cat(h, one(at(h[len(h)-1].At+retention, prune(1, 1))))...)
	lease1 := seqOf(h, model.EvLease, 1)
	runRegressions(t, []regression{
		{bug: "agreeJob: every field's disagreement names the job's last event (here a consumer's apply), not the event that set the " +
			"field: the last lease for attempt, fence and lease end, the enqueue for identity, payload and deadline (or the redrive), " +
			"the retry or redrive for visible-at, the last advance or ack for the checkpoint, the last extraction for tokens",
			inv: Consistency, fixture: fixture{name: "an attempt disagreement names the lease", history: h,
				final: full(f, func(f *Final) { jobIn(f, 1).Attempt = 3 }),
				want:  []want{{1, []uint64{lease1}, "j1 attempt is 3 in the final state, 2 by the history"}}}},
		{bug: "agreeRows: a retired row (committed, published, marked, applied: every row of a drained run) is compared for its " +
			"publication only; its key, stage and job are never compared, so a row read back under another key passes",
			inv: Consistency, fixture: fixture{name: "a retired row under another key", history: h,
				final: full(f, func(f *Final) { f.Rows[0].Key = key(2) }),
				want:  []want{{1, []uint64{seqOfEvent(h, model.EvCommit, 1)}, "e1 is j1 acme:d2:v1 stage=ingest in the final state"}}}},
		{bug: "agreeRows: a row the history pruned but the final state keeps unpruned is reported with no event; the prune is in the history",
			inv: Consistency, fixture: fixture{name: "pruned by the history only names the prune", history: pruned, final: f,
				want: []want{{1, []uint64{uint64(len(pruned))}, "e1 pruned is false in the final state, true by the history"}}}},
		{bug: "agreeRows: a retired row read back unpublished is reported with no event; its publish and mark are in the history",
			inv: Consistency, fixture: fixture{name: "a retired row not published names its mark", history: h,
				final: full(f, func(f *Final) { f.Rows[0].Published = false }),
				want: []want{{1, []uint64{seqOfEvent(h, model.EvCommit, 1), seqOfEvent(h, model.EvMarkPublished, 1)},
					"e1 published is false in the final state, true by the history"}}}},
	})
}

// withRef is h with text (the worker's raw-error reference and schema
// paths) on its work failures.
func withRef(h []model.Event, text string) []model.Event {
	out := slices.Clone(h)
	for i := range out {
		if out[i].Kind == model.EvWorkFail {
			out[i].Text = text
		}
	}
	return out
}
