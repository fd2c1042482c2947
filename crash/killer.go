package crash

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/durasim/durasim/boundary"
)

// Assignment is a child's kill point: die at the Nth crossing of At
// (after Stmt statements of its operation, for an inside point). The
// zero Assignment is none.
type Assignment struct {
	At   boundary.Boundary
	Nth  int
	Stmt int
}

// Args is the assignment as the child's flags (Flags parses them back);
// none for no point.
func (a Assignment) Args() []string {
	if a.At == boundary.None {
		return nil
	}
	args := []string{"-kill-at", a.At.String(), "-kill-nth", strconv.Itoa(a.Nth)}
	if a.Stmt > 0 {
		args = append(args, "-kill-stmt", strconv.Itoa(a.Stmt))
	}
	return args
}

// String is the point with its crossing and statement, for messages.
func (a Assignment) String() string {
	s := fmt.Sprintf("%s (crossing %d", a.At, a.Nth)
	if a.Stmt > 0 {
		s += fmt.Sprintf(", after statement %d", a.Stmt)
	}
	return s + ")"
}

// Flags defines the child's -kill-at, -kill-nth and -kill-stmt on fs,
// parsed into a. -kill-at takes any boundary's name ("" and "none": no
// point); Check then says whether the child's role has it.
func (a *Assignment) Flags(fs *flag.FlagSet) {
	a.Nth = 1
	fs.Func("kill-at", "kill point where the process SIGKILLs itself (a boundary of its role)", func(s string) error {
		if s == "" || s == "none" {
			a.At = boundary.None
			return nil
		}
		b, ok := boundary.Parse(s)
		if !ok {
			return fmt.Errorf("unknown kill point %q", s)
		}
		a.At = b
		return nil
	})
	fs.IntVar(&a.Nth, "kill-nth", a.Nth, "die on the nth crossing of -kill-at")
	fs.IntVar(&a.Stmt, "kill-stmt", 0, "inside_*_after_stmt points: die after this many statements of the operation (0 any)")
}

// Check reports, as one line, what is wrong with a for a role whose kill
// points are set, with stmts statement boundaries at each inside point.
func (a Assignment) Check(set boundary.Set, stmts map[boundary.Boundary]int) error {
	if a.At == boundary.None {
		return nil
	}
	if _, err := set.Lookup(a.At.String()); err != nil {
		return err
	}
	switch n := stmts[a.At]; {
	case a.Nth < 1:
		return fmt.Errorf("-kill-nth must be >= 1 (got %d)", a.Nth)
	case a.Stmt < 0 || a.Stmt > 0 && n == 0:
		return fmt.Errorf("-kill-stmt must be >= 0, and 0 unless -kill-at is an inside_*_after_stmt point (got %d at %s)", a.Stmt, a.At)
	case a.Stmt > n:
		return fmt.Errorf("-kill-stmt %d is past the %d statement boundaries of %s", a.Stmt, n, a.At)
	}
	return nil
}

// Killer is a child's self-kill: armed with an [Assignment], it lets the
// process die exactly at its point. On the planned crossing it writes a
// kill line to the history, then sends SIGKILL to its own process and
// never returns. A nil Killer, or one armed at no point, never kills.
type Killer[E Line[E]] struct {
	Assignment
	Hist *History[E] // receives the kill line before the signal
	// Kill does the killing; nil is SIGKILL to this process. Tests
	// replace it to observe the point instead of dying.
	Kill func(boundary.Boundary)

	mu      sync.Mutex
	crossed int // crossings counted towards Nth
	ops     int // runs of an inside point's operation that ended
	most    int // the most statement boundaries one of them passed
	fired   bool
}

// Cross is called each time the process crosses p; e is the line that
// describes where it stands (the kill line keeps its fields).
func (k *Killer[E]) Cross(p boundary.Boundary, e E) { k.CrossAt(p, 0, e) }

// CrossAt is Cross at an inside point: the process is between two
// statements of its operation, stmt of them run.
func (k *Killer[E]) CrossAt(p boundary.Boundary, stmt int, e E) {
	if k == nil || k.At == boundary.None || p != k.At {
		return
	}
	k.mu.Lock()
	if stmt > k.most {
		k.most = stmt
	}
	hit := false
	if k.Stmt == 0 || stmt == k.Stmt {
		k.crossed++
		hit = k.crossed == k.Nth && !k.fired
		k.fired = k.fired || hit
	}
	k.mu.Unlock()
	if !hit {
		return
	}
	t := time.Now().UnixNano()
	k.Hist.Write(e.Marked(Mark{Op: OpKill, Point: p.String(), Stmt: stmt, T0: t, T1: t}))
	if k.Kill != nil {
		k.Kill(p)
		return
	}
	// SIGKILL to ourselves: no deferred function, no flush, no graceful
	// close of a connection: the kernel closes the sockets, and the
	// server rolls back whatever transaction was open.
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never run another instruction of the process (a COMMIT)
}

// Through records that a run of inside point p's operation ended after
// passing n statement boundaries: an armed line can then tell a point
// the operation never reaches (a store that runs fewer statements than
// the point expects) from one it has not reached yet.
func (k *Killer[E]) Through(p boundary.Boundary, n int) {
	if k == nil || p != k.At {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ops++
	k.most = max(k.most, n)
}

// Disarm writes the armed line when the process stops with its point not
// fired: how often it crossed the point and, for an inside point, how
// many runs of its operation ended and the most statement boundaries one
// passed. The supervisor reads it when it stopped the child for not
// reaching its point.
func (k *Killer[E]) Disarm() {
	if k == nil || k.At == boundary.None {
		return
	}
	k.mu.Lock()
	m := Mark{Op: OpArmed, Point: k.At.String(), Stmt: k.most, Crossed: k.crossed, Ops: k.ops}
	fired := k.fired
	k.fired = true
	k.mu.Unlock()
	if !fired {
		m.T0 = time.Now().UnixNano()
		m.T1 = m.T0
		k.Hist.mark(m)
	}
}
