package chaos

import (
	"fmt"
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
		op := strings.TrimSuffix(strings.TrimPrefix(p.String(), "inside_"), "_after_stmt")
		ps = append(ps, Path{Name: "kill inside " + op, What: "kill lines at " + p.String(), N: count(func(e Entry) bool {
			return e.Op == OpKill && e.Point == p.String()
		}), NA: map[bool]string{true: noOp}[PointsOf(RoleOperator).Has(p)]})
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
	if r.AnyPaths {
		inv.NA = "-every-path=false"
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
	lines := map[string]int{}
	for _, e := range hist {
		if e.Op == OpKill {
			lines[e.Point]++
		}
	}
	points := AllPoints()
	if !r.Operator {
		points = slices.DeleteFunc(points, PointsOf(RoleOperator).Has)
	}
	for _, p := range points {
		if r.Kills[p] != lines[p.String()] {
			add(&inv, "%s: %d kills counted, %d kill lines", p, r.Kills[p], lines[p.String()])
		}
	}
	if r.Target < len(points) {
		inv.NA = fmt.Sprintf("-kills %d is below the %d points", r.Target, len(points))
		return inv
	}
	var missing []string
	for _, p := range points {
		if r.Kills[p] == 0 {
			missing = append(missing, p.String())
		}
	}
	if len(missing) > 0 {
		add(&inv, "no kill at %s", strings.Join(missing, ", "))
	}
	return inv
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
