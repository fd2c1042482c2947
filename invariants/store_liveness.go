package invariants

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/model"
)

// checkDrained is the store's liveness: once the run says it drained, no
// job is live, every outbox row is published and applied, and every
// redrive has its audit row. Each reason is named, with the first ids.
func checkDrained(ix *storeIndex, v *storeViolations) {
	if !ix.feed.Drained {
		return
	}
	var pending, leased, waiting, audit []model.JobID
	redriveAudits := map[model.JobID]int{}
	for _, a := range ix.st.Audit {
		if a.Action == "redrive" {
			redriveAudits[a.OldJob]++
		}
	}
	for _, j := range ix.st.Jobs {
		switch j.State {
		case model.Pending:
			pending = append(pending, j.ID)
		case model.Leased:
			leased = append(leased, j.ID)
		case model.RetryWait:
			waiting = append(waiting, j.ID)
		}
		if redriveAudits[j.ID] < int(j.RedriveCount) {
			audit = append(audit, j.ID)
		}
	}
	var unpub, unapplied []model.EventID
	for _, r := range ix.st.Outbox {
		if !r.Published {
			unpub = append(unpub, r.EventID)
		}
		if ix.ledger[r.EventID] == 0 {
			unapplied = append(unapplied, r.EventID)
		}
	}
	for _, l := range []struct {
		what string
		ids  []model.JobID
	}{{"jobs " + model.Pending.String(), pending}, {"jobs " + model.Leased.String(), leased}, {"jobs " + model.RetryWait.String(), waiting},
		{"jobs redriven without an audit row", audit}} {
		if len(l.ids) > 0 {
			v.add(0, fmt.Sprintf("%d %s: %s", len(l.ids), l.what, FirstFew(l.ids)))
		}
	}
	if len(unpub) > 0 {
		v.add(0, fmt.Sprintf("%d outbox rows unpublished: %s", len(unpub), FirstFew(unpub)))
	}
	if len(unapplied) > 0 {
		v.add(0, fmt.Sprintf("%d events unapplied: %s", len(unapplied), FirstFew(unapplied)))
	}
}

// FirstFew prints the first five ids of a list, and how many more.
func FirstFew[T any](ids []T) string {
	var s []string
	for i, id := range ids {
		if i == 5 {
			s = append(s, fmt.Sprintf("... %d more", len(ids)-5))
			break
		}
		s = append(s, fmt.Sprint(id))
	}
	return strings.Join(s, ", ")
}
