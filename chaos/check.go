package chaos

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Report is a finished chaos run: what happened and which invariants held.
type Report struct {
	Workers, Relays, Consumers int
	Operator                   bool
	Seed                       uint64
	Target                     int
	Kills                      map[Point]int
	KillStmts                  map[Point]map[int]int // inside points: kills per statement boundary
	Restarts                   int
	Pauses                     int // workers frozen past their lease (SIGSTOP)
	Elapsed                    time.Duration
	KillPhase                  time.Duration
	DrainPhase                 time.Duration
	DrainLimit                 time.Duration
	Drained                    bool             // the drain ended before DrainLimit
	Cursors                    map[string]int64 // each consumer's last broker message
	Dir                        string           // history files kept ("" removed)

	Jobs, Succeeded, Dead int
	DeadBy                map[model.Code]int
	Rows, Messages        int // outbox rows, broker messages
	Effects, Ledger       int
	Deduped               int // deliveries the consumer's ledger refused
	Fenced                int // writes refused with a stale fence
	DedupedCommits        int // commits of a stage that already had its result
	Lines                 int // history lines read

	Paths      []Path // how often each path through the store was taken
	Invariants []Invariant
}

// Path is one way through the store's SQL and how many times a run took
// it, counted from the histories and the final database.
type Path struct {
	Name string
	What string // how it is counted
	N    int
	NA   string // why it cannot be taken in this run ("" it can)
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
	op := "no operator"
	if r.Operator {
		op = "1 operator"
	}
	fmt.Fprintf(w, "chaos: %d workers, %d relays, %d consumers, %s, seed %d: %d SIGKILLs in %v (kill phase %v, drain %v)\n\n",
		r.Workers, r.Relays, r.Consumers, op, r.Seed, r.TotalKills(), r.Elapsed.Round(time.Millisecond),
		r.KillPhase.Round(time.Millisecond), r.DrainPhase.Round(time.Millisecond))
	fmt.Fprintf(w, "%-34s %6s  %s\n", "kill point", "kills", "after statement")
	for _, p := range AllPoints() {
		var by []string
		for _, n := range slices.Sorted(maps.Keys(r.KillStmts[p])) {
			by = append(by, fmt.Sprintf("%d: %d", n, r.KillStmts[p][n]))
		}
		fmt.Fprintf(w, "%-34s %6d  %s\n", p, r.Kills[p], strings.Join(by, ", "))
	}
	fmt.Fprintf(w, "%-34s %6d\n\n", "total", r.TotalKills())
	var dead []string
	for _, c := range slices.Sorted(maps.Keys(r.DeadBy)) {
		dead = append(dead, fmt.Sprintf("%d %s", r.DeadBy[c], c))
	}
	fmt.Fprintf(w, "%-18s %7d\n", "restarts", r.Restarts)
	fmt.Fprintf(w, "%-18s %7d  (%d succeeded, %d dead: %s)\n", "jobs", r.Jobs, r.Succeeded, r.Dead, strings.Join(dead, ", "))
	fmt.Fprintf(w, "%-18s %7d\n", "outbox rows", r.Rows)
	fmt.Fprintf(w, "%-18s %7d  (%d republished after a relay kill or a concurrent claim)\n", "broker messages", r.Messages, r.Messages-r.Rows)
	fmt.Fprintf(w, "%-18s %7d  (ledger %d; %d deliveries refused as duplicates)\n", "effects", r.Effects, r.Ledger, r.Deduped)
	fmt.Fprintf(w, "%-18s %7d  (workers frozen past their lease with SIGSTOP)\n", "pauses", r.Pauses)
	fmt.Fprintf(w, "%-18s %7d\n\n", "history lines", r.Lines)
	fmt.Fprintf(w, "%-40s %6s  %s\n", "path", "taken", "counted as")
	for _, p := range r.Paths {
		n := strconv.Itoa(p.N)
		if p.NA != "" {
			n = "n/a"
		}
		fmt.Fprintf(w, "%-40s %6s  %s\n", p.Name, n, p.What)
	}
	fmt.Fprintf(w, "\n%-48s %s\n", "invariant", "result")
	for _, inv := range r.Invariants {
		res := "holds"
		switch {
		case !inv.Holds():
			res = fmt.Sprintf("VIOLATED (%d)", len(inv.Violations))
		case inv.NA != "":
			res = "n/a: " + inv.NA
		}
		fmt.Fprintf(w, "%-48s %s\n", inv.Name, res)
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
	InvMaxAttempts          = "dead for max attempts only after max attempts"
	InvRetryTiming          = "no lease before its retry's visible time"
	InvDeadline             = "no lease past the deadline; cancels past it"
	InvRedrive              = "redriven jobs start afresh and succeed"
	InvReprocess            = "reprocess: next version, audited once"
	InvIdempotency          = "resubmissions deduped, conflicts refused"
	InvLiveness             = "drained: nothing left to do"
	InvEveryPointKilled     = "every kill point received a kill"
	InvEveryPath            = "every path taken"
)

// InvariantNames lists the invariants in report order.
func InvariantNames() []string {
	return []string{InvNoDuplicateEffects, InvNoLostJobs, InvNoUnpublishedCommits, InvNoEventWithoutCommit, InvNoStaleFence,
		InvHistoryDurable, InvMaxAttempts, InvRetryTiming, InvDeadline, InvRedrive, InvReprocess, InvIdempotency,
		InvLiveness, InvEveryPointKilled, InvEveryPath}
}

// index is the final state and the histories, indexed for the checks.
type index struct {
	st     sqlstore.State
	x      extra
	hist   []Entry
	keys   []string // the orchestrator's enqueues
	jobs   map[model.JobID]sqlstore.JobRow
	byKey  map[string][]sqlstore.JobRow
	rows   map[model.EventID]sqlstore.Row
	dlq    map[model.JobID]sqlstore.DLQRow
	ledger map[model.EventID]int
	msgs   map[int64]sqlstore.BrokerRow
	byJob  map[int64][]Entry // job lines (lease, beat, commit, advance, ack, retry, cancel, dead, fenced, redrive)
	end    int64             // the latest time in any line
}

func newIndex(st sqlstore.State, x extra, hist []Entry, keys []string) *index {
	ix := &index{st: st, x: x, hist: hist, keys: keys, jobs: map[model.JobID]sqlstore.JobRow{}, byKey: map[string][]sqlstore.JobRow{},
		rows: map[model.EventID]sqlstore.Row{}, dlq: map[model.JobID]sqlstore.DLQRow{}, ledger: map[model.EventID]int{},
		msgs: map[int64]sqlstore.BrokerRow{}, byJob: map[int64][]Entry{}}
	for _, j := range st.Jobs {
		ix.jobs[j.ID] = j
		ix.byKey[j.Key] = append(ix.byKey[j.Key], j)
	}
	for _, row := range st.Rows {
		ix.rows[row.EventID] = row
	}
	for _, d := range st.DLQ {
		ix.dlq[d.Job] = d
	}
	for _, e := range st.Ledger {
		ix.ledger[e.Event]++
	}
	for _, m := range st.Broker {
		ix.msgs[m.ID] = m
	}
	for _, e := range hist {
		switch e.Op {
		case OpLease, OpBeat, OpCommit, OpAdvance, OpAck, OpRetry, OpCancel, OpDead, OpFenced, OpRedrive:
			ix.byJob[e.Job] = append(ix.byJob[e.Job], e)
		}
		ix.end = max(ix.end, e.T0, e.T1)
	}
	// Each job's lines in time order (the files are read in name order:
	// op0.15 before op0.6).
	for _, es := range ix.byJob {
		slices.SortStableFunc(es, func(a, b Entry) int { return cmp.Compare(a.T0, b.T0) })
	}
	return ix
}

// lines returns job's lines of operation op.
func (ix *index) lines(job int64, op string) []Entry {
	var out []Entry
	for _, e := range ix.byJob[job] {
		if e.Op == op {
			out = append(out, e)
		}
	}
	return out
}

func add(inv *Invariant, format string, args ...any) {
	inv.Violations = append(inv.Violations, fmt.Sprintf(format, args...))
}

// check fills r's counts and invariants from the final state, the broker
// and results tables, the processes' histories and the enqueued keys.
//
// Histories are trusted one way only: a line says the operation
// completed, but a SIGKILL can land after an operation and before its
// line, so a missing line proves nothing. Every history check is
// therefore "this line implies that in the database" or "these two lines
// cannot both be", never "the database has this, so a line must". One
// exception, argued where it is used (maxAttempts): a lease line is never
// missing, because no kill point lies between a lease and its line and a
// SIGTERM lets the call and its line finish.
func check(r *Report, st sqlstore.State, x extra, hist []Entry, keys []string) {
	ix := newIndex(st, x, hist, keys)
	counts(r, ix)
	r.Paths = paths(r, ix)
	r.Invariants = []Invariant{
		noDuplicates(r, ix), noLostJobs(ix), noUnpublished(ix), noOrphans(ix), noStaleFence(ix), durable(ix),
		maxAttempts(ix), retryTiming(ix), deadlines(ix), redrives(ix), reprocesses(ix, r.Operator), idempotency(ix),
		liveness(r, ix), everyPoint(r, hist), everyPath(r),
	}
}

func counts(r *Report, ix *index) {
	r.Jobs, r.Rows, r.Messages, r.Effects, r.Ledger, r.Lines = len(ix.st.Jobs), len(ix.st.Rows), len(ix.x.Broker), len(ix.st.Effects), len(ix.st.Ledger), len(ix.hist)
	r.DeadBy = map[model.Code]int{}
	for _, j := range ix.st.Jobs {
		switch j.State {
		case model.Succeeded:
			r.Succeeded++
		case model.Dead:
			r.Dead++
			r.DeadBy[ix.dlq[j.ID].Reason]++
		}
	}
	for _, e := range ix.hist {
		switch {
		case e.Op == OpApply && !e.Applied:
			r.Deduped++
		case e.Op == OpFenced:
			r.Fenced++
		case e.Op == OpCommit && e.Deduped:
			r.DedupedCommits++
		}
	}
}

// noDuplicates: one effect per event and per (key, stage), one outbox row
// per (key, stage), one ledger entry per event, and no two deliveries
// both reported as applied.
func noDuplicates(r *Report, ix *index) Invariant {
	inv := Invariant{Name: InvNoDuplicateEffects}
	effByEvent := map[model.EventID]int{}
	effByStage := map[string]int{}
	for _, e := range ix.st.Effects {
		effByEvent[e.EventID]++
		effByStage[model.StageKey(e.Key, e.Stage)]++
	}
	rowByStage := map[string]int{}
	for _, row := range ix.st.Rows {
		rowByStage[model.StageKey(row.Key, row.Stage)]++
	}
	for _, m := range []struct {
		counts map[string]int
		format string
	}{
		{byString(effByEvent), "event %s has %d effects"},
		{effByStage, "%s has %d effects"},
		{rowByStage, "%s was committed %d times (outbox rows)"},
		{byString(ix.ledger), "event %s is %d times in the ledger"},
	} {
		for _, k := range slices.Sorted(maps.Keys(m.counts)) {
			if n := m.counts[k]; n > 1 {
				add(&inv, m.format, k, n)
			}
		}
	}
	applied := map[int64]string{}
	for _, e := range ix.hist {
		if e.Op != OpApply || !e.Applied {
			continue
		}
		if p, ok := applied[e.Event]; ok {
			add(&inv, "event e%d applied by %s and again by %s", e.Event, p, e.Proc)
		}
		applied[e.Event] = e.Proc
	}
	return inv
}

// noLostJobs: every enqueued key is one job, every job was enqueued (by
// the orchestrator, or by the operator as a reprocess), and every
// terminal job is in the state its traits call for. Jobs still live are
// the liveness check's.
func noLostJobs(ix *index) Invariant {
	inv := Invariant{Name: InvNoLostJobs}
	enq := map[string]bool{}
	for _, k := range ix.keys {
		enq[k] = true
		if n := len(ix.byKey[k]); n != 1 {
			add(&inv, "key %s has %d jobs", k, n)
		}
	}
	for _, j := range ix.st.Jobs {
		tr := KeyTraits(j.Key)
		if !enq[j.Key] && j.Origin == 0 {
			add(&inv, "job %v (%s) was never enqueued", j.ID, j.Key)
		}
		switch j.State {
		case model.Succeeded:
			if tr.Poison {
				add(&inv, "poison job %v succeeded", j.ID)
			}
			for _, s := range model.Stages() {
				if _, ok := ix.x.Results[model.StageKey(j.Key, s)]; !ok {
					add(&inv, "job %v succeeded without a %s result", j.ID, s)
				}
			}
		case model.Dead:
			d, ok := ix.dlq[j.ID]
			switch {
			case !ok:
				add(&inv, "job %v is dead but not in the DLQ", j.ID)
			case tr.Poison && d.Reason != model.CodePoisonSchema:
				add(&inv, "poison job %v dead with %s", j.ID, d.Reason)
			case !tr.Poison && d.Reason != model.CodeMaxAttemptsExceeded:
				add(&inv, "job %v (%s) dead with %s", j.ID, j.Key, d.Reason)
			}
		case model.Cancelled:
			if j.LastCode != model.CodeDeadlineExceeded {
				add(&inv, "job %v cancelled with %s", j.ID, j.LastCode)
			}
			if !tr.Short && !tr.Late {
				add(&inv, "job %v (%s) cancelled, with a deadline a day away", j.ID, j.Key)
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ix.dlq)) {
		j, ok := ix.jobs[id]
		if !ok {
			add(&inv, "DLQ holds job %v, which does not exist", id)
		} else if j.State != model.Dead && j.RedriveCount == 0 {
			add(&inv, "DLQ holds job %v, which is %s and was never redriven", id, j.State)
		}
	}
	return inv
}

// noUnpublished: every row published, on the broker, applied.
func noUnpublished(ix *index) Invariant {
	inv := Invariant{Name: InvNoUnpublishedCommits}
	onBroker := map[model.EventID]int{}
	for _, m := range ix.x.Broker {
		onBroker[m.Event]++
	}
	effects := map[model.EventID]int{}
	for _, e := range ix.st.Effects {
		effects[e.EventID]++
	}
	for _, row := range ix.st.Rows {
		switch {
		case !row.Published:
			add(&inv, "event %v (%s) never marked published", row.EventID, model.StageKey(row.Key, row.Stage))
		case onBroker[row.EventID] == 0:
			add(&inv, "event %v marked published but no broker message", row.EventID)
		case ix.ledger[row.EventID] == 0:
			add(&inv, "event %v published but never applied", row.EventID)
		case effects[row.EventID] == 0:
			add(&inv, "event %v in the ledger without its effect", row.EventID)
		}
	}
	return inv
}

// noOrphans: every row is its stage's result and every result has its
// row (a Commit split in two transactions leaves a result without one),
// every message, ledger entry and effect is a row, with the same
// key/stage.
func noOrphans(ix *index) Invariant {
	inv := Invariant{Name: InvNoEventWithoutCommit}
	for _, row := range ix.st.Rows {
		if ev, ok := ix.x.Results[model.StageKey(row.Key, row.Stage)]; !ok || ev != row.EventID {
			add(&inv, "event %v has no result row for %s", row.EventID, model.StageKey(row.Key, row.Stage))
		}
		if j, ok := ix.jobs[row.Job]; !ok || j.Key != row.Key {
			add(&inv, "event %v names job %v, which does not hold key %s", row.EventID, row.Job, row.Key)
		}
	}
	for _, res := range ix.st.Results {
		if row, ok := ix.rows[res.EventID]; !ok || row.Key != res.Key || row.Stage != res.Stage {
			add(&inv, "result %s names event %v, which is not its outbox row", model.StageKey(res.Key, res.Stage), res.EventID)
		}
	}
	for _, m := range ix.x.Broker {
		if _, ok := ix.rows[m.Event]; !ok {
			add(&inv, "broker message %d carries event %v, never committed", m.ID, m.Event)
		}
	}
	for _, ev := range slices.Sorted(maps.Keys(ix.ledger)) {
		if _, ok := ix.rows[ev]; !ok {
			add(&inv, "ledger holds event %v, never committed", ev)
		}
	}
	for _, e := range ix.st.Effects {
		row, ok := ix.rows[e.EventID]
		if !ok || row.Key != e.Key || row.Stage != e.Stage || row.Job != e.Job {
			add(&inv, "effect of event %v (%s) matches no committed row", e.EventID, model.StageKey(e.Key, e.Stage))
		}
	}
	for _, e := range ix.hist {
		if (e.Op == OpPublish || e.Op == OpApply) && ix.rows[model.EventID(e.Event)].EventID == 0 {
			add(&inv, "%s by %s of event e%d, never committed", e.Op, e.Proc, e.Event)
		}
	}
	return inv
}

// noStaleFence: fences are unique per lease, and no write was accepted
// under a fence after a newer lease of the same job had been granted
// (granted: its line's T1 is before the write's T0).
func noStaleFence(ix *index) Invariant {
	inv := Invariant{Name: InvNoStaleFence}
	fenceOwner := map[uint64]string{}
	for _, e := range ix.hist {
		if e.Op != OpLease {
			continue
		}
		if p, ok := fenceOwner[e.Fence]; ok {
			add(&inv, "fence %d granted twice (%s, %s)", e.Fence, p, e.Proc)
		}
		fenceOwner[e.Fence] = e.Proc
		if j, ok := ix.jobs[model.JobID(e.Job)]; !ok || j.Fence < e.Fence {
			add(&inv, "job j%d leased under fence %d, above its final fence", e.Job, e.Fence)
		}
	}
	for _, e := range ix.hist {
		switch e.Op {
		case OpBeat, OpCommit, OpAdvance, OpAck, OpRetry, OpCancel, OpDead:
		default:
			continue
		}
		for _, l := range ix.lines(e.Job, OpLease) {
			if l.Fence > e.Fence && l.T1 < e.T0 {
				add(&inv, "%s by %s on j%d under fence %d accepted after %s leased it under fence %d",
					e.Op, e.Proc, e.Job, e.Fence, l.Proc, l.Fence)
				break
			}
		}
	}
	return inv
}

// durable: every recorded write is in the database.
func durable(ix *index) Invariant {
	inv := Invariant{Name: InvHistoryDurable}
	deliveries := map[int64]int32{}
	audits := map[string]int{}
	for _, a := range ix.st.Audit {
		audits[fmt.Sprintf("%s %d %d", a.Action, int64(a.Job), int64(a.NewJob))]++
	}
	for _, e := range ix.hist {
		job := ix.jobs[model.JobID(e.Job)]
		switch e.Op {
		case OpCommit:
			row, ok := ix.rows[model.EventID(e.Event)]
			if !ok || row.Job != model.JobID(e.Job) || row.Stage.String() != e.Stage {
				add(&inv, "commit by %s of j%d %s as e%d is not in the outbox", e.Proc, e.Job, e.Stage, e.Event)
			}
		case OpAck:
			if job.State != model.Succeeded {
				add(&inv, "ack by %s of j%d, which is %s", e.Proc, e.Job, job.State)
			}
		case OpDead:
			if _, ok := ix.dlq[job.ID]; !ok {
				add(&inv, "dead by %s of j%d, not in the DLQ", e.Proc, e.Job)
			}
		case OpCancel:
			if job.State != model.Cancelled {
				add(&inv, "cancel by %s of j%d, which is %s", e.Proc, e.Job, job.State)
			}
		case OpRedrive:
			if job.RedriveCount == 0 {
				add(&inv, "redrive by %s of j%d, whose redrive count is 0", e.Proc, e.Job)
			}
		case OpReprocess:
			if nj, ok := ix.jobs[model.JobID(e.New)]; !ok || nj.Origin != model.JobID(e.Job) {
				add(&inv, "reprocess by %s of j%d as j%d: no such job with that origin", e.Proc, e.Job, e.New)
			}
		case OpAudit:
			if audits[fmt.Sprintf("%s %d %d", e.Err, e.Job, e.New)] == 0 {
				add(&inv, "audit by %s of %s j%d→j%d is not in the audit log", e.Proc, e.Err, e.Job, e.New)
			}
		case OpPublish:
			if m, ok := ix.msgs[e.Msg]; !ok || m.Event != model.EventID(e.Event) {
				add(&inv, "publish by %s of e%d as message %d is not on the broker", e.Proc, e.Event, e.Msg)
			}
		case OpMark:
			if !ix.rows[model.EventID(e.Event)].Published {
				add(&inv, "mark by %s of e%d, which is unpublished", e.Proc, e.Event)
			}
		case OpApply:
			if e.Applied && ix.ledger[model.EventID(e.Event)] == 0 {
				add(&inv, "apply by %s of e%d, not in the ledger", e.Proc, e.Event)
			}
			deliveries[e.Msg]++
		}
	}
	// A Deliver counts itself on the broker row in its own transaction, so
	// the broker counts exactly the deliveries that committed. Like lease
	// lines, delivery lines are never missing (no kill point lies between
	// a Deliver and its line; a kill inside one rolls it back), so the
	// count must equal the lines: more is a delivery counted by a
	// transaction that was rolled back, or one split in two. (Only a store
	// with Deliver counts; one that only has Apply counts nothing, and
	// every message then reads 0.)
	counted := false
	for _, m := range ix.st.Broker {
		counted = counted || m.Deliveries > 0
	}
	for _, m := range ix.st.Broker {
		if counted && m.Deliveries != deliveries[m.ID] {
			add(&inv, "message %d delivered %d times by the histories, %d by the broker", m.ID, deliveries[m.ID], m.Deliveries)
		}
	}
	return inv
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
