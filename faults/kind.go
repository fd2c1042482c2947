package faults

import (
	"strconv"
)

// Kind is the kind of a [Fault]. Its text names are part of the plan format;
// never rename one. The numbers are not: a plan is text.
type Kind uint8

// The fault kinds of every system. A [Vocabulary] says which of them a
// system has; the package documentation says why each name is what it is.
const (
	Crash            Kind = iota // an actor dies at a boundary
	Pause                        // an actor stalls at a boundary (GC or network stall)
	Duplicate                    // the broker delivers the nth published message twice
	Delay                        // the broker delays the nth published message
	Reorder                      // the broker delivers the nth message after the next one
	Transient                    // a document's work fails transiently, and is retried
	Permanent                    // extraction of a document fails permanently
	Poison                       // a document fails schema validation every time
	RateLimit                    // the provider answers 429 during a burst
	AmbiguousCommit              // the nth commit succeeds but the caller sees a timeout
	DeadlinePressure             // a document's deadline passes while it waits
	Resubmit                     // a client submits its document again after its reply
	ResubmitEdited               // a client submits an edited document under the same id
	CrashLoop                    // every worker that leases a document dies (while faults last)
	Malformed                    // a client's first request for a document is malformed
	// Slow: a document's work takes the given time, not watching its
	// context (a target's handler).
	Slow
	Cancel // a document's handler cancels its job (final, not retried)
	Snooze // a document's handler snoozes its job for a while
	// ResubmitAt is a client submitting its document again at a given
	// time (a target's client): text "resubmit", like [Resubmit], whose
	// time is its reply. A system has one of the two.
	ResubmitAt
	Redrive     // an operator asks a failed (discarded or cancelled) job to run again
	FewAttempts // a document's job is inserted with its own max attempts
	// Clock faults (a target's): a worker's process clock runs ahead of
	// (or behind) the database's by for= from at= on; the processes'
	// local time zone is for= behind UTC; at at= a daylight-saving
	// transition moves that zone for= ahead. A queue applies only those
	// its policy says its clocks can take (target.Policy.Clocks).
	ClockAhead
	ClockBehind
	Zone
	DST
	// The reach of a target's workload (its calls beyond the worker's):
	// an operator cancels a document's running job from outside (at its
	// attempt's fetch); deletes its job once finished; updates its
	// metadata; another writer changes its row out of band (a long error
	// history written onto it); a client inserts the document again in a
	// batch that repeats its unique args.
	OutsideCancel
	Delete
	Metadata
	OutOfBand
	BatchInsert
	// A target worker's own job timeout for a document's jobs (River's
	// Worker.Timeout), in place of the client's: for= long, or none at
	// all (its work's context never expires, and a rescuer that honours
	// worker timeouts never takes its job back).
	WorkerTimeout
	NoTimeout
	KindCount
)

var kindNames = [KindCount]string{
	Crash:            "crash",
	Pause:            "pause",
	Duplicate:        "duplicate",
	Delay:            "delay",
	Reorder:          "reorder",
	Transient:        "transient",
	Permanent:        "permanent",
	Poison:           "poison",
	RateLimit:        "429",
	AmbiguousCommit:  "ambiguous-commit",
	DeadlinePressure: "deadline",
	Resubmit:         "resubmit",
	ResubmitEdited:   "resubmit-edited",
	CrashLoop:        "crash-loop",
	Malformed:        "malformed",
	Slow:             "slow",
	Cancel:           "cancel",
	Snooze:           "snooze",
	ResubmitAt:       "resubmit",
	Redrive:          "redrive",
	FewAttempts:      "few-attempts",
	ClockAhead:       "clock-ahead",
	ClockBehind:      "clock-behind",
	Zone:             "zone",
	DST:              "dst",
	OutsideCancel:    "outside-cancel",
	Delete:           "delete",
	Metadata:         "metadata",
	OutOfBand:        "out-of-band",
	BatchInsert:      "batch-insert",
	WorkerTimeout:    "worker-timeout",
	NoTimeout:        "no-timeout",
}

// Clock reports whether the kind moves a clock (clock-ahead,
// clock-behind, zone, dst).
func (k Kind) Clock() bool { return k == ClockAhead || k == ClockBehind || k == Zone || k == DST }

func (k Kind) String() string {
	if k < KindCount {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// atBoundary reports whether the kind strikes an actor at a boundary.
func (k Kind) atBoundary() bool { return k == Crash || k == Pause }
