package chaos

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Report is a finished chaos run: what happened and which invariants held.
type Report struct {
	Workers, Relays int
	Seed            uint64
	Target          int
	Kills           map[Point]int
	Restarts        int
	Pauses          int // workers frozen past their lease (SIGSTOP)
	Elapsed         time.Duration
	KillPhase       time.Duration
	DrainPhase      time.Duration
	Dir             string // history files kept ("" removed)

	Jobs, Succeeded, Dead int
	DeadBy                map[model.Code]int
	Rows, Messages        int // outbox rows, broker messages
	Effects, Ledger       int
	Deduped               int // deliveries the consumer's ledger refused
	Fenced                int // writes refused with a stale fence
	DedupedCommits        int // commits of a stage that already had its result
	Lines                 int // history lines read

	Invariants []Invariant
}

// Invariant is one check and what violated it (nothing: it holds).
type Invariant struct {
	Name       string
	NA         string // why it does not apply ("" it does)
	Violations []string
}

// Holds reports whether nothing violated the invariant.
func (i Invariant) Holds() bool { return len(i.Violations) == 0 }

// OK reports whether every invariant held.
func (r *Report) OK() bool {
	for _, i := range r.Invariants {
		if !i.Holds() {
			return false
		}
	}
	return true
}

// TotalKills is the number of SIGKILLs that landed on their point.
func (r *Report) TotalKills() int {
	n := 0
	for _, k := range r.Kills {
		n += k
	}
	return n
}

// Print writes the report's tables.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "chaos: %d workers, %d relays, 1 consumer, seed %d: %d SIGKILLs in %v (kill phase %v, drain %v)\n\n",
		r.Workers, r.Relays, r.Seed, r.TotalKills(), r.Elapsed.Round(time.Millisecond),
		r.KillPhase.Round(time.Millisecond), r.DrainPhase.Round(time.Millisecond))
	fmt.Fprintf(w, "%-34s %6s\n", "kill point", "kills")
	for _, p := range AllPoints() {
		fmt.Fprintf(w, "%-34s %6d\n", p, r.Kills[p])
	}
	fmt.Fprintf(w, "%-34s %6d\n\n", "total", r.TotalKills())
	var dead []string
	for c, n := range r.DeadBy {
		dead = append(dead, fmt.Sprintf("%d %s", n, c))
	}
	sort.Strings(dead)
	fmt.Fprintf(w, "%-18s %7d\n", "restarts", r.Restarts)
	fmt.Fprintf(w, "%-18s %7d  (%d succeeded, %d dead: %s)\n", "jobs", r.Jobs, r.Succeeded, r.Dead, strings.Join(dead, ", "))
	fmt.Fprintf(w, "%-18s %7d  (%d commits deduped on retry)\n", "outbox rows", r.Rows, r.DedupedCommits)
	fmt.Fprintf(w, "%-18s %7d  (%d republished after a relay kill or a concurrent claim)\n", "broker messages", r.Messages, r.Messages-r.Rows)
	fmt.Fprintf(w, "%-18s %7d  (ledger %d; %d redeliveries deduped)\n", "effects", r.Effects, r.Ledger, r.Deduped)
	fmt.Fprintf(w, "%-18s %7d  (workers frozen for 1.5 leases with SIGSTOP)\n", "pauses", r.Pauses)
	fmt.Fprintf(w, "%-18s %7d  (zombie writes refused)\n", "fenced writes", r.Fenced)
	fmt.Fprintf(w, "%-18s %7d\n\n", "history lines", r.Lines)
	fmt.Fprintf(w, "%-40s %s\n", "invariant", "result")
	for _, inv := range r.Invariants {
		res := "holds"
		switch {
		case !inv.Holds():
			res = fmt.Sprintf("VIOLATED (%d)", len(inv.Violations))
		case inv.NA != "":
			res = "n/a: " + inv.NA
		}
		fmt.Fprintf(w, "%-40s %s\n", inv.Name, res)
	}
	for _, inv := range r.Invariants {
		for i, v := range inv.Violations {
			if i == 10 {
				fmt.Fprintf(w, "  %s: ... %d more\n", inv.Name, len(inv.Violations)-10)
				break
			}
			fmt.Fprintf(w, "  %s: %s\n", inv.Name, v)
		}
	}
	if r.Dir != "" {
		fmt.Fprintf(w, "\nhistories kept in %s\n", r.Dir)
	}
}

// The invariants' names, in report order.
const (
	InvNoDuplicateEffects   = "no duplicate effects"
	InvNoLostJobs           = "no lost jobs"
	InvNoUnpublishedCommits = "no unpublished commits"
	InvNoEventWithoutCommit = "no events without a commit"
	InvNoStaleFence         = "no stale-fence write accepted"
	InvHistoryDurable       = "every recorded write is in the database"
	InvEveryPointKilled     = "every kill point received a kill"
)

// check fills r's counts and invariants from the final state, the broker
// and results tables, the processes' histories and the enqueued keys.
//
// Histories are only trusted one way: a line says the operation completed,
// but a SIGKILL can land after an operation and before its line, so a
// missing line proves nothing. Every history check is therefore "this line
// implies that in the database" or "these two lines cannot both be", never
// "the database has this, so a line must".
func check(r *Report, st sqlstore.State, x extra, hist []Entry, keys []string) {
	var dup, lost, unpub, orphan, stale, durable, points Invariant
	dup.Name, lost.Name, unpub.Name, orphan.Name = InvNoDuplicateEffects, InvNoLostJobs, InvNoUnpublishedCommits, InvNoEventWithoutCommit
	stale.Name, durable.Name, points.Name = InvNoStaleFence, InvHistoryDurable, InvEveryPointKilled
	add := func(inv *Invariant, format string, args ...any) {
		inv.Violations = append(inv.Violations, fmt.Sprintf(format, args...))
	}

	jobs := map[model.JobID]sqlstore.JobRow{}
	byKey := map[string]int{}
	for _, j := range st.Jobs {
		jobs[j.ID] = j
		byKey[j.Key]++
	}
	rows := map[model.EventID]sqlstore.Row{}
	rowByStage := map[string]int{}
	for _, row := range st.Rows {
		rows[row.EventID] = row
		rowByStage[model.StageKey(row.Key, row.Stage)]++
	}
	dlq := map[model.JobID]sqlstore.DLQRow{}
	for _, d := range st.DLQ {
		dlq[d.Job] = d
	}
	ledger := map[model.EventID]int{}
	for _, e := range st.Ledger {
		ledger[e.Event]++
	}
	effByEvent := map[model.EventID]int{}
	effByStage := map[string]int{}
	for _, e := range st.Effects {
		effByEvent[e.EventID]++
		effByStage[model.StageKey(e.Key, e.Stage)]++
	}
	msgs := map[int64]model.EventID{}
	msgsByEvent := map[model.EventID]int{}
	for _, m := range x.Broker {
		msgs[m.ID] = m.Event
		msgsByEvent[m.Event]++
	}

	// Counts.
	r.Jobs, r.Rows, r.Messages, r.Effects, r.Ledger, r.Lines = len(st.Jobs), len(st.Rows), len(x.Broker), len(st.Effects), len(st.Ledger), len(hist)
	r.DeadBy = map[model.Code]int{}
	for _, j := range st.Jobs {
		switch j.State {
		case model.Succeeded:
			r.Succeeded++
		case model.Dead:
			r.Dead++
			r.DeadBy[dlq[j.ID].Reason]++
		}
	}

	// No duplicate effects: one effect per event and per (key, stage),
	// one outbox row per (key, stage), one ledger entry per event, and no
	// two deliveries both reported as applied.
	for _, m := range []struct {
		counts map[string]int
		format string
	}{
		{byString(effByEvent), "event %s has %d effects"},
		{effByStage, "%s has %d effects"},
		{rowByStage, "%s was committed %d times (outbox rows)"},
		{byString(ledger), "event %s is %d times in the ledger"},
	} {
		for _, k := range slices.Sorted(maps.Keys(m.counts)) {
			if n := m.counts[k]; n > 1 {
				add(&dup, m.format, k, n)
			}
		}
	}
	applied := map[int64]string{}
	for _, e := range hist {
		if e.Op != OpApply {
			continue
		}
		if !e.Applied {
			r.Deduped++
			continue
		}
		if p, ok := applied[e.Event]; ok {
			add(&dup, "event e%d applied by %s and again by %s", e.Event, p, e.Proc)
		}
		applied[e.Event] = e.Proc
	}

	// No lost jobs: every enqueued key is one job, and every job is
	// terminal in the state its key calls for.
	enq := map[string]bool{}
	for _, k := range keys {
		enq[k] = true
		if byKey[k] != 1 {
			add(&lost, "key %s has %d jobs", k, byKey[k])
		}
	}
	for _, j := range st.Jobs {
		if !enq[j.Key] {
			add(&lost, "job %v (%s) was never enqueued", j.ID, j.Key)
		}
		switch j.State {
		case model.Succeeded:
			if IsPoison(j.Key) {
				add(&lost, "poison job %v succeeded", j.ID)
			}
			for _, s := range model.Stages() {
				if _, ok := x.Results[model.StageKey(j.Key, s)]; !ok {
					add(&lost, "job %v succeeded without a %s result", j.ID, s)
				}
			}
		case model.Dead:
			d, ok := dlq[j.ID]
			switch {
			case !ok:
				add(&lost, "job %v is dead but not in the DLQ", j.ID)
			case IsPoison(j.Key) && d.Reason != model.CodePoisonSchema:
				add(&lost, "poison job %v dead with %s", j.ID, d.Reason)
			case !IsPoison(j.Key) && d.Reason != model.CodeMaxAttemptsExceeded:
				add(&lost, "job %v dead with %s", j.ID, d.Reason)
			}
		default:
			add(&lost, "job %v stuck %s (stage %s, attempt %d)", j.ID, j.State, j.Stage, j.Attempt)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(dlq)) {
		if jobs[id].State != model.Dead {
			add(&lost, "DLQ holds job %v, which is %s", id, jobs[id].State)
		}
	}

	// No unpublished commits: every row published, on the broker, applied.
	for _, row := range st.Rows {
		switch {
		case !row.Published:
			add(&unpub, "event %v (%s) never marked published", row.EventID, model.StageKey(row.Key, row.Stage))
		case msgsByEvent[row.EventID] == 0:
			add(&unpub, "event %v marked published but no broker message", row.EventID)
		case ledger[row.EventID] == 0:
			add(&unpub, "event %v published but never applied", row.EventID)
		case effByEvent[row.EventID] == 0:
			add(&unpub, "event %v in the ledger without its effect", row.EventID)
		}
	}

	// No events without a commit: every row is its stage's result, every
	// message, ledger entry and effect is a row, with the same key/stage.
	for _, row := range st.Rows {
		if ev, ok := x.Results[model.StageKey(row.Key, row.Stage)]; !ok || ev != row.EventID {
			add(&orphan, "event %v has no result row for %s", row.EventID, model.StageKey(row.Key, row.Stage))
		}
		if j, ok := jobs[row.Job]; !ok || j.Key != row.Key {
			add(&orphan, "event %v names job %v, which does not hold key %s", row.EventID, row.Job, row.Key)
		}
	}
	for _, m := range x.Broker {
		if _, ok := rows[m.Event]; !ok {
			add(&orphan, "broker message %d carries event %v, never committed", m.ID, m.Event)
		}
	}
	for _, ev := range slices.Sorted(maps.Keys(ledger)) {
		if _, ok := rows[ev]; !ok {
			add(&orphan, "ledger holds event %v, never committed", ev)
		}
	}
	for _, e := range st.Effects {
		row, ok := rows[e.EventID]
		if !ok || row.Key != e.Key || row.Stage != e.Stage || row.Job != e.Job {
			add(&orphan, "effect of event %v (%s) matches no committed row", e.EventID, model.StageKey(e.Key, e.Stage))
		}
	}
	for _, e := range hist {
		if (e.Op == OpPublish || e.Op == OpApply) && rows[model.EventID(e.Event)].EventID == 0 {
			add(&orphan, "%s by %s of event e%d, never committed", e.Op, e.Proc, e.Event)
		}
	}

	// No stale-fence write accepted: fences are unique per lease, and no
	// write was accepted under a fence after a newer lease of the same job
	// had been granted (granted: its line's T1 is before the write's T0).
	type lease struct {
		fence uint64
		t1    int64
		proc  string
	}
	leases := map[int64][]lease{}
	fenceOwner := map[uint64]string{}
	for _, e := range hist {
		if e.Op != OpLease {
			continue
		}
		if p, ok := fenceOwner[e.Fence]; ok {
			add(&stale, "fence %d granted twice (%s, %s)", e.Fence, p, e.Proc)
		}
		fenceOwner[e.Fence] = e.Proc
		leases[e.Job] = append(leases[e.Job], lease{e.Fence, e.T1, e.Proc})
		if j, ok := jobs[model.JobID(e.Job)]; !ok || j.Fence < e.Fence {
			add(&stale, "job j%d leased under fence %d, above its final fence", e.Job, e.Fence)
		}
	}
	for _, e := range hist {
		switch e.Op {
		case OpBeat, OpCommit, OpAdvance, OpAck, OpRetry, OpDead:
		case OpFenced:
			r.Fenced++
			continue
		default:
			continue
		}
		if e.Op == OpCommit && e.Deduped {
			r.DedupedCommits++
		}
		for _, l := range leases[e.Job] {
			if l.fence > e.Fence && l.t1 < e.T0 {
				add(&stale, "%s by %s on j%d under fence %d accepted after %s leased it under fence %d",
					e.Op, e.Proc, e.Job, e.Fence, l.proc, l.fence)
				break
			}
		}
	}

	// Every recorded write is in the database.
	for _, e := range hist {
		switch e.Op {
		case OpCommit:
			row, ok := rows[model.EventID(e.Event)]
			if !ok || row.Job != model.JobID(e.Job) || row.Stage.String() != e.Stage {
				add(&durable, "commit by %s of j%d %s as e%d is not in the outbox", e.Proc, e.Job, e.Stage, e.Event)
			}
		case OpAck:
			if jobs[model.JobID(e.Job)].State != model.Succeeded {
				add(&durable, "ack by %s of j%d, which is %s", e.Proc, e.Job, jobs[model.JobID(e.Job)].State)
			}
		case OpDead:
			if _, ok := dlq[model.JobID(e.Job)]; !ok {
				add(&durable, "dead by %s of j%d, not in the DLQ", e.Proc, e.Job)
			}
		case OpPublish:
			if ev, ok := msgs[e.Msg]; !ok || ev != model.EventID(e.Event) {
				add(&durable, "publish by %s of e%d as message %d is not on the broker", e.Proc, e.Event, e.Msg)
			}
		case OpMark:
			if !rows[model.EventID(e.Event)].Published {
				add(&durable, "mark by %s of e%d, which is unpublished", e.Proc, e.Event)
			}
		case OpApply:
			if e.Applied && ledger[model.EventID(e.Event)] == 0 {
				add(&durable, "apply by %s of e%d, not in the ledger", e.Proc, e.Event)
			}
		}
	}

	// Every kill point received a kill, and each counted kill is a kill
	// line in a history (the process said where it was when it died).
	lines := map[Point]int{}
	for _, e := range hist {
		if e.Op == OpKill {
			lines[Point(e.Point)]++
		}
	}
	for _, p := range AllPoints() {
		if r.Kills[p] != lines[p] {
			add(&points, "%s: %d kills counted, %d kill lines", p, r.Kills[p], lines[p])
		}
	}
	if r.Target >= len(AllPoints()) {
		var missing []string
		for _, p := range AllPoints() {
			if r.Kills[p] == 0 {
				missing = append(missing, string(p))
			}
		}
		if len(missing) > 0 {
			add(&points, "no kill at %s", strings.Join(missing, ", "))
		}
	} else {
		points.NA = fmt.Sprintf("-kills %d is below the %d points", r.Target, len(AllPoints()))
	}

	r.Invariants = []Invariant{dup, lost, unpub, orphan, stale, durable, points}
}

// byString keys counts by their printed form, so every count map is
// reported the same way, in sorted order (a report reads the same twice).
func byString[K comparable](counts map[K]int) map[string]int {
	out := make(map[string]int, len(counts))
	for k, n := range counts {
		out[fmt.Sprint(k)] = n
	}
	return out
}
