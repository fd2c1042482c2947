package target

import (
	"strconv"
	"strings"
)

// OpKind is what an actor recorded it did, or saw done.
type OpKind uint8

// The operations: what each call was asked and what it returned, as the
// actor that made it saw it. The fields each uses are noted.
const (
	OpNone      OpKind = iota
	OpInsert           // Args, Kind, MaxAttempts, Unique → Job, Skipped (Tx: inside a handler's transaction)
	OpFetch            // Job fetched as Attempt (its AttemptedAt is T); Timeout: its worker's own timeout (0: the client's, negative: none)
	OpWork             // the handler's work on Job's Attempt ends as Outcome (Err: its code), the effect not yet written
	OpEffect           // the handler wrote its effect for Job's Attempt under Key → Applied (Tx: in a transaction; else durable at once)
	OpComplete         // in Tx, Job's completion → State the queue returned
	OpCommit           // Tx committed
	OpRollback         // Tx rolled back (Err: why: a crash, a completion the handler refused)
	OpReport           // Job's Outcome reported → Applied, State, At (scheduled), Attempt
	OpStuck            // the rescuer read Job (Attempt, attempted at At) as stuck
	OpRescue           // Job rescued → State, At (scheduled), Applied (the row read back has them)
	OpSchedule         // Job made available (State; discarded: a unique collision)
	OpRetry            // an operator asked Job to run again → State
	OpCrash            // Actor died at Boundary (Job: the one in its hands)
	OpPause            // Actor froze at Boundary until At (Job: the one in its hands)
	OpQuiesce          // the faults stop
	OpTimeout          // Job's work context expired (the client's job timeout): the handler's calls fail, it returns an error
	OpCancelJob        // an operator cancelled Job from outside → State (running: the cancel asked); Err: not_found
	OpDelete           // an operator deleted Job → Applied (deleted; State as it was); Err: running, not_found
	OpUpdate           // Key "metadata": an operator set Job's metadata; "out_of_band": another writer added Attempt errors to its row → State
	opKindCount
)

var opKindNames = [opKindCount]string{"none", "insert", "fetch", "work", "effect", "complete_tx", "commit", "rollback",
	"report", "stuck", "rescue", "schedule", "retry", "crash", "pause", "quiesce", "timeout", "cancel_job", "delete", "update"}

func (k OpKind) String() string {
	if k >= opKindCount {
		return "op?"
	}
	return opKindNames[k]
}

// Op is one recorded operation. Seq numbers them from 1 in the order
// they happened; violations name them.
type Op struct {
	Seq         uint64
	T           Time
	Kind        OpKind
	Actor       string
	Job         JobID
	Attempt     int
	State       State
	At          Time
	Applied     bool
	Skipped     bool
	Unique      bool
	Outcome     Outcome
	Kind2       string // the job's kind (insert)
	Args        Args
	MaxAttempts int
	Key         string
	Tx          int // the handler's transaction (0: none)
	Batch       int // an insert's batch (0: an insert of its own)
	Boundary    string
	Err         string
	Timeout     Time // a fetch's: the job's timeout as its worker sets it (0: the client's; negative: none)
}

// String is the op's trace line: "t=1.250s w2 fetch j5 attempt=1". Every
// field that matters prints, so two histories that differ differ in
// their traces.
func (o Op) String() string { return string(o.Append(nil)) }

// Append appends the op's trace line to b.
func (o Op) Append(b []byte) []byte {
	b = append(b, "t="...)
	b = appendSeconds(b, o.T)
	b = append(b, ' ')
	b = append(b, o.Actor...)
	b = append(b, ' ')
	b = append(b, o.Kind.String()...)
	if o.Job != 0 {
		b = append(b, " j"...)
		b = strconv.AppendInt(b, int64(o.Job), 10)
	}
	switch o.Kind {
	case OpInsert:
		b = append(b, " kind="...)
		b = append(b, o.Kind2...)
		b = append(b, " tenant="...)
		b = append(b, o.Args.Tenant...)
		b = append(b, " doc="...)
		b = append(b, o.Args.Doc...)
		b = appendInt(b, " v=", o.Args.Version)
		if o.Args.Source != 0 {
			b = appendInt(b, " source=j", int(o.Args.Source))
		}
		b = appendInt(b, " max_attempts=", o.MaxAttempts)
		b = appendFlag(b, " unique", o.Unique)
		b = appendFlag(b, " skipped", o.Skipped)
		if o.Batch != 0 {
			b = appendInt(b, " batch=", o.Batch)
		}
	case OpFetch, OpStuck, OpTimeout:
		b = appendInt(b, " attempt=", o.Attempt)
		switch {
		case o.Kind == OpFetch && o.Timeout < 0:
			b = append(b, " timeout=none"...)
		case o.Kind == OpFetch && o.Timeout > 0:
			b = append(b, " timeout="...)
			b = appendSeconds(b, o.Timeout)
		}
		if o.Kind == OpStuck {
			b = append(b, " attempted_at="...)
			b = appendSeconds(b, o.At)
		}
	case OpWork:
		b = appendInt(b, " attempt=", o.Attempt)
		b = append(b, " outcome="...)
		b = append(b, o.Outcome.String()...)
		if o.At != 0 {
			b = append(b, " snooze="...)
			b = appendSeconds(b, o.At)
		}
	case OpEffect:
		b = appendInt(b, " attempt=", o.Attempt)
		b = append(b, " key="...)
		b = append(b, o.Key...)
		b = appendFlag(b, " applied", o.Applied)
	case OpComplete:
		b = append(b, " returned="...)
		b = append(b, o.State.String()...)
	case OpReport:
		b = append(b, " outcome="...)
		b = append(b, o.Outcome.String()...)
		b = appendFlag(b, " applied", o.Applied)
		b = append(b, " state="...)
		b = append(b, o.State.String()...)
		b = appendInt(b, " attempt=", o.Attempt)
		if o.At != 0 {
			b = append(b, " scheduled_at="...)
			b = appendSeconds(b, o.At)
		}
	case OpRescue, OpRetry, OpSchedule:
		b = append(b, " state="...)
		b = append(b, o.State.String()...)
		if o.At != 0 {
			b = append(b, " scheduled_at="...)
			b = appendSeconds(b, o.At)
		}
		if o.Kind == OpRescue {
			b = appendFlag(b, " applied", o.Applied)
		}
	case OpCancelJob, OpDelete, OpUpdate:
		if o.Kind == OpUpdate {
			b = append(b, " what="...)
			b = append(b, o.Key...)
			if o.Attempt != 0 {
				b = appendInt(b, " errors+=", o.Attempt)
			}
		}
		b = appendFlag(b, " applied", o.Applied)
		b = append(b, " state="...)
		b = append(b, o.State.String()...)
	case OpCrash, OpPause:
		b = append(b, " at="...)
		b = append(b, o.Boundary...)
		if o.Kind == OpPause {
			b = append(b, " until="...)
			b = appendSeconds(b, o.At)
		}
	}
	if o.Tx != 0 {
		b = appendInt(b, " tx=", o.Tx)
	}
	if o.Err != "" {
		b = append(b, " err="...)
		b = append(b, o.Err...)
	}
	return b
}

func appendInt(b []byte, name string, v int) []byte {
	b = append(b, name...)
	return strconv.AppendInt(b, int64(v), 10)
}

func appendFlag(b []byte, name string, on bool) []byte {
	if on {
		b = append(b, name...)
	}
	return b
}

// appendSeconds writes t as seconds with milliseconds: "12.345s" (a
// negative time, which no run has, with its sign).
func appendSeconds(b []byte, t Time) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	ms := t / Millisecond
	b = strconv.AppendInt(b, ms/1000, 10)
	b = append(b, '.')
	frac := strconv.FormatInt(ms%1000, 10)
	b = append(b, strings.Repeat("0", 3-len(frac))...)
	b = append(b, frac...)
	return append(b, 's')
}

// FormatSeconds is t as a trace prints it.
func FormatSeconds(t Time) string { return string(appendSeconds(nil, t)) }
