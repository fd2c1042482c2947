package workload

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// Report is a finished run: what was done to the children, what the
// histories and the state read back say, and each check's verdict. The
// library's adapter adds its own lines and checks (Describe).
type Report struct {
	Lib                    string
	Header                 string   // the first line: the library, its release, what runs where
	Intro                  []string // the library's lines before the kill points (asynq's clock faults)
	Notes                  []string // the library's lines after the freezes (River's leaders)
	StateFrom              string   // where the final state was read: "River's driver and the database"
	NotChecked             string   // why target-retry-timing is not checked
	Design                 targetsim.Design
	Workers, Steady        int
	Concurrency            int
	Seed                   uint64
	Target                 int // -kills
	Points                 []boundary.Boundary
	Kills                  map[boundary.Boundary]int
	Restarts, HardStops    int // hard stops: children SIGKILLed after a stop timed out (their last lines may be lost)
	Pauses, Takeovers      int // SIGSTOPs; those thawed after another child fetched the frozen one's job
	MaxFreezes             int // freezes that ended at MaxFreeze, no takeover
	StopFreezes            int // freezes that ended with the kill phase
	Inserts, Skipped       int
	Unique                 bool // the library refuses a duplicate insert (Skipped counts them)
	KillPhase, DrainPhase  time.Duration
	DrainDelay, DrainLimit time.Duration
	Drained                bool
	Elapsed                time.Duration
	Dir                    string // the histories, when kept
	Zones                  []string
	Lines                  map[string]int
	KillLines              map[string]int // kill lines by point, from the histories
	Jobs                   map[target.State]int
	Effects, CompletedDocs int
	// DuplicateDocs have more than one effect; MissingDocs completed with
	// none; OrphanDocs have an effect but no completed job.
	DuplicateDocs, MissingDocs, OrphanDocs int
	Exposures                              []invariants.Exposure
	ZombieWrites                           int // exposures whose later op is an effect, a completion or a commit
	Violations                             []invariants.Violation
	Checked                                []string
	Checks                                 []Verdict // the library's own checks
}

// Verdict is one of a library's own checks: its name, and what failed
// ("" holds).
type Verdict struct{ Check, Failed string }

// OK reports whether every check held.
func (r *Report) OK() bool {
	return len(r.Violations) == 0 && !slices.ContainsFunc(r.Checks, func(v Verdict) bool { return v.Failed != "" })
}

// TotalKills is the kills at every point.
func (r *Report) TotalKills() int {
	n := 0
	for _, p := range r.Points {
		n += r.Kills[p]
	}
	return n
}

// check fills the report from the histories and the state read back,
// running the partial target checks.
func (r *Report) check(lines []Entry, snap target.Snapshot, base int64, feed invariants.TargetFeed) {
	r.tally(lines, snap)
	ops := ToOps(lines, base)
	tr := invariants.CheckTarget(ops, snap, feed)
	r.Violations, r.Exposures, r.Checked = tr.Violations, tr.Exposures, tr.Checked
	kinds := map[uint64]target.OpKind{}
	for _, o := range ops {
		kinds[o.Op.Seq] = o.Op.Kind
	}
	for _, x := range tr.Exposures {
		if k := kinds[x.Ops[len(x.Ops)-1]]; k == target.OpEffect || k == target.OpComplete || k == target.OpCommit {
			r.ZombieWrites++
		}
	}
}

// tally counts the lines by op, the kill lines by point, the children's
// time zones, the jobs by state and the documents' effects.
func (r *Report) tally(lines []Entry, snap target.Snapshot) {
	r.Lines, r.KillLines, r.Jobs = map[string]int{}, map[string]int{}, map[target.State]int{}
	for _, e := range lines {
		r.Lines[e.Op]++
		switch {
		case e.Op == OpRollback && e.Err == "stale_completion":
			r.Lines["stale_completion"]++
		case e.Op == OpKill:
			r.KillLines[e.Point]++
		case e.Op == OpStart && e.Zone != "" && !slices.Contains(r.Zones, e.Zone):
			r.Zones = append(r.Zones, e.Zone)
		}
	}
	slices.Sort(r.Zones)
	args := map[target.JobID]target.Args{}
	done := map[target.Args]bool{}
	for _, j := range snap.Jobs {
		r.Jobs[j.State]++
		args[j.ID] = j.Args
		if j.State == target.Completed {
			done[j.Args] = true
		}
	}
	r.Effects = len(snap.Effects)
	effects := map[target.Args]int{}
	for _, e := range snap.Effects {
		effects[args[e.Job]]++
	}
	r.CompletedDocs = len(done)
	for a := range done { //det:sorted (counts only)
		if effects[a] == 0 {
			r.MissingDocs++
		}
	}
	for a, n := range effects { //det:sorted (counts only)
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
	fmt.Fprintln(w, r.Header)
	for _, l := range r.Intro {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "\n%-16s %6s\n", "kill point", "kills")
	for _, p := range r.Points {
		fmt.Fprintf(w, "%-16s %6d\n", p, r.Kills[p])
	}
	total := r.TotalKills()
	fmt.Fprintf(w, "%-16s %6d (target %d)\n", "total", total, r.Target)
	if m := r.KillPhase.Minutes(); m > 0 {
		fmt.Fprintf(w, "kills per minute of the kill phase: %.1f\n", float64(total)/m)
	}
	fmt.Fprintf(w, "\nrestarts %d, hard stops %d\n", r.Restarts, r.HardStops)
	fmt.Fprintf(w, "SIGSTOPs %d: %d thawed after %s handed the job to another process (a zombie), %d at the freeze limit, %d at the kill phase's end\n",
		r.Pauses, r.Takeovers, r.Lib, r.MaxFreezes, r.StopFreezes)
	for _, l := range r.Notes {
		fmt.Fprintln(w, l)
	}
	refused := fmt.Sprintf("%d refused by %s as duplicates", r.Skipped, r.Lib)
	if !r.Unique {
		refused = r.Lib + " has no unique insert: each document inserted once"
	}
	fmt.Fprintf(w, "inserts: %d (%s)\n", r.Inserts, refused)
	fmt.Fprintf(w, "jobs: %s\n", r.jobLine())
	fmt.Fprintf(w, "effects: %d rows; documents completed %d, with more than one effect %d, completed with none %d, with an effect but no completed job %d\n",
		r.Effects, r.CompletedDocs, r.DuplicateDocs, r.MissingDocs, r.OrphanDocs)
	fmt.Fprintf(w, "handler lines: fetches %d, effects %d, completions in tx %d, commits %d, rollbacks %d (stale completions %d), commit errors %d, timeouts %d, errors %d\n",
		r.Lines[OpFetch], r.Lines[OpEffect], r.Lines[OpComplete], r.Lines[OpCommit], r.Lines[OpRollback], r.Lines["stale_completion"],
		r.Lines[OpUnknown], r.Lines[OpTimeout], r.Lines[OpError])
	fmt.Fprintf(w, "exposures (two processes working one job at once, at-least-once): %d, of which the first wrote after the second's fetch: %d\n",
		len(r.Exposures), r.ZombieWrites)
	drained := "drained"
	if !r.Drained {
		drained = "NOT drained"
	}
	fmt.Fprintf(w, "kill phase %v, drain %v (its first %v a wait for the dead children's jobs to come back; limit %v after it): %s; total %v\n",
		r.KillPhase.Round(time.Millisecond), r.DrainPhase.Round(time.Millisecond), r.DrainDelay, r.DrainLimit, drained, r.Elapsed.Round(time.Millisecond))
	r.printChecks(w)
	if r.Dir != "" {
		fmt.Fprintf(w, "histories and logs kept in %s\n", r.Dir)
	}
}

func (r *Report) printChecks(w io.Writer) {
	fmt.Fprintf(w, "\nchecks: invariants.CheckTarget over the histories (a partial feed) and %s\n", r.StateFrom)
	fmt.Fprintf(w, "%-26s %s\n", "check", "verdict")
	for _, name := range r.Checked {
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
	for _, v := range r.Checks {
		verdict := "holds"
		if v.Failed != "" {
			verdict = "VIOLATED: " + v.Failed
		}
		fmt.Fprintf(w, "%-26s %s\n", v.Check, verdict)
	}
	if !slices.Contains(r.Checked, invariants.TargetRetryTiming) {
		fmt.Fprintf(w, "%-26s not checked (%s)\n", invariants.TargetRetryTiming, r.NotChecked)
	}
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

// Check fills r from the histories' lines and the state read back, with
// the partial target checks under feed (times relative to base): what
// [Run] does once its children are done, for a mode whose children are
// not processes (River's in-process mode).
func (r *Report) Check(lines []Entry, snap target.Snapshot, base int64, feed invariants.TargetFeed) {
	r.check(lines, snap, base, feed)
}
