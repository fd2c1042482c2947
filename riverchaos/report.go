package riverchaos

import (
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/target/rivertarget"
)

// Report is a finished River run: the workload's report, and River's
// leaders and the freezes that caught a handler inside JobCompleteTx's
// transaction.
type Report struct {
	*workload.Report
	KilledLead  bool
	Leaders     []string // each leadership term's client, as the orchestrator saw river_leader
	BadLeaders  []string // leaders that are not children (the orchestrator must never lead)
	LockFreezes int      // freezes of a child inside JobCompleteTx's transaction (its job's row locked)
}

// Describe is River's header, its leaders and lock freezes, and its
// check that every leader is a child.
func (a *adapter) Describe(r *workload.Report) {
	c := a.cfg
	r.Header = fmt.Sprintf("river chaos: River %s's real client (riverpgxv5) on PostgreSQL, design %s (%s), %d processes (%d never killed) × %d workers, seed %d",
		rivertarget.Version(), c.Design, c.Design.What(), c.Workers, c.Steady, c.Concurrency, c.Seed)
	electable := "the never-killed children only during the kill phase (the others LeaderElectionDisabled), all in the drain"
	if c.KilledLead {
		electable = "every child"
	}
	a.mu.Lock()
	leaders := slices.Clone(a.leaders)
	a.mu.Unlock()
	a.locks.mu.Lock()
	locked := a.locks.n
	a.locks.mu.Unlock()
	r.Notes = append(r.Notes, fmt.Sprintf("freezes inside JobCompleteTx's transaction (the job's row locked): %d", locked),
		fmt.Sprintf("leaders: %d terms, %s; electable: %s", len(leaders), leaderLine(leaders), electable))
	r.StateFrom = "the database (River's driver, JobGetByIDMany)"
	r.NotChecked = "the rescuer's and scheduler's writes are not in the histories"
	r.Checks = append(r.Checks, workload.Verdict{Check: "leaders-are-children", Failed: strings.Join(a.badLeaders(), ", ")})
}

// leaderLine names the leaders, at most eight.
func leaderLine(leaders []string) string {
	seen := slices.Clone(leaders)
	slices.Sort(seen)
	seen = slices.Compact(seen)
	s := fmt.Sprintf("%d clients", len(seen))
	if len(seen) > 8 {
		return s + " (" + strings.Join(seen[:8], ", ") + ", ...)"
	}
	return s + " (" + strings.Join(seen, ", ") + ")"
}

// isChildName reports whether s is a child's name (ProcName): w3, w3.12.
func isChildName(s string) bool {
	id, inc, dotted := strings.Cut(strings.TrimPrefix(s, "w"), ".")
	digits := func(d string) bool { return d != "" && strings.Trim(d, "0123456789") == "" }
	return strings.HasPrefix(s, "w") && digits(id) && (!dotted || digits(inc))
}
