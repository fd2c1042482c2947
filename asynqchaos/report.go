package asynqchaos

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/riverchaos"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// Report is a finished run: what was done to the children, what the
// histories and asynq's Inspector and the database say, and each check's
// verdict.
type Report struct {
	Config
	Points                      []boundary.Boundary
	Kills                       map[boundary.Boundary]int
	Restarts, HardStops         int
	Pauses, Takeovers           int
	MaxFreezes, StopFreezes     int
	Inserts, Skipped, Scheduled int
	KillPhase, DrainPhase       time.Duration
	Drained                     bool
	Elapsed                     time.Duration
	Dir                         string // the histories, when kept
	Zones                       []string
	Lines                       map[string]int
	KillLines                   map[string]int
	Jobs                        map[target.State]int
	Effects, CompletedDocs      int
	DuplicateDocs, MissingDocs  int // completed documents with more than one effect; with none
	Exposures                   []invariants.Exposure
	ZombieWrites                int // exposures whose later op is an effect or a commit
	Violations                  []invariants.Violation
	Checked                     []string
}

// OK reports whether every check held.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// Feed is what an asynq run's histories give the checks: a partial
// history (a kill may cut any line off, asynq's recoverer, forwarder and
// acks record nothing), the client's enqueues all recorded, no operator
// (so every operator retry is recorded: none), handlers that return nil
// or an error, one effect per document promised, no transactional
// completion, and asynq's rules.
func Feed(c Config) invariants.TargetFeed {
	return invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry},
		Outcomes: []target.Outcome{target.Done, target.Errored}, Drained: true, ExactlyOnce: true,
		EffectKinds: []string{targetsim.KindDoc}, Policy: Rules(c)}
}

// check fills the report from the histories and the state read back.
func check(rep *Report, lines []Entry, snap target.Snapshot, base int64) {
	rep.tally(lines, snap)
	ops := riverchaos.ToOps(entries(lines), base)
	tr := invariants.CheckTarget(ops, snap, Feed(rep.Config))
	rep.Violations, rep.Exposures, rep.Checked = tr.Violations, tr.Exposures, tr.Checked
	kinds := map[uint64]target.OpKind{}
	for _, o := range ops {
		kinds[o.Op.Seq] = o.Op.Kind
	}
	for _, x := range tr.Exposures {
		if k := kinds[x.Ops[len(x.Ops)-1]]; k == target.OpEffect || k == target.OpCommit {
			rep.ZombieWrites++
		}
	}
}

// tally counts the lines by op, the kill lines by point, the children's
// time zones, the tasks by state and the documents' effects.
func (r *Report) tally(lines []Entry, snap target.Snapshot) {
	r.Lines, r.KillLines, r.Jobs = map[string]int{}, map[string]int{}, map[target.State]int{}
	for _, e := range lines {
		r.Lines[e.Op]++
		if e.Op == OpKill {
			r.KillLines[e.Point]++
		}
		if e.Op == OpStart && e.Zone != "" && !slices.Contains(r.Zones, e.Zone) {
			r.Zones = append(r.Zones, e.Zone)
		}
	}
	slices.Sort(r.Zones)
	done := map[target.JobID]bool{}
	for _, j := range snap.Jobs {
		r.Jobs[j.State]++
		if j.State == target.Completed {
			done[j.ID] = true
		}
	}
	r.Effects = len(snap.Effects)
	n := map[target.JobID]int{}
	for _, e := range snap.Effects {
		n[e.Job]++
	}
	r.CompletedDocs = len(done)
	for id := range done {
		switch {
		case n[id] > 1:
			r.DuplicateDocs++
		case n[id] == 0:
			r.MissingDocs++
		}
	}
}

// Version is the asynq release the binary was built with.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/hibiken/asynq" {
				if m.Replace != nil {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return "(unknown)"
}

// Print writes the report. Its times are wall-clock: a run is not
// reproducible to the millisecond.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "asynq chaos: asynq %s's own Server and Client on redis-server, design %s (%s), %d processes (%d never killed) × concurrency %d, seed %d\n",
		Version(), r.Design, What(r.Design), r.Workers, r.Steady, r.Concurrency, r.Seed)
	zones := strings.Join(r.Zones, ", ")
	if zones == "" {
		zones = "none recorded"
	}
	fmt.Fprintf(w, "clock faults: children's TZ=%q (their zones: %s); the client's clock %v off the servers' (every fourth document scheduled %v ahead by it: %d)\n",
		r.TZ, zones, r.ClientSkew, r.ScheduleIn, r.Scheduled)
	fmt.Fprintf(w, "\n%-16s %6s\n", "kill point", "kills")
	total := 0
	for _, p := range r.Points {
		fmt.Fprintf(w, "%-16s %6d\n", p, r.Kills[p])
		total += r.Kills[p]
	}
	fmt.Fprintf(w, "%-16s %6d (target %d)\n", "total", total, r.Config.Kills)
	if m := r.KillPhase.Minutes(); m > 0 {
		fmt.Fprintf(w, "kills per minute of the kill phase: %.1f\n", float64(total)/m)
	}
	fmt.Fprintf(w, "\nrestarts %d, hard stops %d\n", r.Restarts, r.HardStops)
	fmt.Fprintf(w, "SIGSTOPs %d: %d thawed after asynq's recoverer handed the task to another server (a zombie), %d at the freeze limit, %d at the kill phase's end\n",
		r.Pauses, r.Takeovers, r.MaxFreezes, r.StopFreezes)
	fmt.Fprintf(w, "enqueues: %d (%d refused by asynq as a task ID taken)\n", r.Inserts, r.Skipped)
	fmt.Fprintf(w, "tasks (asynq's Inspector): %s\n", r.jobLine())
	fmt.Fprintf(w, "effects: %d rows; documents completed %d, with more than one effect %d, with none %d\n", r.Effects, r.CompletedDocs,
		r.DuplicateDocs, r.MissingDocs)
	fmt.Fprintf(w, "handler lines: fetches %d, effects %d, commits %d, rollbacks %d, commit errors %d, timeouts %d, errors %d\n",
		r.Lines[OpFetch], r.Lines[OpEffect], r.Lines[OpCommit], r.Lines[OpRollback], r.Lines[OpUnknown], r.Lines[OpTimeout], r.Lines[OpError])
	fmt.Fprintf(w, "exposures (two servers working one task at once, at-least-once): %d, of which the first wrote after the second's fetch: %d\n",
		len(r.Exposures), r.ZombieWrites)
	drained := "drained"
	if !r.Drained {
		drained = "NOT drained"
	}
	fmt.Fprintf(w, "kill phase %v, drain %v (its first %v a wait for the dead servers' leases to be recoverable; limit %v after it): %s; total %v\n",
		r.KillPhase.Round(time.Millisecond), r.DrainPhase.Round(time.Millisecond), r.DrainDelay, r.Drain, drained, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "\nchecks: invariants.CheckTarget over the histories (a partial feed), asynq's Inspector and the database\n")
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
	fmt.Fprintf(w, "%-26s %s\n", invariants.TargetRetryTiming, "not checked (the recoverer's and forwarder's writes are not in the histories)")
	if len(r.Violations) > 0 {
		fmt.Fprintf(w, "\nviolations (events are history op numbers, in T1 order):\n")
		for i, v := range r.Violations {
			if i == 20 {
				fmt.Fprintf(w, "  ... and %d more\n", len(r.Violations)-20)
				break
			}
			fmt.Fprintf(w, "  %s\n", v)
		}
	}
	if r.Dir != "" {
		fmt.Fprintf(w, "histories and logs kept in %s\n", r.Dir)
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
