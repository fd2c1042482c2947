package riverchaos

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// Report is a finished run: what was done to the children, what the
// histories and the database say, and each check's verdict.
type Report struct {
	Design                    targetsim.Design
	Workers, Steady           int
	KilledLead                bool
	MaxWorkers                int
	Seed                      uint64
	Target                    int // -kills
	Points                    []boundary.Boundary
	Kills                     map[boundary.Boundary]int
	Restarts                  int
	HardStops                 int // children SIGKILLed after a stop timed out (their last lines may be lost)
	Pauses                    int // SIGSTOPs
	Takeovers                 int // freezes that ended after another client fetched the frozen child's job
	MaxFreezes                int // freezes that ended at MaxFreeze, no takeover
	StopFreezes               int // freezes that ended with the kill phase
	LockFreezes               int // freezes of a child inside JobCompleteTx's transaction (its job's row locked)
	Inserts, Skipped          int
	Leaders                   []string // each leadership term's client, as the orchestrator saw river_leader
	KillPhase, DrainPhase     time.Duration
	DrainLimit                time.Duration
	Drained                   bool
	Elapsed                   time.Duration
	Dir                       string // the histories, when kept
	Lines                     map[string]int
	KillLines                 map[string]int // kill lines by point, from the histories
	Jobs                      map[target.State]int
	Effects, CompletedDocs    int
	DuplicateDocs, OrphanDocs int // documents with more than one effect; with an effect but no completed job
	Exposures                 []invariants.Exposure
	ZombieWrites              int // exposures whose later op is an effect, JobCompleteTx or a commit
	Violations                []invariants.Violation
	BadLeaders                []string // leaders that are not children (the orchestrator must never lead)
	checkNames                []string
}

// OK reports whether every check held.
func (r *Report) OK() bool { return len(r.Violations) == 0 && len(r.BadLeaders) == 0 }

// check fills the report from the histories and the state read back,
// running the partial target checks.
func check(rep *Report, lines []Entry, snap target.Snapshot, base int64) {
	rep.tally(lines, snap)
	ops := toOps(lines, base)
	// Every design is held to one effect per document, as targetsim holds
	// it: the naive ones are there to be caught. The drain window has
	// passed whether or not every job finished in it, so target-drained
	// names what is left.
	//
	// The histories are partial: a kill may cut any line off but the
	// orchestrator's inserts, River's maintenance and completer record
	// nothing, and no operator retries (so every retry is recorded: none);
	// the handlers return nil or an error, never JobSnooze or JobCancel.
	// What River promises is River's rules (its timing is not checked).
	feed := invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry},
		Outcomes: []target.Outcome{target.Done, target.Errored}, Drained: true, ExactlyOnce: true,
		EffectKinds: []string{targetsim.KindDoc}, Transactional: transactional(rep.Design), Policy: rivertarget.Rules()}
	tr := invariants.CheckTarget(ops, snap, feed)
	rep.Violations, rep.Exposures, rep.checkNames = tr.Violations, tr.Exposures, tr.Checked
	rep.ZombieWrites = zombieWrites(ops, tr.Exposures)
	for _, l := range rep.Leaders {
		if !isChildName(l) {
			rep.BadLeaders = append(rep.BadLeaders, l)
		}
	}
}

// tally counts the history lines by op, the kill lines by point, the
// jobs by state and the effects.
func (r *Report) tally(lines []Entry, snap target.Snapshot) {
	r.Lines, r.KillLines, r.Jobs = map[string]int{}, map[string]int{}, map[target.State]int{}
	for _, e := range lines {
		r.Lines[e.Op]++
		if e.Op == OpRollback && e.Err == "stale_completion" {
			r.Lines["stale_completion"]++
		}
		if e.Op == OpKill {
			r.KillLines[e.Point]++
		}
	}
	for _, j := range snap.Jobs {
		r.Jobs[j.State]++
	}
	r.Effects = len(snap.Effects)
	r.countDocs(snap)
}

// zombieWrites counts the exposures whose proving op (the first worker's
// op after the second's fetch) is a write: an effect, JobCompleteTx or a
// commit.
func zombieWrites(ops []invariants.TargetOp, xs []invariants.Exposure) int {
	kinds := map[uint64]target.OpKind{}
	for _, o := range ops {
		kinds[o.Op.Seq] = o.Op.Kind
	}
	n := 0
	for _, x := range xs {
		if k := kinds[x.Ops[len(x.Ops)-1]]; k == target.OpEffect || k == target.OpComplete || k == target.OpCommit {
			n++
		}
	}
	return n
}

// countDocs counts the documents that completed, that have more than one
// effect, and that have an effect but no completed job.
func (r *Report) countDocs(snap target.Snapshot) {
	args := map[target.JobID]target.Args{}
	done := map[target.Args]bool{}
	for _, j := range snap.Jobs {
		args[j.ID] = j.Args
		if j.State == target.Completed {
			done[j.Args] = true
		}
	}
	effects := map[target.Args]int{}
	for _, e := range snap.Effects {
		effects[args[e.Job]]++
	}
	r.CompletedDocs = len(done)
	for a, n := range effects {
		if n > 1 {
			r.DuplicateDocs++
		}
		if !done[a] {
			r.OrphanDocs++
		}
	}
}

// Print writes the report. Its times are wall-clock: a run is not
// reproducible to the millisecond.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "river chaos: River %s's real client (riverpgxv5) on PostgreSQL, design %s (%s), %d processes (%d never killed) × %d workers, seed %d\n",
		rivertarget.Version(), r.Design, r.Design.What(), r.Workers, r.Steady, r.MaxWorkers, r.Seed)
	fmt.Fprintf(w, "\n%-16s %6s\n", "kill point", "kills")
	total := 0
	for _, p := range r.Points {
		fmt.Fprintf(w, "%-16s %6d\n", p, r.Kills[p])
		total += r.Kills[p]
	}
	fmt.Fprintf(w, "%-16s %6d (target %d)\n", "total", total, r.Target)
	fmt.Fprintf(w, "\nrestarts %d, hard stops %d\n", r.Restarts, r.HardStops)
	fmt.Fprintf(w, "SIGSTOPs %d: %d thawed after another client took the job over (a zombie), %d at the freeze limit, %d at the kill phase's end; %d froze a handler inside JobCompleteTx's transaction (the job's row locked)\n",
		r.Pauses, r.Takeovers, r.MaxFreezes, r.StopFreezes, r.LockFreezes)
	electable := "the never-killed children only during the kill phase (the others LeaderElectionDisabled), all in the drain"
	if r.KilledLead {
		electable = "every child"
	}
	fmt.Fprintf(w, "leaders: %d terms, %s; electable: %s\n", len(r.Leaders), r.leaderLine(), electable)
	fmt.Fprintf(w, "inserts: %d (%d skipped as duplicates by River's unique args)\n", r.Inserts, r.Skipped)
	fmt.Fprintf(w, "jobs: %s\n", r.jobLine())
	fmt.Fprintf(w, "effects: %d rows; documents completed %d, with more than one effect %d, with an effect but no completed job %d\n", r.Effects,
		r.CompletedDocs, r.DuplicateDocs, r.OrphanDocs)
	fmt.Fprintf(w, "handler lines: fetches %d, effects %d, JobCompleteTx %d, commits %d, rollbacks %d (stale completions %d), commit errors %d, timeouts %d, errors %d\n",
		r.Lines[OpFetch], r.Lines[OpEffect], r.Lines[OpComplete], r.Lines[OpCommit], r.Lines[OpRollback], r.Lines["stale_completion"],
		r.Lines[OpUnknown], r.Lines[OpTimeout], r.Lines[OpError])
	fmt.Fprintf(w, "exposures (two processes working one job at once, at-least-once): %d, of which the first wrote after the second's fetch: %d\n",
		len(r.Exposures), r.ZombieWrites)
	drained := "drained"
	if !r.Drained {
		drained = "NOT drained"
	}
	fmt.Fprintf(w, "kill phase %v, drain %v (limit %v): %s; total %v\n", r.KillPhase.Round(time.Millisecond), r.DrainPhase.Round(time.Millisecond),
		r.DrainLimit, drained, r.Elapsed.Round(time.Millisecond))
	r.printChecks(w)
	if r.Dir != "" {
		fmt.Fprintf(w, "histories and logs kept in %s\n", r.Dir)
	}
}

func (r *Report) printChecks(w io.Writer) {
	fmt.Fprintf(w, "\nchecks: invariants.CheckTarget over the histories (a partial feed) and the database\n")
	fmt.Fprintf(w, "%-26s %s\n", "check", "verdict")
	for _, name := range r.checkNames {
		n := 0
		for _, v := range r.Violations {
			if v.Invariant == name {
				n++
			}
		}
		verdict := "holds"
		if n > 0 {
			verdict = fmt.Sprintf("VIOLATED (%d)", n)
		}
		fmt.Fprintf(w, "%-26s %s\n", name, verdict)
	}
	leaders := "holds"
	if len(r.BadLeaders) > 0 {
		leaders = "VIOLATED: " + strings.Join(r.BadLeaders, ", ")
	}
	fmt.Fprintf(w, "%-26s %s\n", "leaders-are-children", leaders)
	fmt.Fprintf(w, "%-26s %s\n", "target-retry-timing", "not checked (the rescuer's and scheduler's writes are not in the histories)")
	if len(r.Violations) == 0 {
		return
	}
	fmt.Fprintf(w, "\nviolations (events are history op numbers, in T1 order):\n")
	for i, v := range r.Violations {
		if i == 20 {
			fmt.Fprintf(w, "  ... and %d more\n", len(r.Violations)-20)
			break
		}
		fmt.Fprintf(w, "  %s\n", v)
	}
}

// leaderLine names the leaders, at most eight.
func (r *Report) leaderLine() string {
	seen := slices.Clone(r.Leaders)
	slices.Sort(seen)
	seen = slices.Compact(seen)
	s := fmt.Sprintf("%d clients", len(seen))
	if len(seen) > 8 {
		return s + " (" + strings.Join(seen[:8], ", ") + ", ...)"
	}
	return s + " (" + strings.Join(seen, ", ") + ")"
}

func (r *Report) jobLine() string {
	var parts []string
	for _, st := range target.States() {
		if n := r.Jobs[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// isChildName reports whether s is a child's name (ProcName): w3, w3.12.
func isChildName(s string) bool {
	id, inc, dotted := strings.Cut(strings.TrimPrefix(s, "w"), ".")
	digits := func(d string) bool { return d != "" && strings.Trim(d, "0123456789") == "" }
	return strings.HasPrefix(s, "w") && digits(id) && (!dotted || digits(inc))
}
