package sqlfeed

import (
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Store is st, table by table, as the store checks read it.
func Store(st sqlstore.State) invariants.Store {
	out := invariants.Store{
		Jobs:    make([]invariants.StoreJob, 0, len(st.Jobs)),
		Outbox:  make([]model.OutboxRow, 0, len(st.Rows)),
		Results: make([]model.Result, 0, len(st.Results)),
		Broker:  make([]model.Message, 0, len(st.Broker)),
		Ledger:  make([]model.EventID, 0, len(st.Ledger)),
		Effects: make([]model.Effect, 0, len(st.Effects)),
		DLQ:     make([]invariants.StoreDLQ, 0, len(st.DLQ)),
		Audit:   make([]model.AuditEntry, 0, len(st.Audit)),
	}
	for _, j := range st.Jobs {
		out.Jobs = append(out.Jobs, invariants.StoreJob{
			ID: j.ID, Tenant: j.Tenant, Key: j.Key, Document: j.Document, Version: j.Version, PayloadHash: j.PayloadHash,
			State: j.State, Attempt: j.Attempt, MaxAttempts: j.MaxAttempts, Fence: j.Fence, Stage: j.Stage,
			RedriveCount: j.RedriveCount, LastCode: j.LastCode, Origin: j.Origin, VisibleAt: j.VisibleAt, DeadlineAt: j.DeadlineAt,
		})
	}
	for _, r := range st.Rows {
		out.Outbox = append(out.Outbox, model.OutboxRow{EventID: r.EventID, Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job,
			CommittedAt: r.CommittedAt, Published: r.Published, PublishedAt: r.PublishedAt})
	}
	for _, r := range st.Results {
		out.Results = append(out.Results, model.Result{Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job,
			PayloadHash: r.PayloadHash, Value: r.Value, EventID: r.EventID})
	}
	for _, m := range st.Broker {
		out.Broker = append(out.Broker, model.Message{ID: m.ID, Event: m.Event, PublishedAt: m.PublishedAt, Deliveries: m.Deliveries, Acked: m.Acked})
	}
	for _, l := range st.Ledger {
		out.Ledger = append(out.Ledger, l.Event)
	}
	for _, e := range st.Effects {
		out.Effects = append(out.Effects, model.Effect{EventID: e.EventID, Key: e.Key, Stage: e.Stage, Tenant: e.Tenant, Job: e.Job, At: e.At})
	}
	for _, d := range st.DLQ {
		out.DLQ = append(out.DLQ, invariants.StoreDLQ{Job: d.Job, Reason: d.Reason, Attempts: d.Attempts, At: d.At})
	}
	for _, a := range st.Audit {
		out.Audit = append(out.Audit, model.AuditEntry{Action: a.Action, OldJob: a.Job, NewJob: a.NewJob, Operator: a.Operator, At: a.At})
	}
	return out
}
