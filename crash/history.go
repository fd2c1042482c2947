package crash

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/durasim/durasim/internal/jsonl"
)

// The ops of the lines the supervisor reads in every workload's
// histories, or writes itself.
const (
	// OpKill: the process is about to SIGKILL itself at the line's point
	// ([Killer]), or, at point [HardStop], the supervisor SIGKILLed it
	// when it did not stop in time. The checks read both as a crash.
	OpKill = "kill"
	// OpArmed: the process stopped with its kill point armed and not
	// fired; the line says how far it got ([Killer.Disarm]).
	OpArmed = "armed"
)

// HardStop is the point of the kill line of a hard stop.
const HardStop = "hard_stop"

// Mark is what the supervisor reads of any history line, and the whole
// of the lines the supervisor and [Killer] write themselves. Every
// workload's line type is a JSON object with these fields under these
// names (and its own besides), so that one reader serves every workload.
type Mark struct {
	Op    string `json:"op"`
	Proc  string `json:"proc,omitempty"`
	Point string `json:"point,omitempty"`
	// Stmt, on a kill line of an inside point, is the statement boundary
	// the process died at; on an armed line, the most statement
	// boundaries one run of the point's operation passed.
	Stmt int `json:"stmt,omitempty"`
	// Armed lines: how often the point was crossed (at its statement
	// boundary, for an inside point), and how many runs of an inside
	// point's operation ended.
	Crossed int   `json:"crossed,omitempty"`
	Ops     int   `json:"ops,omitempty"`
	T0      int64 `json:"t0,omitempty"`
	T1      int64 `json:"t1,omitempty"`
}

// Line is a workload's history line type E.
type Line[E any] interface {
	// Stamped is the line as process proc wrote it.
	Stamped(proc string) E
	// Marked is the line with m's op, point, statement and times: a
	// kill line that keeps the workload's own fields (the job the
	// process held, say).
	Marked(m Mark) E
}

// History appends a process's lines to its history file, one write(2)
// per line and no buffering (internal/jsonl): a line written is in the
// kernel when the process is killed. A nil History writes nothing; one
// without a file keeps its lines in memory (tests).
type History[E Line[E]] struct {
	Proc  string
	log   jsonl.Log[E]
	marks jsonl.Log[Mark] // the armed line, on the same file
}

// OpenHistory opens (appending) the history file at path for process
// proc; who names the command in the message of a write error.
func OpenHistory[E Line[E]](path, proc, who string) (*History[E], error) {
	h := &History[E]{Proc: proc}
	if err := h.log.Open(path, who); err != nil {
		return nil, err
	}
	if err := h.marks.Open(path, who); err != nil {
		h.log.Close()
		return nil, err
	}
	return h, nil
}

// Write appends e, stamped with the process. A write error ends the
// process (status 3): a history with a hole would make the checks lie.
func (h *History[E]) Write(e E) {
	if h != nil {
		h.log.Append(e.Stamped(h.Proc))
	}
}

func (h *History[E]) mark(m Mark) {
	if h != nil {
		m.Proc = h.Proc
		h.marks.Append(m)
	}
}

// Entries returns the in-memory lines (tests).
func (h *History[E]) Entries() []E { return h.log.Entries() }

// Marks returns the in-memory lines the Killer wrote as marks (tests).
func (h *History[E]) Marks() []Mark { return h.marks.Entries() }

// Close closes the file.
func (h *History[E]) Close() error {
	if h == nil {
		return nil
	}
	err := h.log.Close()
	if merr := h.marks.Close(); err == nil {
		err = merr
	}
	return err
}

// ReadHistory reads a history file; a torn last line is ignored.
func ReadHistory[E any](path string) ([]E, error) { return jsonl.Read[E](path) }

// ReadHistories reads every history file (*.jsonl) of a run's directory,
// in file name order.
func ReadHistories[E any](dir string) ([]E, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var all []E
	for _, f := range files {
		es, err := ReadHistory[E](f)
		if err != nil {
			return nil, err
		}
		all = append(all, es...)
	}
	return all, nil
}

// RunDir is a run's directory for histories and logs: dir, made if need
// be and refused (a *UsageError) if it holds histories already, or, for
// "", a new temporary directory named after the workload.
func RunDir(dir, workload string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "durasim-"+workload+"-*")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if old, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(old) > 0 {
		return "", Usage("-dir %s already holds histories (%s): give an empty directory", dir, filepath.Base(old[0]))
	}
	return dir, nil
}
