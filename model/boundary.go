package model

import "github.com/durasim/durasim/boundary"

// Boundary is a named point between two steps of an actor where a fault can
// be injected (seed 000's worker.mjs crash injector, generalised). It is
// the shared vocabulary's type: the pipeline's boundaries keep numbers 1 to
// 11 there, which are hashed into traces.
type Boundary = boundary.Boundary

// The pipeline's boundaries. Their text names are part of the plan format
// and of traces; never rename one.
const (
	NoBoundary = boundary.None
	// Worker boundaries.
	AfterLease           = boundary.AfterLease           // lease granted, nothing done yet
	AfterExtract         = boundary.AfterExtract         // stage work (extraction) done, nothing committed
	AfterCommitBeforeAck = boundary.AfterCommitBeforeAck // outbox committed, queue not yet told
	AfterAck             = boundary.AfterAck             // queue acknowledged (stage checkpoint or final ack)
	AfterDLQWrite        = boundary.AfterDLQWrite        // DLQ envelope written, job not yet marked dead
	// Dual-write variant only: result in the database, broker not yet told.
	AfterDBWriteBeforePublish = boundary.AfterDBWriteBeforePublish
	// Relay, consumer and API boundaries.
	RelayAfterPublishBeforeMark = boundary.RelayAfterPublishBeforeMark
	ConsumerAfterApply          = boundary.ConsumerAfterApply
	AfterAcceptBeforeEnqueue    = boundary.AfterAcceptBeforeEnqueue
	// Mark-before-publish variant only: the row is marked published, the
	// broker has not been told.
	RelayAfterMarkBeforePublish = boundary.RelayAfterMarkBeforePublish
	// The consumer received a message and has not applied it yet.
	ConsumerAfterReceive = boundary.ConsumerAfterReceive
	boundaryCount        = ConsumerAfterReceive + 1
)

// BoundarySet is the pipeline's boundaries, in number order: what a fault
// plan for the pipeline may name.
var BoundarySet = boundary.NewSet("the pipeline", AfterLease, AfterExtract, AfterCommitBeforeAck, AfterAck, AfterDLQWrite,
	AfterDBWriteBeforePublish, RelayAfterPublishBeforeMark, ConsumerAfterApply, AfterAcceptBeforeEnqueue,
	RelayAfterMarkBeforePublish, ConsumerAfterReceive)

// boundaryNames are the pipeline's boundary names by number, for reading
// trace lines back.
var boundaryNames = func() (names [boundaryCount]string) {
	for b := range boundaryCount {
		names[b] = b.String()
	}
	return names
}()

// roleOf is the model's role for each kind of actor that crosses a
// pipeline boundary.
var roleOf = map[boundary.Actor]Role{
	boundary.Worker:   RoleWorker,
	boundary.Relay:    RoleRelay,
	boundary.Consumer: RoleConsumer,
	boundary.API:      RoleAPI,
	boundary.Operator: RoleOperator,
}

// BoundaryRole is the role of the actor that crosses b (RoleNone for none,
// or for a boundary whose actor the model does not have).
func BoundaryRole(b Boundary) Role { return roleOf[b.Actor()] }

// Boundaries lists the pipeline's boundaries in number order.
func Boundaries() []Boundary { return BoundarySet.List() }
