package chaos

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/internal/sqlfeed"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Report is a finished chaos run: what happened and which invariants held.
type Report struct {
	Workers, Relays, Consumers int
	Operator                   bool
	Seed                       uint64
	Target                     int
	AnyPaths                   bool // a path not taken does not fail the run (Config.AnyPaths)
	Kills                      map[boundary.Boundary]int
	KillStmts                  map[boundary.Boundary]map[int]int // inside points: kills per statement boundary
	Restarts                   int
	HardStops                  int // processes SIGKILLed when a stop ran out of time (package crash)
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
	fmt.Fprintf(w, "%-18s %7d  (hard stops: %d)\n", "restarts", r.Restarts, r.HardStops)
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
	InvFIFO                 = "ordered queue: leases in FIFO order"
	InvLiveness             = "drained: nothing left to do"
	InvEveryPointKilled     = "every kill point received a kill"
	InvEveryPath            = "every path taken"
)

// InvariantNames lists the invariants in report order.
func InvariantNames() []string {
	return []string{InvNoDuplicateEffects, InvNoLostJobs, InvNoUnpublishedCommits, InvNoEventWithoutCommit, InvNoStaleFence,
		InvHistoryDurable, InvMaxAttempts, InvRetryTiming, InvDeadline, InvRedrive, InvReprocess, InvIdempotency,
		InvFIFO, InvLiveness, InvEveryPointKilled, InvEveryPath}
}

// rows are the report's invariants the store checks of package
// invariants decide, each with its check; chaos's own expectations of its
// workload (expect.go) add to some of them.
var rows = []struct {
	name  string
	check invariants.StoreCheck
}{
	{InvNoDuplicateEffects, invariants.StoreNoDuplicates},
	{InvNoLostJobs, invariants.StoreNoLostJobs},
	{InvNoUnpublishedCommits, invariants.StoreNoUnpublished},
	{InvNoEventWithoutCommit, invariants.StoreNoOrphans},
	{InvNoStaleFence, invariants.StoreNoStaleFence},
	{InvHistoryDurable, invariants.StoreDurable},
	{InvMaxAttempts, invariants.StoreMaxAttempts},
	{InvRetryTiming, invariants.StoreRetryTiming},
	{InvDeadline, invariants.StoreDeadline},
	{InvRedrive, invariants.StoreRedrive},
	{InvReprocess, invariants.StoreReprocess},
	{InvIdempotency, invariants.StoreIdempotency},
	{InvFIFO, invariants.StoreFIFO},
	{InvLiveness, invariants.StoreDrained},
}

// feed is what a real-crash run can give the store checks. Histories are
// trusted one way only: a line says the operation completed, but a
// SIGKILL can land after an operation and before its line, so a missing
// line proves nothing, and lines of different processes are ordered
// only by their wall-clock intervals. Three kinds are never missing:
//   - lease lines: the line is written right after LeaseNext returns, no
//     kill point lies between the two, the orchestrator never kills a
//     process itself (SIGTERM lets the call and its line finish), and a
//     kill inside LeaseNext rolls the lease back;
//   - delivery (apply) lines, for the same reasons;
//   - the orchestrator's enqueues, which it lists itself (it is never
//     killed).
//
// Dead writes the job's state and its DLQ row in one transaction.
var feed = invariants.Feed{
	Recorded:         []invariants.OpKind{invariants.OpLease, invariants.OpApply, invariants.OpEnqueue},
	AtomicDeadLetter: true,
	CommitValues:     true,
	Drained:          true, // the run has drained, or says why not
}

// feedFor is feed for a run whose workers lease FIFO (ordered) or not.
// The orchestrator enqueues one job at a time, so of two jobs it enqueued
// the lower id was committed first (what an ordered feed must promise).
func feedFor(ordered bool) invariants.Feed {
	f := feed
	f.Ordered = ordered
	return f
}

// index is the final state and the histories, indexed for the counts,
// the paths and chaos's own expectations.
type index struct {
	st    sqlstore.State
	hist  []Entry
	keys  []string // the orchestrator's enqueues
	jobs  map[model.JobID]sqlstore.JobRow
	byKey map[string][]sqlstore.JobRow
	dlq   map[model.JobID]sqlstore.DLQRow
	byJob map[int64][]Entry // cancel, dead and redrive lines by job
}

func newIndex(st sqlstore.State, hist []Entry, keys []string) *index {
	ix := &index{st: st, hist: hist, keys: keys, jobs: map[model.JobID]sqlstore.JobRow{}, byKey: map[string][]sqlstore.JobRow{},
		dlq: map[model.JobID]sqlstore.DLQRow{}, byJob: map[int64][]Entry{}}
	for _, j := range st.Jobs {
		ix.jobs[j.ID] = j
		ix.byKey[j.Key] = append(ix.byKey[j.Key], j)
	}
	for _, d := range st.DLQ {
		ix.dlq[d.Job] = d
	}
	for _, e := range hist {
		if e.Op == OpCancel || e.Op == OpDead || e.Op == OpRedrive {
			ix.byJob[e.Job] = append(ix.byJob[e.Job], e)
		}
	}
	return ix
}

// lines returns job's lines of operation op (cancel, dead and redrive
// lines only).
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

// check fills r's counts, paths and invariants from the final state, the
// processes' histories and the enqueued keys: the store checks of package
// invariants over them (converted by opsOf and sqlfeed.Store), chaos's
// expectations of its own workload, and the run's kill and path
// bookkeeping.
func check(r *Report, st sqlstore.State, hist []Entry, keys []string, feed invariants.Feed) {
	ix := newIndex(st, hist, keys)
	counts(r, ix)
	r.Paths = paths(r, ix)
	store := sqlfeed.Store(st)
	byCheck := map[string][]string{}
	for _, v := range invariants.CheckStore(&store, opsOf(hist, keys), feed) {
		byCheck[v.Invariant] = append(byCheck[v.Invariant], v.Message)
	}
	exp := expectations(r, ix)
	r.Invariants = nil
	for _, row := range rows {
		inv := Invariant{Name: row.name, Violations: append(byCheck[row.check.String()], exp[row.name]...)}
		if row.name == InvLiveness {
			stillLive(r, st, &inv)
		}
		r.Invariants = append(r.Invariants, inv)
	}
	r.Invariants = append(r.Invariants, everyPoint(r, hist), everyPath(r))
}

// opsOf turns the orchestrator's enqueues and the histories' lines into
// the store checks' operations. A redrive line is a redrive of a job dead
// for max attempts: the operator redrives nothing else.
func opsOf(hist []Entry, keys []string) []invariants.Op {
	out := make([]invariants.Op, 0, len(keys)+len(hist))
	for _, k := range keys {
		o := invariants.Op{Kind: invariants.OpEnqueue, Proc: "orchestrator", Key: k}
		if _, doc, _, ok := ParseKey(k); ok {
			o.Payload = PayloadOf(doc) // the orchestrator's payload (0, for a key of a test's own: unknown)
		}
		out = append(out, o)
	}
	for _, e := range hist {
		k, ok := opKinds[e.Op]
		if !ok {
			continue
		}
		o := invariants.Op{Kind: k, Proc: e.Proc, Job: model.JobID(e.Job), Fence: e.Fence, Stage: stageOf(e.Stage),
			Attempt: e.Attempt, Event: model.EventID(e.Event), Msg: e.Msg, Applied: e.Applied, Deduped: e.Deduped, Err: e.Err, Value: e.Value, Payload: e.Payload,
			Visible: model.Time(e.Visible), New: model.JobID(e.New), Key: e.Key, T0: model.Time(e.T0), T1: model.Time(e.T1)}
		switch k {
		case invariants.OpAudit:
			o.Action, o.Err = e.Err, ""
		case invariants.OpRedrive:
			o.Code = model.CodeMaxAttemptsExceeded
		case invariants.OpRefused:
			o.Err = "" // the write refused ("commit"), not an error of the check's
		}
		out = append(out, o)
	}
	return out
}

// opKinds maps the history's operations to the store checks' (start,
// claim and kill lines are chaos's own bookkeeping; a fenced line is a
// refusal, judged as due or not).
var opKinds = map[string]invariants.OpKind{
	OpLease: invariants.OpLease, OpBeat: invariants.OpBeat, OpCommit: invariants.OpCommit, OpAdvance: invariants.OpAdvance,
	OpAck: invariants.OpAck, OpRetry: invariants.OpRetry, OpCancel: invariants.OpCancel, OpDead: invariants.OpDead,
	OpPublish: invariants.OpPublish, OpMark: invariants.OpMark, OpApply: invariants.OpApply, OpRedrive: invariants.OpRedrive,
	OpReprocess: invariants.OpReprocess, OpAudit: invariants.OpAudit, OpResubmit: invariants.OpResubmit, OpConflict: invariants.OpConflict,
	OpFenced: invariants.OpRefused,
}

// stageOf reads a stage's name back (StageIngest for "").
func stageOf(s string) model.Stage {
	for st := model.StageIngest; st <= model.StageDone; st++ {
		if st.String() == s {
			return st
		}
	}
	return model.StageIngest
}

func counts(r *Report, ix *index) {
	r.Jobs, r.Rows, r.Messages, r.Effects, r.Ledger, r.Lines = len(ix.st.Jobs), len(ix.st.Rows), len(ix.st.Broker), len(ix.st.Effects), len(ix.st.Ledger), len(ix.hist)
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
