package mirror

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// ModelState is the model's durable state in the store's shape, every
// column of every table, each table ordered as [sqlstore.Store.State]
// orders it.
func ModelState(sys *model.System) sqlstore.State {
	var st sqlstore.State
	sys.EachJob(func(j *model.Job) {
		row := sqlstore.JobRow{
			ID: j.ID, Tenant: j.Tenant, Key: j.Key, Document: j.Document, Version: j.Version, PayloadHash: j.PayloadHash,
			State: j.State, Attempt: j.Attempt, MaxAttempts: j.MaxAttempts, Fence: j.Fence, Stage: j.Stage,
			RedriveCount: j.RedriveCount, LastCode: j.LastCode, Origin: j.Origin,
			CreatedAt: j.CreatedAt, VisibleAt: j.VisibleAt, LeaseUntil: j.LeaseUntil, DeadlineAt: j.DeadlineAt,
		}
		if j.Holder.Role != model.RoleNone {
			row.Holder = j.Holder.String()
		}
		row.ReadyAt = j.VisibleAt
		if j.State == model.Leased {
			row.ReadyAt = j.LeaseUntil
		}
		st.Jobs = append(st.Jobs, row)
	})
	sys.EachRow(func(r *model.OutboxRow) {
		st.Rows = append(st.Rows, sqlstore.Row{
			EventID: r.EventID, Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job,
			CommittedAt: r.CommittedAt, Published: r.Published, PublishedAt: r.PublishedAt,
		})
	})
	for _, r := range sys.Results() {
		st.Results = append(st.Results, sqlstore.ResultRow{Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job,
			PayloadHash: r.PayloadHash, Value: r.Value, EventID: r.EventID})
	}
	for id := int64(1); id <= int64(sys.Messages()); id++ {
		m, _ := sys.Message(id)
		st.Broker = append(st.Broker, sqlstore.BrokerRow{ID: m.ID, Event: m.Event, PublishedAt: m.PublishedAt, Deliveries: m.Deliveries, Acked: m.Acked})
	}
	for _, e := range sys.Effects() {
		st.Effects = append(st.Effects, sqlstore.EffectRow{EventID: e.EventID, Key: e.Key, Stage: e.Stage, Tenant: e.Tenant, Job: e.Job, At: e.At})
		st.Ledger = append(st.Ledger, sqlstore.LedgerRow{Event: e.EventID, At: e.At})
	}
	slices.SortFunc(st.Ledger, func(a, b sqlstore.LedgerRow) int { return int(a.Event - b.Event) })
	for _, env := range sys.DLQEntries() {
		st.DLQ = append(st.DLQ, sqlstore.DLQRow{Job: env.Job, Tenant: env.Tenant, Reason: env.Reason, Attempts: env.Attempts,
			RedriveCount: env.RedriveCount, At: env.WrittenAt})
	}
	slices.SortFunc(st.DLQ, func(a, b sqlstore.DLQRow) int { return int(a.Job - b.Job) })
	for _, a := range sys.Audit() {
		st.Audit = append(st.Audit, sqlstore.AuditRow{Operator: a.Operator, Action: a.Action, Job: a.OldJob, NewJob: a.NewJob, At: a.At})
	}
	st.Fence = sys.LastFence()
	return st
}

// compareState is the end-of-seed check: nil when the tables agree.
func compareState(want, got sqlstore.State, backend string) error {
	finalReadyAt(want.Jobs)
	finalReadyAt(got.Jobs)
	d := cmp.Diff(want, got, diffOptions...)
	if d == "" {
		return nil
	}
	return fmt.Errorf("%s's tables differ from the model's (-model +%s): %s", backend, backend, oneLine(d))
}

// finalReadyAt zeroes ready_at of the jobs in a final state: it is the
// lease query's key, which no query reads once a job is final (the store
// leaves the last one it set, the model has none).
func finalReadyAt(jobs []sqlstore.JobRow) {
	for i := range jobs {
		if jobs[i].State.Terminal() {
			jobs[i].ReadyAt = 0
		}
	}
}

// diffOptions treats nil and empty tables alike: a seed with no DLQ entry
// reads back an empty slice or none depending on the driver.
var diffOptions = []cmp.Option{cmpopts.EquateEmpty()}

// oneLine keeps a diff on one line for the violation message (cmp pads
// with non-breaking spaces, which Fields splits on too), at most a
// screenful.
func oneLine(d string) string {
	s := strings.Join(strings.Fields(d), " ")
	if len(s) > 2000 {
		s = s[:2000] + " ..."
	}
	return s
}
