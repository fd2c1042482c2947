package boundary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Boundary is a named point where a fault can strike.
type Boundary uint8

// The boundaries. Append only: the numbers are hashed into traces.
const (
	None Boundary = iota

	// The pipeline's worker (package model, and its SQL store's workers).
	AfterLease           // lease granted, nothing done yet
	AfterExtract         // stage work (extraction) done, nothing committed
	AfterCommitBeforeAck // the stage's result and outbox row committed, the queue not yet told
	AfterAck             // the queue acknowledged (a stage's checkpoint or the final ack)
	AfterDLQWrite        // the DLQ envelope written, the job not yet marked dead (in SQL: one transaction, right after it)
	// AfterDBWriteBeforePublish (the dual-write variant only): the result
	// in the database, the broker not yet told.
	AfterDBWriteBeforePublish
	RelayAfterPublishBeforeMark // the relay published an outbox row, not yet marked it
	ConsumerAfterApply          // the consumer applied an event's effect and recorded its id
	AfterAcceptBeforeEnqueue    // the API accepted a request, the job not yet enqueued
	// RelayAfterMarkBeforePublish (the mark-before-publish variant only):
	// the row is marked published, the broker has not been told.
	RelayAfterMarkBeforePublish
	ConsumerAfterReceive // the consumer received a message and has not applied it yet

	// The pipeline's SQL store under real processes (package chaos): the
	// places only a SQL store has.
	AfterInsertBeforeCommit       // inside the commit transaction: the INSERTs run, COMMIT not sent
	RelayAfterClaim               // the relay claimed unpublished rows (locks held), nothing published
	OperatorAfterRedrive          // the operator redrove a job, its audit row not yet written
	OperatorAfterReprocessEnqueue // the operator enqueued a reprocess, its audit row not yet written
	InsideLeaseAfterStmt          // inside LeaseNext's transaction, between two statements
	InsideCommitAfterStmt         // inside Commit's transaction, between two statements
	InsideDeadAfterStmt           // inside Dead's transaction, between two statements
	InsideDeliverAfterStmt        // inside Deliver's transaction, between two statements
	InsideRedriveAfterStmt        // inside Redrive's transaction, between two statements
	InsideEnqueueAfterStmt        // inside an Enqueue of an existing key, between two statements

	// A queue target's worker and rescuer (the target seam: package
	// targetsim, and the targets' real-process workloads).
	AfterFetch        // the worker holds a fetched job, before its work
	AfterWork         // the handler's work is done, nothing written
	AfterEffect       // the effect is written (inside the handler's transaction for the transactional designs)
	BeforeCommit      // inside the handler's transaction: the job's completion made, COMMIT not sent
	AfterCommit       // the handler's transaction committed, the result not yet reported
	AfterReport       // the result is reported, before the next fetch
	RescuerAfterStuck // the rescuer read the stuck jobs, before it rescues them

	Count // the number of boundaries, None included
)

// Actor is the kind of actor that crosses a boundary.
type Actor uint8

// The actors.
const (
	NoActor Actor = iota
	Worker
	Relay
	Consumer
	API
	Operator
	Rescuer
	actorCount
)

var actorNames = [actorCount]string{"none", "worker", "relay", "consumer", "api", "operator", "rescuer"}

func (a Actor) String() string {
	if a < actorCount {
		return actorNames[a]
	}
	return "actor(" + strconv.Itoa(int(a)) + ")"
}

type info struct {
	name  string
	actor Actor
	doc   string
}

var table = [Count]info{
	None:                          {"none", NoActor, "no boundary"},
	AfterLease:                    {"after_lease", Worker, "lease granted, nothing done yet"},
	AfterExtract:                  {"after_extract", Worker, "stage work (extraction) done, nothing committed"},
	AfterCommitBeforeAck:          {"after_commit_before_ack", Worker, "the stage's result and outbox row committed, the queue not yet told"},
	AfterAck:                      {"after_ack", Worker, "the queue acknowledged the stage (checkpoint or final ack)"},
	AfterDLQWrite:                 {"after_dlq_write", Worker, "the DLQ envelope written, the job not yet marked dead"},
	AfterDBWriteBeforePublish:     {"after_db_write_before_publish", Worker, "dual write: the result in the database, the broker not yet told"},
	RelayAfterPublishBeforeMark:   {"relay_after_publish_before_mark", Relay, "the relay published an outbox row, not yet marked it"},
	ConsumerAfterApply:            {"consumer_after_apply", Consumer, "the consumer applied an event's effect and recorded its id"},
	AfterAcceptBeforeEnqueue:      {"after_accept_before_enqueue", API, "the API accepted a request, the job not yet enqueued"},
	RelayAfterMarkBeforePublish:   {"relay_after_mark_before_publish", Relay, "mark before publish: the row marked published, the broker not yet told"},
	ConsumerAfterReceive:          {"consumer_after_receive", Consumer, "the consumer received a message, not yet applied it"},
	AfterInsertBeforeCommit:       {"after_insert_before_commit", Worker, "inside the commit transaction: the INSERTs run, COMMIT not sent"},
	RelayAfterClaim:               {"relay_after_claim", Relay, "the relay claimed unpublished rows, nothing published yet"},
	OperatorAfterRedrive:          {"operator_after_redrive", Operator, "the operator redrove a job, its audit row not yet written"},
	OperatorAfterReprocessEnqueue: {"operator_after_reprocess_enqueue", Operator, "the operator enqueued a reprocess, its audit row not yet written"},
	InsideLeaseAfterStmt:          {"inside_lease_after_stmt", Worker, "inside LeaseNext's transaction, between two statements"},
	InsideCommitAfterStmt:         {"inside_commit_after_stmt", Worker, "inside Commit's transaction, between two statements"},
	InsideDeadAfterStmt:           {"inside_dead_after_stmt", Worker, "inside Dead's transaction, between two statements"},
	InsideDeliverAfterStmt:        {"inside_deliver_after_stmt", Consumer, "inside Deliver's transaction, between two statements"},
	InsideRedriveAfterStmt:        {"inside_redrive_after_stmt", Operator, "inside Redrive's transaction, between two statements"},
	InsideEnqueueAfterStmt:        {"inside_enqueue_after_stmt", Operator, "inside an Enqueue of an existing key, between two statements"},
	AfterFetch:                    {"after_fetch", Worker, "the worker holds a fetched job, before its work"},
	AfterWork:                     {"after_work", Worker, "the handler's work is done, nothing written"},
	AfterEffect:                   {"after_effect", Worker, "the effect is written (in the handler's transaction, or durable)"},
	BeforeCommit:                  {"before_commit", Worker, "inside the handler's transaction: the completion made, COMMIT not sent"},
	AfterCommit:                   {"after_commit", Worker, "the handler's transaction committed, the result not yet reported"},
	AfterReport:                   {"after_report", Worker, "the result is reported, before the next fetch"},
	RescuerAfterStuck:             {"rescuer_after_stuck", Rescuer, "the rescuer read the stuck jobs, before it rescues them"},
}

// String is the boundary's name, as plans and traces spell it.
func (b Boundary) String() string {
	if b < Count {
		return table[b].name
	}
	return "boundary(" + strconv.Itoa(int(b)) + ")"
}

// Actor is the kind of actor that crosses b.
func (b Boundary) Actor() Actor {
	if b < Count {
		return table[b].actor
	}
	return NoActor
}

// Doc says, in a few words, what has happened when b is crossed.
func (b Boundary) Doc() string {
	if b < Count {
		return table[b].doc
	}
	return ""
}

// All lists every boundary but None, in number order.
func All() []Boundary {
	out := make([]Boundary, 0, Count-1)
	for b := None + 1; b < Count; b++ {
		out = append(out, b)
	}
	return out
}

// Parse maps a name to its boundary, among all of them.
func Parse(name string) (Boundary, bool) {
	for b := None + 1; b < Count; b++ {
		if table[b].name == name {
			return b, true
		}
	}
	return None, false
}

// Set is the boundaries one system has, in the order it lists them.
type Set struct {
	system string
	list   []Boundary
}

// NewSet declares the boundaries of a system ("the pipeline", "river").
// It panics on None or a repeated boundary: a declaration is code.
func NewSet(system string, bs ...Boundary) Set {
	for i, b := range bs {
		if b == None || b >= Count || slices.Contains(bs[:i], b) {
			panic(fmt.Sprintf("boundary: NewSet(%q): bad or repeated boundary %v", system, b))
		}
	}
	return Set{system: system, list: slices.Clone(bs)}
}

// System names the set's system, for messages.
func (s Set) System() string { return s.system }

// List is the set's boundaries, in declaration order.
func (s Set) List() []Boundary { return slices.Clone(s.list) }

// Has reports whether the system has b.
func (s Set) Has(b Boundary) bool { return slices.Contains(s.list, b) }

// Of lists the set's boundaries that actor a crosses.
func (s Set) Of(a Actor) []Boundary {
	var out []Boundary
	for _, b := range s.list {
		if b.Actor() == a {
			out = append(out, b)
		}
	}
	return out
}

// Named renames the set's system (a target's set under the target's
// name), keeping its boundaries.
func (s Set) Named(system string) Set { return Set{system: system, list: s.list} }

// Names lists the set's boundary names, comma-separated, for messages.
func (s Set) Names() string {
	names := make([]string, len(s.list))
	for i, b := range s.list {
		names[i] = b.String()
	}
	return strings.Join(names, ", ")
}

// Lookup finds a boundary of the set by name. The error is one line: an
// unknown name, or a boundary of another system, with the set's names.
func (s Set) Lookup(name string) (Boundary, error) {
	b, ok := Parse(name)
	switch {
	case !ok:
		return None, fmt.Errorf("unknown boundary %q (%s has %s)", name, s.system, s.Names())
	case !s.Has(b):
		return None, fmt.Errorf("%s has no boundary %s (it has %s)", s.system, name, s.Names())
	}
	return b, nil
}
