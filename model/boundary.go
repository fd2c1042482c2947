package model

import "fmt"

// Boundary is a named point between two steps of an actor where a fault can
// be injected (seed 000's worker.mjs crash injector, generalised).
type Boundary uint8

// The named boundaries. Their text names are part of the plan format and of
// traces; never rename one.
const (
	NoBoundary Boundary = iota
	// Worker boundaries.
	AfterLease           // lease granted, nothing done yet
	AfterExtract         // stage work (extraction) done, nothing committed
	AfterCommitBeforeAck // outbox committed, queue not yet told
	AfterAck             // queue acknowledged (stage checkpoint or final ack)
	AfterDLQWrite        // DLQ envelope written, job not yet marked dead
	// Dual-write variant only: result in the database, broker not yet told.
	AfterDBWriteBeforePublish
	// Relay, consumer and API boundaries.
	RelayAfterPublishBeforeMark
	ConsumerAfterApply
	AfterAcceptBeforeEnqueue
	// Mark-before-publish variant only: the row is marked published, the
	// broker has not been told.
	RelayAfterMarkBeforePublish
	// The consumer received a message and has not applied it yet.
	ConsumerAfterReceive
	boundaryCount
)

var boundaryNames = [boundaryCount]string{
	NoBoundary:                  "none",
	AfterLease:                  "after_lease",
	AfterExtract:                "after_extract",
	AfterCommitBeforeAck:        "after_commit_before_ack",
	AfterAck:                    "after_ack",
	AfterDLQWrite:               "after_dlq_write",
	AfterDBWriteBeforePublish:   "after_db_write_before_publish",
	RelayAfterPublishBeforeMark: "relay_after_publish_before_mark",
	ConsumerAfterApply:          "consumer_after_apply",
	AfterAcceptBeforeEnqueue:    "after_accept_before_enqueue",
	RelayAfterMarkBeforePublish: "relay_after_mark_before_publish",
	ConsumerAfterReceive:        "consumer_after_receive",
}

var boundaryRoles = [boundaryCount]Role{
	AfterLease:                  RoleWorker,
	AfterExtract:                RoleWorker,
	AfterCommitBeforeAck:        RoleWorker,
	AfterAck:                    RoleWorker,
	AfterDLQWrite:               RoleWorker,
	AfterDBWriteBeforePublish:   RoleWorker,
	RelayAfterPublishBeforeMark: RoleRelay,
	ConsumerAfterApply:          RoleConsumer,
	AfterAcceptBeforeEnqueue:    RoleAPI,
	RelayAfterMarkBeforePublish: RoleRelay,
	ConsumerAfterReceive:        RoleConsumer,
}

func (b Boundary) String() string { return enumName(boundaryNames[:], b, "boundary") }

// Role is the kind of actor that crosses the boundary.
func (b Boundary) Role() Role {
	if b < boundaryCount {
		return boundaryRoles[b]
	}
	return RoleNone
}

// Boundaries lists every named boundary in a stable order.
func Boundaries() []Boundary {
	out := make([]Boundary, 0, boundaryCount-1)
	for b := NoBoundary + 1; b < boundaryCount; b++ {
		out = append(out, b)
	}
	return out
}

// ParseBoundary maps a text name back to its Boundary.
func ParseBoundary(s string) (Boundary, error) {
	for b := NoBoundary + 1; b < boundaryCount; b++ {
		if boundaryNames[b] == s {
			return b, nil
		}
	}
	return NoBoundary, fmt.Errorf("unknown boundary %q", s)
}
