package faults

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the kind of a [Fault]. Its text names are part of the plan format;
// never rename one.
type Kind uint8

// The fault kinds.
const (
	Crash            Kind = iota // an actor dies at a boundary
	Pause                        // an actor stalls at a boundary (GC or network stall)
	Duplicate                    // the broker delivers the nth published message twice
	Delay                        // the broker delays the nth published message
	Reorder                      // the broker delivers the nth message after the next one
	Transient                    // extraction of a document fails transiently
	Permanent                    // extraction of a document fails permanently
	Poison                       // a document fails schema validation every time
	RateLimit                    // the provider answers 429 during a burst
	AmbiguousCommit              // the nth commit succeeds but the caller sees a timeout
	DeadlinePressure             // a document's deadline passes while it waits
	Resubmit                     // a client submits its document again after its reply
	ResubmitEdited               // a client submits an edited document under the same id
	CrashLoop                    // every worker that leases a document dies (while faults last)
	Malformed                    // a client's first request for a document is malformed
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
}

func (k Kind) String() string {
	if k < KindCount {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind maps a kind's text name back to the kind.
func ParseKind(s string) (Kind, error) {
	for k := range KindCount {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown fault kind %q (want %s)", s, strings.Join(kindNames[:], ", "))
}

// atBoundary reports whether the kind strikes an actor at a boundary.
func (k Kind) atBoundary() bool { return k == Crash || k == Pause }
