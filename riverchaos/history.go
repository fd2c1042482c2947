package riverchaos

import (
	"time"

	"github.com/durasim/durasim/internal/jsonl"
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
	OpKill     = "kill"        // the process is about to SIGKILL itself at Point
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

// History appends entries to a file, one write(2) per line and no
// buffering (internal/jsonl): a line written is in the kernel when the
// process is killed. A nil History writes nothing; one without a file
// keeps its entries in memory (tests).
type History struct {
	Proc string
	log  jsonl.Log[Entry]
}

// OpenHistory opens (appending) the history file at path for process proc.
func OpenHistory(path, proc string) (*History, error) {
	h := &History{Proc: proc}
	if err := h.log.Open(path, "durasim river-worker"); err != nil {
		return nil, err
	}
	return h, nil
}

// Write appends e, stamped with the process. A write error ends the
// process (status 3): a history with a hole would make the checks lie.
func (h *History) Write(e Entry) {
	if h == nil {
		return
	}
	e.Proc = h.Proc
	h.log.Append(e)
}

// Entries returns the in-memory entries (tests).
func (h *History) Entries() []Entry { return h.log.Entries() }

// Close closes the file.
func (h *History) Close() error {
	if h == nil {
		return nil
	}
	return h.log.Close()
}

// ReadHistory reads a history file; a torn last line is ignored.
func ReadHistory(path string) ([]Entry, error) { return jsonl.Read[Entry](path) }

// stamp is the history's time base: wall-clock nanoseconds.
func stamp() int64 { return time.Now().UnixNano() }
