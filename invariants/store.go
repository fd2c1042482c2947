package invariants

import (
	"slices"

	"github.com/durasim/durasim/model"
)

// Store is a store's durable state read back once a run is over: what a
// history-only oracle reads of a system it does not own. Each table is
// listed in the store's own order; nothing in it comes from the model.
type Store struct {
	Jobs    []StoreJob
	Outbox  []model.OutboxRow
	Results []model.Result
	// Broker lists every broker message. Deliveries 0 on every message
	// means the store does not count deliveries (only Apply, no Deliver).
	Broker  []model.Message
	Ledger  []model.EventID // the consumer's ledger: the events it applied
	Effects []model.Effect
	DLQ     []StoreDLQ
	Audit   []model.AuditEntry
}

// StoreJob is a job as the store keeps it.
type StoreJob struct {
	ID           model.JobID
	Tenant       string
	Key          string
	Document     string
	Version      int32
	PayloadHash  uint64
	State        model.State
	Attempt      int32
	MaxAttempts  int32
	Fence        uint64
	Stage        model.Stage
	RedriveCount int32
	LastCode     model.Code
	Origin       model.JobID // the dead job this one reprocesses (0: none)
	VisibleAt    model.Time
	DeadlineAt   model.Time
}

// StoreDLQ is a dead-letter row: the job, its reason code, the attempts
// it had, and when it was written.
type StoreDLQ struct {
	Job      model.JobID
	Reason   model.Code
	Attempts int32
	At       model.Time
}

// OpKind is what an actor recorded it did to the store.
type OpKind uint8

// The operations. Accepted calls are operations, with the fields noted;
// of the refused ones (they changed nothing), a fenced write's refusal
// (OpRefused), judged as due or not, and an enqueue's conflict.
const (
	OpNone          OpKind = iota
	OpEnqueue              // an enqueue that created a job under Key with Payload (Job: its id, 0 unknown)
	OpLease                // Job leased under Fence as attempt Attempt
	OpBeat                 // heartbeat of Job under Fence
	OpAdvance              // Job's checkpoint moved to Stage, under Fence
	OpCommit               // Event holds Job's Stage result (Deduped: it already did); Fence 0: unfenced
	OpAck                  // Job succeeded, under Fence
	OpRetry                // Job waits, invisible until Visible, under Fence
	OpCancel               // Job cancelled at a retry, which would have been visible at Visible (0: unknown)
	OpCancelAtLease        // the lease path cancelled Job: its deadline had passed
	OpDead                 // Job dead with Code (CodeNone: unknown); Fence 0: the lease path's
	OpPublish              // message Msg carrying Event appended to the broker
	OpMark                 // Event's outbox row marked published
	OpApply                // delivery of message Msg (Event): Applied, or refused as a duplicate
	OpRedrive              // Job redriven; Code is the reason it had died with (CodeNone: unknown)
	OpReprocess            // Job's next version is job New
	OpAudit                // audit row Action for Job and New
	OpResubmit             // enqueue of Key's own payload returned Job; Deduped: created nothing; Err: it failed
	OpConflict             // enqueue of Key with another payload (Payload; 0: unknown): Err "" refused, else what it did
	OpRefused              // a fenced write on Job under Fence refused; Code why (stale_fence, not_leased; CodeNone: unknown)
	opKindCount
)

var opKindNames = [opKindCount]string{"none", "enqueue", "lease", "beat", "advance", "commit", "ack", "retry", "cancel",
	"cancel_at_lease", "dead", "publish", "mark", "apply", "redrive", "reprocess", "audit", "resubmit", "conflict", "refused"}

func (k OpKind) String() string {
	if k >= opKindCount {
		return "op?"
	}
	return opKindNames[k]
}

// Op is one operation an actor recorded. The store acted somewhere
// between T0 and T1 (T0 <= T1): a process that reads a wall clock around
// the call gives an interval, a simulator gives T0 == T1.
type Op struct {
	Kind    OpKind
	Proc    string // who did it ("w3.2", "worker3/2")
	Job     model.JobID
	Fence   uint64
	Stage   model.Stage
	Attempt int32
	Event   model.EventID
	Msg     int64
	Applied bool
	Deduped bool
	Code    model.Code
	Err     string
	Action  string
	Visible model.Time
	New     model.JobID
	Key     string
	Payload uint64
	Value   uint64 // commit: the stage result's value the store returned (read only when Feed.CommitValues)
	T0, T1  model.Time
	Seq     uint64 // the history event it was recorded as (0: none): violations name it
}

// Feed says which facts a mode can give the store checks. A check uses
// only what the feed guarantees: where an operation may be missing, its
// absence proves nothing.
type Feed struct {
	// Complete: every accepted operation is in the list, in the order
	// the store performed them (a simulator's history). Otherwise a
	// process killed between an operation and its record leaves no
	// record, and operations are ordered only by their intervals.
	Complete bool
	// Recorded are the kinds never missing even when not Complete: no
	// kill can fall between the operation and its record.
	Recorded []OpKind
	// AtomicDeadLetter: the store marks a job dead and writes its DLQ row
	// in one transaction, so a DLQ row names a dead job (or one redriven
	// since). The model writes the row first and marks the job dead in a
	// second step: a crash between the two, then a successful
	// redelivery, leaves a row for a job that succeeded.
	AtomicDeadLetter bool
	// Ordered: the queue is ordered (FIFO): a lease takes only the oldest
	// unfinished job. In a partial feed the enqueues of jobs without an
	// origin are also made one at a time, so such a job's id is below a
	// later one's only if it was committed first.
	Ordered bool
	// CommitValues: each commit operation carries the value the store
	// returned (Op.Value), a deduplicated one's the stored result's.
	CommitValues bool
	// Drained: the run says nothing is left to do, so the liveness check
	// and the every-row-published checks apply.
	Drained bool
}

// StoreCheck is one check of [CheckStore].
type StoreCheck uint8

// The store checks, in report order.
const (
	StoreNoDuplicates  StoreCheck = iota // one effect, ledger entry and outbox row per (key, stage) and event
	StoreNoLostJobs                      // every enqueue is one job; dead jobs in the DLQ; DLQ rows only for dead ones
	StoreNoUnpublished                   // every outbox row published, on the broker, applied with its effect
	StoreNoOrphans                       // no result, message, ledger entry or effect without its commit
	StoreNoStaleFence                    // no write accepted under a fence a newer lease had replaced, none refused under a current one
	StoreDurable                         // every recorded write is in the final state
	StoreMaxAttempts                     // dead for max attempts only after max attempts leases in that life
	StoreRetryTiming                     // no lease before the visible time a retry set
	StoreDeadline                        // no lease past the deadline; no cancel before it
	StoreRedrive                         // a redriven job starts again at attempt 1
	StoreReprocess                       // a reprocess is the next version, of a dead job, audited once
	StoreIdempotency                     // resubmissions deduplicated, conflicts refused, payloads kept, dedupes return the stored result
	StoreFIFO                            // an ordered queue: no job leased after a later job's lease while it was unfinished
	StoreDrained                         // liveness: nothing left to do, each reason named
	storeCheckCount
)

var storeCheckNames = [storeCheckCount]string{
	"store-no-duplicate-effects", "store-no-lost-jobs", "store-no-unpublished-commits", "store-no-event-without-commit",
	"store-no-stale-fence-write", "store-history-durable", "store-max-attempts", "store-retry-timing", "store-deadline",
	"store-redrive", "store-reprocess", "store-idempotency", "store-fifo", "store-drained",
}

var storeCheckTitles = [storeCheckCount]string{
	"no duplicate effects", "no lost jobs", "no unpublished commits", "no events without a commit",
	"no stale-fence write accepted", "every recorded write is in the database",
	"dead for max attempts only after max attempts", "no lease before its retry's visible time",
	"no lease past the deadline; cancels past it", "redriven jobs start afresh", "reprocess: next version, audited once",
	"resubmissions deduped, conflicts refused", "ordered queue: leases in FIFO order", "drained: nothing left to do",
}

// String is the check's invariant name, as its violations carry it.
func (c StoreCheck) String() string {
	if c >= storeCheckCount {
		return "store-check?"
	}
	return storeCheckNames[c]
}

// Title is the check in words, for a report's table.
func (c StoreCheck) Title() string {
	if c >= storeCheckCount {
		return "?"
	}
	return storeCheckTitles[c]
}

// StoreChecks lists every store check in report order.
func StoreChecks() []StoreCheck {
	out := make([]StoreCheck, storeCheckCount)
	for i := range out {
		out[i] = StoreCheck(i)
	}
	return out
}

// CheckStore runs every store check over a store's final state and the
// operations its actors recorded, using only the facts feed guarantees,
// and returns the violations in check order (each check's in the order
// of the jobs, rows and operations that prove them).
func CheckStore(st *Store, ops []Op, feed Feed) []Violation {
	ix := newStoreIndex(st, ops, feed)
	var vs violations
	for _, c := range StoreChecks() {
		storeCheckFuncs[c](ix, &storeViolations{c: c, vs: &vs})
	}
	return vs
}

// storeCheckFuncs are the checks, indexed by StoreCheck.
var storeCheckFuncs = [storeCheckCount]func(*storeIndex, *storeViolations){
	checkNoDuplicates, checkNoLostJobs, checkNoUnpublished, checkNoOrphans, checkNoStaleFence, checkDurable,
	checkMaxAttempts, checkRetryTiming, checkDeadline, checkRedrive, checkReprocess, checkIdempotency, checkFIFO, checkDrained,
}

// storeViolations adds violations of one check.
type storeViolations struct {
	c  StoreCheck
	vs *violations
}

// add records a violation about job (0: none) proved by ops (their Seqs
// are the events named).
func (v *storeViolations) add(job model.JobID, msg string, ops ...*Op) {
	var seqs []uint64
	for _, o := range ops {
		seqs = append(seqs, o.Seq)
	}
	v.vs.add(v.c.String(), job, msg, seqs...)
}

// recorded reports whether feed guarantees every operation of kind k.
func (f Feed) recorded(k OpKind) bool { return f.Complete || slices.Contains(f.Recorded, k) }
