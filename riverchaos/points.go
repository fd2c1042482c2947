package riverchaos

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/durasim/durasim/targetsim"
)

// Point is a named place in the handler where a child process can kill
// itself. The names are targetsim's boundaries of the same places.
type Point uint8

// The kill points, in the order a handler crosses them.
const (
	PointNone    Point = iota
	AfterFetch         // River handed the job to Work; nothing done yet
	AfterEffect        // the effect written: in the handler's transaction (tx designs) or durable (the others)
	BeforeCommit       // JobCompleteTx returned, its transaction not committed
	AfterCommit        // the transaction committed, Work not returned yet
	pointCount
)

var pointNames = [pointCount]string{"none", "after_fetch", "after_effect", "before_commit", "after_commit"}

func (p Point) String() string {
	if p >= pointCount {
		return "point?"
	}
	return pointNames[p]
}

// PointsOf lists the points a design's handler crosses: JobCompleteTx and
// its commit only exist in the transactional designs.
func PointsOf(d targetsim.Design) []Point {
	if transactional(d) {
		return []Point{AfterFetch, AfterEffect, BeforeCommit, AfterCommit}
	}
	return []Point{AfterFetch, AfterEffect}
}

// ParsePoint reads a point's name ("" and "none" are no point) and checks
// that design d's handler crosses it.
func ParsePoint(d targetsim.Design, name string) (Point, error) {
	if name == "" || name == "none" {
		return PointNone, nil
	}
	var names []string
	for _, p := range PointsOf(d) {
		if p.String() == name {
			return p, nil
		}
		names = append(names, p.String())
	}
	return PointNone, fmt.Errorf("-kill-at %q is not a kill point of design %s (want one of %s)", name, d, strings.Join(names, ", "))
}

// Killer decides, at each point a handler crosses, whether the process
// dies there. The zero value (and nil) never kills.
type Killer struct {
	At   Point
	Nth  int      // on the nth crossing of At (1-based), counted over all the process's handlers
	Hist *History // receives the kill line before the signal
	// Kill does the killing; nil is SIGKILL to this process. Tests
	// replace it to observe the point instead of dying.
	Kill func(Point)

	mu   sync.Mutex
	seen int
}

// Cross is called each time a handler crosses p holding e's job. On the
// planned crossing it writes the kill line and never returns.
func (k *Killer) Cross(p Point, e Entry) {
	if k == nil || k.At == PointNone || p != k.At {
		return
	}
	k.mu.Lock()
	k.seen++
	hit := k.seen == k.Nth
	k.mu.Unlock()
	if !hit {
		return
	}
	e.Op, e.Point = OpKill, p.String()
	e.T0 = stamp()
	e.T1 = e.T0
	k.Hist.Write(e)
	if k.Kill != nil {
		k.Kill(p)
		return
	}
	// As package chaos does: SIGKILL to ourselves, so no deferred function,
	// no rollback, no graceful close runs; the kernel closes the sockets
	// and PostgreSQL rolls back the transaction that was open.
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never run another instruction of the handler (a COMMIT)
}
