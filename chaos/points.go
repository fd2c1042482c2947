package chaos

import (
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/sqlstore"
)

// Role names, as given to `durasim worker -role`.
const (
	RoleWorker   = "worker"
	RoleRelay    = "relay"
	RoleConsumer = "consumer"
	RoleOperator = "operator"
)

// Roles lists the roles in report order.
func Roles() []string { return []string{RoleWorker, RoleRelay, RoleConsumer, RoleOperator} }

// The kill points of each role: the model's boundaries where one exists,
// and those only a SQL store has. after_dlq_write: in SQL the DLQ row
// and the job's dead state are one transaction, so the point is right
// after that commit. The operator's two are after a redrive and after a
// reprocess's enqueue, each before its audit row (the next incarnation
// must write the missing row, once).
var points = map[string]boundary.Set{
	RoleWorker: boundary.NewSet("chaos's worker", boundary.AfterLease, boundary.AfterExtract, boundary.AfterInsertBeforeCommit,
		boundary.AfterCommitBeforeAck, boundary.AfterAck, boundary.AfterDLQWrite,
		boundary.InsideLeaseAfterStmt, boundary.InsideCommitAfterStmt, boundary.InsideDeadAfterStmt),
	RoleRelay:    boundary.NewSet("chaos's relay", boundary.RelayAfterClaim, boundary.RelayAfterPublishBeforeMark),
	RoleConsumer: boundary.NewSet("chaos's consumer", boundary.ConsumerAfterApply, boundary.InsideDeliverAfterStmt),
	RoleOperator: boundary.NewSet("chaos's operator", boundary.OperatorAfterRedrive, boundary.OperatorAfterReprocessEnqueue,
		boundary.InsideRedriveAfterStmt, boundary.InsideEnqueueAfterStmt),
}

// stmts is how many statement boundaries the usual path of each inside
// point's operation has (sqlstore.Conn.OnStatement): LeaseNext picks,
// fences and updates the job; Commit checks the fence, writes the
// result, the outbox row and the event id; Dead writes the job's state
// and the DLQ row; Deliver counts the delivery, writes the ledger and the
// effect; Redrive makes the job pending and counts it in the DLQ row; an
// Enqueue of an existing key inserts and reads back. A store that runs
// fewer cannot be killed at the last ones: the supervisor's -reach bound
// ends the run and says so.
var stmts = map[boundary.Boundary]int{
	boundary.InsideLeaseAfterStmt: 2, boundary.InsideCommitAfterStmt: 3, boundary.InsideDeadAfterStmt: 1,
	boundary.InsideDeliverAfterStmt: 2, boundary.InsideRedriveAfterStmt: 1, boundary.InsideEnqueueAfterStmt: 1,
}

// PointsOf is a role's kill points (the empty set for no role).
func PointsOf(role string) boundary.Set { return points[role] }

// Boundaries is how many statement boundaries an inside point's
// operation has (0: not an inside point).
func Boundaries(p boundary.Boundary) int { return stmts[p] }

// InsidePoints lists the inside points in report order.
func InsidePoints() []boundary.Boundary {
	var out []boundary.Boundary
	for _, p := range AllPoints() {
		if stmts[p] > 0 {
			out = append(out, p)
		}
	}
	return out
}

// AllPoints lists every kill point, workers first.
func AllPoints() []boundary.Boundary {
	var out []boundary.Boundary
	for _, r := range Roles() {
		out = append(out, points[r].List()...)
	}
	return out
}

// Killer decides, at each point a role crosses, whether the process dies
// there (package crash: the kill line, then SIGKILL to itself). The zero
// value never kills.
type Killer = crash.Killer[Entry]

// inside runs op, one operation on ops, with kill's inside point p armed
// between its statements: when kill waits at p, the connection's
// OnStatement hook crosses p before each statement after the first,
// with e.Stmt the number of statements already run, and the end of the
// operation tells kill how many boundaries it passed. Only a
// *sqlstore.Conn counts statements; on anything else op just runs.
func inside(ops any, kill *Killer, p boundary.Boundary, e Entry, op func() error) error {
	c, ok := ops.(*sqlstore.Conn)
	if !ok || kill == nil || kill.At != p {
		return op()
	}
	c.CountStatements()
	c.OnStatement = func(n int) {
		if n > 0 {
			e.Stmt = n
			kill.CrossAt(p, n, e)
		}
	}
	defer func() { c.OnStatement = nil }()
	err := op()
	kill.Through(p, max(c.Statements()-1, 0))
	return err
}
