package asynqchaos

import (
	"time"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/riverchaos"
)

// The history's ops are riverchaos's: the handlers of both real-client
// workloads write the same lines (and riverchaos.ToOps turns them into
// the checks' ops); asynq has no JobCompleteTx, so no complete_tx line.
const (
	OpStart    = riverchaos.OpStart
	OpInsert   = riverchaos.OpInsert // the orchestrator's client enqueued document Job (Skipped: asynq refused its task ID as taken)
	OpFetch    = riverchaos.OpFetch  // the handler received Job at Attempt (Retried+1)
	OpWork     = riverchaos.OpWork
	OpEffect   = riverchaos.OpEffect
	OpCommit   = riverchaos.OpCommit
	OpRollback = riverchaos.OpRollback
	OpUnknown  = riverchaos.OpUnknown
	OpTimeout  = riverchaos.OpTimeout // the task's context had expired (its Timeout, or its lease lost)
	OpError    = riverchaos.OpError
	OpKill     = riverchaos.OpKill
	OpStop     = riverchaos.OpStop
	OpCont     = riverchaos.OpCont
)

// Entry is one history line: riverchaos's, and the time zone a child
// runs in (its start line), which shows the TZ fault took.
type Entry struct {
	riverchaos.Entry
	Zone string `json:"zone,omitempty"`
}

// Stamped is e as process proc's line.
func (e Entry) Stamped(proc string) Entry { e.Proc = proc; return e }

// Marked is e with the supervisor's fields: a kill line.
func (e Entry) Marked(m crash.Mark) Entry {
	e.Op, e.Point, e.T0, e.T1 = m.Op, m.Point, m.T0, m.T1
	return e
}

// History is a process's history file (package crash).
type History = crash.History[Entry]

// Killer is a child's self-kill at its point (package crash's).
type Killer = crash.Killer[Entry]

func line(op string, job int64, attempt int) Entry {
	return Entry{Entry: riverchaos.Entry{Op: op, Job: job, Attempt: attempt}}
}

// stamp is the history's time base: wall-clock nanoseconds.
func stamp() int64 { return time.Now().UnixNano() }
