package riverchaos

import (
	"time"

	"github.com/durasim/durasim/crash"
)

// History operations: one line per operation a process made or saw.
const (
	OpStart    = "start"       // a process began (Point, Nth: its kill point)
	OpInsert   = "insert"      // the orchestrator's client inserted a document: Job, Skipped
	OpFetch    = "fetch"       // Work received Job at Attempt (T0: its attempted_at, T1: Work's start)
	OpWork     = "work"        // the handler's work ended; the effect not written yet
	OpEffect   = "effect"      // the effect of Job's Attempt written (Tx: in that transaction, uncommitted; 0: durable) → Applied
	OpComplete = "complete_tx" // JobCompleteTx returned Job's row: State, RowAttempt (Tx)
	OpCommit   = "commit"      // Tx committed
	OpRollback = "rollback"    // Tx rolled back (Err: why: stale_completion, an error)
	OpUnknown  = "commit_err"  // Tx's COMMIT returned an error: committed or not, unknown
	OpTimeout  = "timeout"     // Job's work context had expired (River's JobTimeout): the call failed, the handler returns the error
	OpError    = "error"       // a call failed for another reason (Err), the handler returns it
	OpKill     = crash.OpKill  // the process is about to SIGKILL itself at Point (hard_stop: the orchestrator SIGKILLed it)
	OpStop     = "sigstop"     // the orchestrator froze process Point (its name), which held Job at Attempt
	OpCont     = "sigcont"     // the orchestrator thawed process Point; Err: why (taken_over, max_freeze, stopping)
)

// Entry is one history line. T0 and T1 are wall-clock nanoseconds taken
// before the operation started and after it returned: the database acted
// somewhere in between.
type Entry struct {
	Op         string `json:"op"`
	Proc       string `json:"proc,omitempty"`
	Job        int64  `json:"job,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	Tenant     string `json:"tenant,omitempty"` // insert: the document's args
	Doc        string `json:"doc,omitempty"`
	Version    int    `json:"version,omitempty"`
	Max        int    `json:"max,omitempty"` // insert: max_attempts
	Skipped    bool   `json:"skipped,omitempty"`
	Key        string `json:"key,omitempty"`
	Applied    bool   `json:"applied,omitempty"`
	Tx         int    `json:"tx,omitempty"` // the process's transaction number (from 1)
	State      string `json:"state,omitempty"`
	RowAttempt int    `json:"row_attempt,omitempty"` // complete_tx: the attempt of the row JobCompleteTx returned
	Point      string `json:"point,omitempty"`
	Nth        int    `json:"nth,omitempty"`
	Err        string `json:"err,omitempty"`
	T0         int64  `json:"t0,omitempty"`
	T1         int64  `json:"t1,omitempty"`
}

// Stamped is e as process proc's line.
func (e Entry) Stamped(proc string) Entry { e.Proc = proc; return e }

// Marked is e with the supervisor's fields: a kill line.
func (e Entry) Marked(m crash.Mark) Entry {
	e.Op, e.Point, e.T0, e.T1 = m.Op, m.Point, m.T0, m.T1
	return e
}

// History is a process's history file (package crash). A nil History
// writes nothing; one without a file keeps its entries in memory (tests).
type History = crash.History[Entry]

// OpenHistory opens (appending) the history file at path for process proc.
func OpenHistory(path, proc string) (*History, error) {
	return crash.OpenHistory[Entry](path, proc, "durasim river-worker")
}

// stamp is the history's time base: wall-clock nanoseconds.
func stamp() int64 { return time.Now().UnixNano() }
