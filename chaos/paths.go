package chaos

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/durasim/durasim/model"
)

// paths counts, from the histories and the final state, how often the run
// took each path through the store's SQL.
func paths(r *Report, ix *index) []Path {
	lines := map[string]int{}
	for _, e := range ix.hist {
		lines[e.Op]++
	}
	count := func(ok func(Entry) bool) int {
		n := 0
		for _, e := range ix.hist {
			n += b2i(ok(e))
		}
		return n
	}
	var cancelAtLease, cancelAtRetry, redrives, reprocesses int
	for _, j := range ix.st.Jobs {
		if j.State == model.Cancelled {
			if len(ix.lines(int64(j.ID), OpCancel)) > 0 {
				cancelAtRetry++
			} else {
				cancelAtLease++
			}
		}
		redrives += int(j.RedriveCount)
		reprocesses += b2i(j.Origin != 0)
	}
	dlq := map[model.Code]int{}
	for _, d := range ix.st.DLQ {
		dlq[d.Reason]++
	}
	noOp := ""
	if !r.Operator {
		noOp = "no operator"
	}
	ps := []Path{
		{Name: "zombie write refused (fenced)", What: "fenced lines", N: lines[OpFenced]},
		{Name: "heartbeat", What: "beat lines", N: lines[OpBeat]},
		{Name: "retry", What: "retry lines", N: lines[OpRetry]},
		{Name: "cancel at lease (deadline passed)", What: "cancelled jobs without a cancel line", N: cancelAtLease},
		{Name: "cancel at retry (deadline reached)", What: "cancelled jobs with a cancel line", N: cancelAtRetry},
		{Name: "dead for max attempts (at lease)", What: "DLQ rows max_attempts_exceeded", N: dlq[model.CodeMaxAttemptsExceeded]},
		{Name: "dead poison", What: "DLQ rows poison_schema", N: dlq[model.CodePoisonSchema]},
		{Name: "redrive", What: "jobs' redrive counts", N: redrives, NA: noOp},
		{Name: "reprocess", What: "jobs with an origin", N: reprocesses, NA: noOp},
		{Name: "idempotency conflict refused", What: "conflict lines refused", N: count(func(e Entry) bool {
			return e.Op == OpConflict && e.Err == ""
		}), NA: noOp},
		{Name: "resubmission deduplicated", What: "resubmit lines given the key's job", N: count(func(e Entry) bool {
			js := ix.byKey[e.Key]
			return e.Op == OpResubmit && e.Deduped && e.Err == "" && len(js) == 1 && int64(js[0].ID) == e.Job
		}), NA: noOp},
		{Name: "commit deduplicated", What: "commit lines deduped", N: r.DedupedCommits},
		{Name: "concurrent duplicate delivery refused", What: "refusals overlapping another consumer's apply", N: concurrentDuplicates(ix.hist)},
	}
	for _, p := range InsidePoints() {
		op := strings.TrimSuffix(strings.TrimPrefix(string(p), "inside_"), "_after_stmt")
		ps = append(ps, Path{Name: "kill inside " + op, What: "kill lines at " + string(p), N: count(func(e Entry) bool {
			return e.Op == OpKill && e.Point == string(p)
		}), NA: map[bool]string{true: noOp}[p == InsideRedrive || p == InsideEnqueue]})
	}
	return ps
}

// concurrentDuplicates counts the deliveries the ledger refused while
// another consumer was applying the same event: the two calls overlap in
// time and the other one applied it.
func concurrentDuplicates(hist []Entry) int {
	applied := map[int64][]Entry{}
	for _, e := range hist {
		if e.Op == OpApply && e.Applied {
			applied[e.Event] = append(applied[e.Event], e)
		}
	}
	n := 0
	for _, e := range hist {
		if e.Op != OpApply || e.Applied {
			continue
		}
		for _, a := range applied[e.Event] {
			if slot(a.Proc) != slot(e.Proc) && a.T0 <= e.T1 && e.T0 <= a.T1 {
				n++
				break
			}
		}
	}
	return n
}

// slot is a process name without its incarnation: consumer1.4 → consumer1.
func slot(proc string) string {
	s, _, _ := strings.Cut(proc, ".")
	return s
}

// everyPath fails the run when a path was never taken: the workload did
// not reach part of the store's SQL.
func everyPath(r *Report) Invariant {
	inv := Invariant{Name: InvEveryPath}
	if r.Target < len(AllPoints()) {
		inv.NA = fmt.Sprintf("-kills %d is below the %d points", r.Target, len(AllPoints()))
		return inv
	}
	var missing []string
	for _, p := range r.Paths {
		if p.NA == "" && p.N == 0 {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		add(&inv, "never taken: %s", strings.Join(missing, ", "))
	}
	return inv
}

// everyPoint: every kill point received a kill, and each counted kill is
// a kill line in a history (the process said where it was when it died).
func everyPoint(r *Report, hist []Entry) Invariant {
	inv := Invariant{Name: InvEveryPointKilled}
	lines := map[Point]int{}
	for _, e := range hist {
		if e.Op == OpKill {
			lines[Point(e.Point)]++
		}
	}
	points := AllPoints()
	if !r.Operator {
		points = slices.DeleteFunc(points, func(p Point) bool { return slices.Contains(PointsOf(RoleOperator), p) })
	}
	for _, p := range points {
		if r.Kills[p] != lines[p] {
			add(&inv, "%s: %d kills counted, %d kill lines", p, r.Kills[p], lines[p])
		}
	}
	if r.Target < len(points) {
		inv.NA = fmt.Sprintf("-kills %d is below the %d points", r.Target, len(points))
		return inv
	}
	var missing []string
	for _, p := range points {
		if r.Kills[p] == 0 {
			missing = append(missing, string(p))
		}
	}
	if len(missing) > 0 {
		add(&inv, "no kill at %s", strings.Join(missing, ", "))
	}
	return inv
}

// liveness: once the drain is over, no job is live, every row is
// published, every event applied and (with the operator) nothing waits
// for the operator. A violation says what is left and where the
// consumers stand.
func liveness(r *Report, ix *index) Invariant {
	inv := Invariant{Name: InvLiveness}
	live := map[model.State][]model.JobID{}
	for _, j := range ix.st.Jobs {
		if j.State == model.Pending || j.State == model.Leased || j.State == model.RetryWait {
			live[j.State] = append(live[j.State], j.ID)
		}
	}
	for _, s := range slices.SortedFunc(maps.Keys(live), func(a, b model.State) int { return cmp.Compare(a, b) }) {
		add(&inv, "%d jobs %s: %s", len(live[s]), s, some(live[s]))
	}
	var unpub, unapplied []model.EventID
	for _, row := range ix.st.Rows {
		if !row.Published {
			unpub = append(unpub, row.EventID)
		}
		if ix.ledger[row.EventID] == 0 {
			unapplied = append(unapplied, row.EventID)
		}
	}
	if len(unpub) > 0 {
		add(&inv, "%d outbox rows unpublished: %s", len(unpub), some(unpub))
	}
	if len(unapplied) > 0 {
		add(&inv, "%d events unapplied: %s", len(unapplied), some(unapplied))
	}
	if r.Operator {
		operatorLeft(&inv, ix)
	}
	if len(inv.Violations) > 0 {
		var last int64
		for _, m := range ix.x.Broker {
			last = max(last, m.ID)
		}
		var cs []string
		for _, c := range slices.Sorted(maps.Keys(r.Cursors)) {
			cs = append(cs, fmt.Sprintf("%s at message %d", c, r.Cursors[c]))
		}
		add(&inv, "consumers: %s; the broker's last message is %d", strings.Join(cs, ", "), last)
	}
	if !r.Drained && r.DrainLimit > 0 {
		add(&inv, "not drained within -drain %v", r.DrainLimit)
	}
	return inv
}

// operatorLeft adds what the operator left undone: jobs dead for max
// attempts not redriven, poison jobs of version 1 not reprocessed,
// redrives without their audit row.
func operatorLeft(inv *Invariant, ix *index) {
	reprocessed := map[model.JobID]bool{}
	audits := map[model.JobID]int{}
	for _, j := range ix.st.Jobs {
		reprocessed[j.Origin] = true
	}
	for _, a := range ix.st.Audit {
		if a.Action == "redrive" {
			audits[a.Job]++
		}
	}
	var redrive, reprocess, audit []model.JobID
	for _, j := range ix.st.Jobs {
		d := ix.dlq[j.ID]
		switch {
		case j.State == model.Dead && d.Reason == model.CodeMaxAttemptsExceeded:
			redrive = append(redrive, j.ID)
		case j.State == model.Dead && d.Reason == model.CodePoisonSchema && j.Version == 1 && !reprocessed[j.ID]:
			reprocess = append(reprocess, j.ID)
		}
		if audits[j.ID] < int(j.RedriveCount) {
			audit = append(audit, j.ID)
		}
	}
	for _, l := range []struct {
		ids  []model.JobID
		what string
	}{{redrive, "dead for max attempts, never redriven"}, {reprocess, "poison, never reprocessed"}, {audit, "redriven without an audit row"}} {
		if len(l.ids) > 0 {
			add(inv, "%d jobs %s: %s", len(l.ids), l.what, some(l.ids))
		}
	}
}

// some prints the first few ids of a list.
func some[T any](ids []T) string {
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

func sortedKeys[V any](m map[int64]V) []int64 { return slices.Sorted(maps.Keys(m)) }
