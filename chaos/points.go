package chaos

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Point is a named place in a role's loop where a process can be killed.
// The names are the model's boundaries (model.Boundary.String) where one
// exists, plus the two that only a SQL store has.
type Point string

// The kill points, by role.
var (
	AfterLease              = Point(model.AfterLease.String())
	AfterExtract            = Point(model.AfterExtract.String())
	AfterInsertBeforeCommit = Point("after_insert_before_commit") // inside the commit transaction
	AfterCommitBeforeAck    = Point(model.AfterCommitBeforeAck.String())
	AfterAck                = Point(model.AfterAck.String())
	// AfterDLQWrite: in SQL the DLQ row and the job's dead state are one
	// transaction, so the nearest point is right after that commit.
	AfterDLQWrite               = Point(model.AfterDLQWrite.String())
	RelayAfterClaim             = Point("relay_after_claim")
	RelayAfterPublishBeforeMark = Point(model.RelayAfterPublishBeforeMark.String())
	ConsumerAfterApply          = Point(model.ConsumerAfterApply.String())
	// The operator's: after a redrive and before its audit row, after a
	// reprocess's enqueue and before its audit row (the next incarnation
	// must write the missing row, once).
	OperatorAfterRedrive          = Point("operator_after_redrive")
	OperatorAfterReprocessEnqueue = Point("operator_after_reprocess_enqueue")
)

// Kill points inside one multi-statement operation, between two of its
// statements (sqlstore.Conn.OnStatement): the process dies with the
// transaction open, and PostgreSQL rolls all of it back. Which boundary
// is chosen per process (Killer.Stmt, 1 to Boundaries).
var (
	InsideLease   = Point("inside_lease_after_stmt")   // LeaseNext: pick, fence, job update
	InsideCommit  = Point("inside_commit_after_stmt")  // Commit: fence check, result, outbox row, event id
	InsideDead    = Point("inside_dead_after_stmt")    // Dead: job dead, DLQ row
	InsideDeliver = Point("inside_deliver_after_stmt") // Deliver: broker count, ledger, effect
	InsideRedrive = Point("inside_redrive_after_stmt") // Redrive: job pending, DLQ row's count
	InsideEnqueue = Point("inside_enqueue_after_stmt") // Enqueue of an existing key: insert, read back
)

// Boundaries is how many statement boundaries the usual path of an inside
// point's operation has (0: not an inside point).
func Boundaries(p Point) int {
	switch p {
	case InsideLease, InsideDeliver:
		return 2
	case InsideCommit:
		return 3
	case InsideDead, InsideRedrive, InsideEnqueue:
		return 1
	}
	return 0
}

// InsidePoints lists the inside points in report order.
func InsidePoints() []Point {
	return []Point{InsideLease, InsideCommit, InsideDead, InsideDeliver, InsideRedrive, InsideEnqueue}
}

// Role names, as given to `durasim worker -role`.
const (
	RoleWorker   = "worker"
	RoleRelay    = "relay"
	RoleConsumer = "consumer"
	RoleOperator = "operator"
)

// Roles lists the roles in report order.
func Roles() []string { return []string{RoleWorker, RoleRelay, RoleConsumer, RoleOperator} }

// PointsOf lists a role's kill points in a stable order.
func PointsOf(role string) []Point {
	switch role {
	case RoleWorker:
		return []Point{AfterLease, AfterExtract, AfterInsertBeforeCommit, AfterCommitBeforeAck, AfterAck, AfterDLQWrite,
			InsideLease, InsideCommit, InsideDead}
	case RoleRelay:
		return []Point{RelayAfterClaim, RelayAfterPublishBeforeMark}
	case RoleConsumer:
		return []Point{ConsumerAfterApply, InsideDeliver}
	case RoleOperator:
		return []Point{OperatorAfterRedrive, OperatorAfterReprocessEnqueue, InsideRedrive, InsideEnqueue}
	}
	return nil
}

// AllPoints lists every kill point, workers first.
func AllPoints() []Point {
	var out []Point
	for _, r := range Roles() {
		out = append(out, PointsOf(r)...)
	}
	return out
}

// ParsePoint checks that name is a kill point of role ("" is no point).
func ParsePoint(role, name string) (Point, error) {
	if name == "" || name == "none" {
		return "", nil
	}
	for _, p := range PointsOf(role) {
		if string(p) == name {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q is not a kill point of role %s (want one of %v)", name, role, PointsOf(role))
}

// Killer decides, at each point a role crosses, whether the process dies
// there. The zero value never kills.
type Killer struct {
	At  Point // where to die ("" never)
	Nth int   // on the nth crossing of At (1-based)
	// Stmt, for an inside point, is the statement boundary to die at:
	// after the Stmt-th statement of the operation (0: any).
	Stmt int
	// Hist receives the kill line before the signal, so the orchestrator
	// can tell a planned kill from any other death.
	Hist *History
	// Kill does the killing; nil is SIGKILL to this process. Tests replace
	// it to observe the point instead of dying.
	Kill func(Point)

	mu   sync.Mutex
	seen int
}

// Cross is called each time the role crosses p; e describes the operation
// that just completed. On the planned crossing it never returns.
func (k *Killer) Cross(p Point, e Entry) {
	if k == nil || k.At == "" || p != k.At || k.Stmt > 0 && e.Stmt != k.Stmt {
		return
	}
	k.mu.Lock()
	k.seen++
	hit := k.seen == k.Nth
	k.mu.Unlock()
	if !hit {
		return
	}
	e.Op = OpKill
	e.Point = string(p)
	k.Hist.Write(e)
	if k.Kill != nil {
		k.Kill(p)
		return
	}
	// SIGKILL to ourselves: no deferred function, no flush, no graceful
	// close of the database connection: the kernel closes the socket and
	// PostgreSQL rolls back whatever transaction was open.
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never run another instruction of the role (e.g. a COMMIT)
}

// inside runs op, one operation on ops, with kill's inside point p armed
// between its statements: when kill waits at p, the connection's
// OnStatement hook crosses p before each statement after the first, with
// e.Stmt the number of statements already run. Only a *sqlstore.Conn
// counts statements; on anything else op just runs.
func inside(ops any, kill *Killer, p Point, e Entry, op func() error) error {
	c, ok := ops.(*sqlstore.Conn)
	if !ok || kill == nil || kill.At != p {
		return op()
	}
	c.CountStatements()
	c.OnStatement = func(n int) {
		if n > 0 {
			e.Stmt = n
			kill.Cross(p, e)
		}
	}
	defer func() { c.OnStatement = nil }()
	return op()
}
