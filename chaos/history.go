package chaos

import (
	"github.com/durasim/durasim/crash"
)

// History operations: one line per completed operation.
const (
	OpStart   = "start"   // a process incarnation began
	OpLease   = "lease"   // LeaseNext granted Job under Fence
	OpBeat    = "beat"    // Heartbeat accepted
	OpCommit  = "commit"  // Commit accepted: Event holds Stage's result, of Value (the stored one's when Deduped)
	OpAdvance = "advance" // Advance accepted (Stage is the new stage)
	OpAck     = "ack"     // Ack accepted: the job succeeded
	OpRetry   = "retry"   // Retry accepted: the job is invisible until Visible
	OpCancel  = "cancel"  // Cancel accepted: the retry would have passed the deadline (Visible)
	OpDead    = "dead"    // Dead accepted: the job is in the DLQ
	OpFenced  = "fenced"  // a write was refused with ErrFenced (Err names it)
	OpClaim   = "claim"   // ClaimUnpublished returned Events
	OpPublish = "publish" // Publish appended broker message Msg for Event
	OpMark    = "mark"    // MarkPublished accepted
	OpApply   = "apply"   // Apply of broker message Msg; Applied false: deduped
	OpKill    = crash.OpKill

	OpRedrive   = "redrive"   // operator: Redrive of dead Job accepted
	OpReprocess = "reprocess" // operator: Enqueue of dead Job's next version returned job New
	OpAudit     = "audit"     // operator: audit row Err (the action) for Job, New
	OpResubmit  = "resubmit"  // operator: Enqueue of Key's own payload returned Job (Deduped: not created)
	OpConflict  = "conflict"  // operator: Enqueue of Key with another payload; Err "" refused, else what it returned
)

// Entry is one history line. T0 and T1 are wall-clock nanoseconds taken
// just before the operation started and just after it returned: the
// database acted somewhere in between, which is what lets the stale-fence
// check order operations of different processes without false alarms.
type Entry struct {
	Op      string  `json:"op"`
	Proc    string  `json:"proc,omitempty"`
	Job     int64   `json:"job,omitempty"`
	Fence   uint64  `json:"fence,omitempty"`
	Stage   string  `json:"stage,omitempty"`
	Attempt int32   `json:"attempt,omitempty"`
	Event   int64   `json:"event,omitempty"`
	Events  []int64 `json:"events,omitempty"`
	Msg     int64   `json:"msg,omitempty"`
	Applied bool    `json:"applied,omitempty"`
	Deduped bool    `json:"deduped,omitempty"`
	Err     string  `json:"err,omitempty"`
	Point   string  `json:"point,omitempty"`
	Stmt    int     `json:"stmt,omitempty"`    // kill inside an operation: after this many statements
	Value   uint64  `json:"value,omitempty"`   // commit: the stage result's value the store returned
	Payload uint64  `json:"payload,omitempty"` // conflict: the other payload sent
	Visible int64   `json:"visible,omitempty"` // retry: the visible time it set; cancel: the one it would have set
	New     int64   `json:"new,omitempty"`     // reprocess, audit: the new job
	Key     string  `json:"key,omitempty"`     // resubmit, conflict
	T0      int64   `json:"t0,omitempty"`
	T1      int64   `json:"t1,omitempty"`
}

// Stamped is e as process proc's line.
func (e Entry) Stamped(proc string) Entry { e.Proc = proc; return e }

// Marked is e with the supervisor's fields: a kill line.
func (e Entry) Marked(m crash.Mark) Entry {
	e.Op, e.Point, e.Stmt, e.T0, e.T1 = m.Op, m.Point, m.Stmt, m.T0, m.T1
	return e
}

// History is a process's history file (package crash). A nil History
// writes nothing; one without a file keeps its entries in memory (tests).
type History = crash.History[Entry]

// OpenHistory opens (appending) the history file at path for process proc.
func OpenHistory(path, proc string) (*History, error) {
	return crash.OpenHistory[Entry](path, proc, "durasim worker")
}

// ReadHistory reads a history file; a torn last line is ignored.
func ReadHistory(path string) ([]Entry, error) { return crash.ReadHistory[Entry](path) }
