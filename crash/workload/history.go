package workload

import (
	"time"

	"github.com/durasim/durasim/crash"
)

// History operations: one line per operation a process made or saw. Every
// library's handler writes the same lines; a library without a
// transactional completion writes no complete_tx.
const (
	OpStart    = "start"       // a process began (Point, Nth: its kill point; Zone: its time zone)
	OpInsert   = "insert"      // the orchestrator's client inserted a document: Job, Skipped (the queue refused it as a duplicate), Unique (asked for)
	OpFetch    = "fetch"       // the handler received Job at Attempt (T0: the queue's fetch, where the library says when; T1: the handler's start)
	OpWork     = "work"        // the handler's work ended; the effect not written yet
	OpEffect   = "effect"      // the effect of Job's Attempt written (Tx: in that transaction, uncommitted; 0: durable) → Applied
	OpComplete = "complete_tx" // the library's transactional completion returned Job's row: State, RowAttempt (Tx)
	OpCommit   = "commit"      // Tx committed
	OpRollback = "rollback"    // Tx rolled back (Err: why: stale_completion, an error)
	OpUnknown  = "commit_err"  // Tx's COMMIT returned an error: committed or not, unknown
	OpTimeout  = "timeout"     // Job's work context had ended (its timeout, or its lease lost): the call failed, the handler returns the error
	OpError    = "error"       // a call failed for another reason (Err), the handler returns it
	OpKill     = crash.OpKill  // the process is about to SIGKILL itself at Point (hard_stop: the supervisor SIGKILLed it)
	OpStop     = "sigstop"     // the orchestrator froze process Point (its name), which held Job at Attempt
	OpCont     = "sigcont"     // the orchestrator thawed process Point; Err: why (taken_over, max_freeze, stopping, held_nothing)
)

// Entry is one history line. T0 and T1 are wall-clock nanoseconds taken
// before the operation started and after it returned: the queue or the
// database acted somewhere in between.
type Entry struct {
	Op         string `json:"op"`
	Proc       string `json:"proc,omitempty"`
	Job        int64  `json:"job,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	Tenant     string `json:"tenant,omitempty"` // insert: the document's args
	Doc        string `json:"doc,omitempty"`
	Version    int    `json:"version,omitempty"`
	Max        int    `json:"max,omitempty"` // insert: max attempts
	Unique     bool   `json:"unique,omitempty"`
	Skipped    bool   `json:"skipped,omitempty"`
	Msg        string `json:"msg,omitempty"` // insert: the queue's own id of the job's message, where it is not the job's number
	Key        string `json:"key,omitempty"`
	Applied    bool   `json:"applied,omitempty"`
	Tx         int    `json:"tx,omitempty"` // the process's transaction number (from 1)
	State      string `json:"state,omitempty"`
	RowAttempt int    `json:"row_attempt,omitempty"` // complete_tx: the attempt of the row the completion returned
	Point      string `json:"point,omitempty"`
	Nth        int    `json:"nth,omitempty"`
	Zone       string `json:"zone,omitempty"` // start: the process's time zone (a TZ fault took)
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

// Line is a line of op about Job's Attempt.
func Line(op string, job int64, attempt int) Entry { return Entry{Op: op, Job: job, Attempt: attempt} }

// History is a process's history file (package crash). A nil History
// writes nothing; one without a file keeps its entries in memory (tests).
type History = crash.History[Entry]

// Killer decides, at each point a handler crosses, whether the process
// dies there (package crash: the kill line, then SIGKILL to itself). The
// zero value (and nil) never kills.
type Killer = crash.Killer[Entry]

// OpenHistory opens (appending) the history file at path for process
// proc; who names the command in a write error's message.
func OpenHistory(path, proc, who string) (*History, error) {
	return crash.OpenHistory[Entry](path, proc, who)
}

// Stamp is the histories' time base: wall-clock nanoseconds.
func Stamp() int64 { return time.Now().UnixNano() }
