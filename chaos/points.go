package chaos

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/durasim/durasim/model"
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
)

// Role names, as given to `durasim worker -role`.
const (
	RoleWorker   = "worker"
	RoleRelay    = "relay"
	RoleConsumer = "consumer"
)

// PointsOf lists a role's kill points in a stable order.
func PointsOf(role string) []Point {
	switch role {
	case RoleWorker:
		return []Point{AfterLease, AfterExtract, AfterInsertBeforeCommit, AfterCommitBeforeAck, AfterAck, AfterDLQWrite}
	case RoleRelay:
		return []Point{RelayAfterClaim, RelayAfterPublishBeforeMark}
	case RoleConsumer:
		return []Point{ConsumerAfterApply}
	}
	return nil
}

// AllPoints lists every kill point, workers first.
func AllPoints() []Point {
	var out []Point
	for _, r := range []string{RoleWorker, RoleRelay, RoleConsumer} {
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
	if k == nil || k.At == "" || p != k.At {
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
