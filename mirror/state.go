package mirror

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// ModelState is the model's durable state in the store's shape, every
// table ordered as [sqlstore.Store.State] orders it (by id).
func ModelState(sys *model.System) sqlstore.State {
	var st sqlstore.State
	sys.EachJob(func(j *model.Job) {
		st.Jobs = append(st.Jobs, sqlstore.JobRow{
			ID: j.ID, Tenant: j.Tenant, Key: j.Key, State: j.State, Attempt: j.Attempt, Fence: j.Fence,
			Stage: j.Stage, RedriveCount: j.RedriveCount, LastCode: j.LastCode, Origin: j.Origin,
		})
	})
	sys.EachRow(func(r *model.OutboxRow) {
		st.Rows = append(st.Rows, sqlstore.Row{
			EventID: r.EventID, Key: r.Key, Stage: r.Stage, Tenant: r.Tenant, Job: r.Job,
			CommittedAt: r.CommittedAt, Published: r.Published,
		})
	})
	for _, e := range sys.Effects() {
		st.Effects = append(st.Effects, sqlstore.EffectRow{EventID: e.EventID, Key: e.Key, Stage: e.Stage, Tenant: e.Tenant, Job: e.Job})
		st.Ledger = append(st.Ledger, e.EventID)
	}
	slices.Sort(st.Ledger)
	for _, env := range sys.DLQEntries() {
		st.DLQ = append(st.DLQ, sqlstore.DLQRow{Job: env.Job, Tenant: env.Tenant, Reason: env.Reason, Attempts: env.Attempts})
	}
	slices.SortFunc(st.DLQ, func(a, b sqlstore.DLQRow) int { return int(a.Job - b.Job) })
	for _, a := range sys.Audit() {
		st.Audit = append(st.Audit, sqlstore.AuditRow{Operator: a.Operator, Action: a.Action, Job: a.OldJob, NewJob: a.NewJob})
	}
	return st
}

// compareState is the end-of-seed check: nil when the tables agree.
func compareState(want, got sqlstore.State, backend string) error {
	d := cmp.Diff(want, got, cmpopts...)
	if d == "" {
		return nil
	}
	return fmt.Errorf("%s's tables differ from the model's (-model +%s): %s", backend, backend, oneLine(d))
}

// cmpopts treats nil and empty tables alike: a seed with no DLQ entry
// reads back an empty slice or none depending on the driver.
var cmpopts = []cmp.Option{cmp.Transformer("nilEmpty", func(xs []model.EventID) []model.EventID {
	if len(xs) == 0 {
		return nil
	}
	return xs
})}

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
