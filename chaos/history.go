package chaos

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// History operations: one line per completed operation.
const (
	OpStart   = "start"   // a process incarnation began
	OpLease   = "lease"   // LeaseNext granted Job under Fence
	OpBeat    = "beat"    // Heartbeat accepted
	OpCommit  = "commit"  // Commit accepted: Event holds Stage's result
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
	OpKill    = "kill"    // the process is about to SIGKILL itself at Point

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
	Visible int64   `json:"visible,omitempty"` // retry: the visible time it set; cancel: the one it would have set
	New     int64   `json:"new,omitempty"`     // reprocess, audit: the new job
	Key     string  `json:"key,omitempty"`     // resubmit, conflict
	T0      int64   `json:"t0,omitempty"`
	T1      int64   `json:"t1,omitempty"`
}

// History appends entries to a file, one write(2) per line with no
// buffering: a line written is in the kernel when the process is killed,
// so a SIGKILL loses at most the line of the operation in flight. A nil
// History, or one without a file, keeps entries in memory (tests).
type History struct {
	Proc string

	mu      sync.Mutex
	f       *os.File
	entries []Entry
}

// OpenHistory opens (appending) the history file at path for process proc.
func OpenHistory(path, proc string) (*History, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &History{Proc: proc, f: f}, nil
}

// Write appends e. A write error ends the process (status 3, which the
// orchestrator treats as a failure): a history with a hole would make the
// checks lie.
func (h *History) Write(e Entry) {
	if h == nil {
		return
	}
	e.Proc = h.Proc
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		h.entries = append(h.entries, e)
		return
	}
	b, err := json.Marshal(e)
	if err == nil {
		_, err = h.f.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "durasim worker: history %s: %v\n", h.f.Name(), err)
		os.Exit(3)
	}
}

// Entries returns the in-memory entries (tests).
func (h *History) Entries() []Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Entry(nil), h.entries...)
}

// Close closes the file.
func (h *History) Close() error {
	if h == nil || h.f == nil {
		return nil
	}
	return h.f.Close()
}

// ReadHistory reads a history file. A torn last line (a write cut short,
// which O_APPEND writes of this size never are in practice) is ignored.
func ReadHistory(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
