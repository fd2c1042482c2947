// Package overlap runs the calls of a SQL queue's actors so that they
// overlap inside PostgreSQL, for a target adapter's races mode
// (target.Racer): each actor has a connection and a goroutine of its
// own; a call runs there while the caller waits until it returns or its
// backend waits on a lock, and then the caller moves on with the call
// still in flight (target.ErrBlocked). A monitor connection reads which
// backend waits on which (pg_blocking_pids).
//
// What the caller decides is the order calls are made in; once a call
// waits, the order PostgreSQL grants locks in is the order the waits
// began (its lock queues), and [Monitor.Settle] lets every call that can
// move finish before the caller decides the next. One thing is left to
// time: which call of a deadlock PostgreSQL aborts is the one whose
// deadlock_timeout fires first with the cycle closed. Each session sets
// a short deadlock_timeout ([Session]), and a call seen waiting is given
// a grace of several of them before the caller moves on, so the earlier
// waiter's check has run (finding no cycle) before a later call can close
// one: the call that closes a cycle is the one aborted, unless the
// machine stalls a backend for longer than the grace.
//
// Any adapter on pgx can use it (River's, goqite's on PostgreSQL): it
// names no queue.
package overlap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/durasim/durasim/target"
)

// Session is the setting each actor's connection runs at connect: a
// deadlock is broken this soon after its last wait began.
const Session = "SET deadlock_timeout = '10ms'"

// grace is how long a call seen waiting is given before the caller moves
// on: several deadlock timeouts.
const grace = 40 * time.Millisecond

// settleLimit is how long Settle waits for the calls in flight before it
// gives up (a backend stuck outside any lock).
const settleLimit = 30 * time.Second

// Monitor watches the actors' backends.
type Monitor struct {
	conn   *pgx.Conn
	actors []*Actor
}

// NewMonitor connects the monitor to the database at url.
func NewMonitor(ctx context.Context, url string) (*Monitor, error) {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("overlap: monitor: %w", err)
	}
	return &Monitor{conn: c}, nil
}

// Close stops every actor's goroutine and closes the monitor.
func (m *Monitor) Close() error {
	for _, a := range m.actors {
		close(a.work)
	}
	m.actors = nil
	return m.conn.Close(context.Background())
}

// Actor is one actor: its backend's pid and the goroutine its calls run
// on, with at most one call in flight.
type Actor struct {
	m       *Monitor
	name    string
	pid     uint32
	work    chan func()
	pending *call
}

type call struct {
	what string
	done chan struct{}
	val  any
	err  error
}

// Actor starts the goroutine of the actor named name, whose calls run on
// the connection of backend pid.
func (m *Monitor) Actor(name string, pid uint32) *Actor {
	a := &Actor{m: m, name: name, pid: pid, work: make(chan func())}
	go func() {
		for f := range a.work {
			f()
		}
	}()
	m.actors = append(m.actors, a)
	return a
}

// Do runs f, the call what, on a's goroutine and returns its result, or
// target.ErrBlocked if it waits on a lock: the call stays in flight, and
// the next Do of a must be the same call (what), which returns its result
// once it has one (ErrBlocked until then). Errors PostgreSQL returns for
// a race (a deadlock, a serialization failure) come back as
// target.RaceError.
func Do[T any](ctx context.Context, a *Actor, what string, f func() (T, error)) (T, error) {
	var zero T
	c := a.pending
	if c != nil {
		if c.what != what {
			return zero, fmt.Errorf("overlap: %s calls %s while its %s is in flight", a.name, what, c.what)
		}
		select {
		case <-c.done:
		default:
			return zero, target.ErrBlocked
		}
	} else {
		c = &call{what: what, done: make(chan struct{})}
		a.work <- func() {
			v, err := f()
			c.val, c.err = v, Classify(err)
			close(c.done)
		}
		blocked, err := a.m.wait(ctx, a, c)
		if err != nil {
			return zero, err
		}
		if blocked {
			a.pending = c
			return zero, target.ErrBlocked
		}
	}
	a.pending = nil
	v, _ := c.val.(T)
	return v, c.err
}

// wait waits until c returns (false) or a's backend waits on a lock
// (true).
func (m *Monitor) wait(ctx context.Context, a *Actor, c *call) (bool, error) {
	for {
		select {
		case <-c.done:
			return false, nil
		case <-time.After(500 * time.Microsecond):
		}
		g, err := m.graph(ctx)
		if err != nil {
			return false, err
		}
		if len(g.blockers[a.pid]) == 0 {
			continue
		}
		select {
		case <-c.done:
			return false, nil // a deadlock's victim, or a lock granted within the grace
		case <-time.After(grace):
		}
		select {
		case <-c.done:
			return false, nil
		default:
			return true, nil
		}
	}
}

// graph is the backends as pg_stat_activity shows them: each one's
// state and the pids it waits on.
type graph struct {
	state    map[uint32]string
	blockers map[uint32][]uint32
}

func (m *Monitor) graph(ctx context.Context) (graph, error) {
	g := graph{state: map[uint32]string{}, blockers: map[uint32][]uint32{}}
	rows, err := m.conn.Query(ctx, "SELECT pid, coalesce(state, ''), pg_blocking_pids(pid) FROM pg_stat_activity WHERE pid IS NOT NULL")
	if err != nil {
		return g, fmt.Errorf("overlap: monitor: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid int32
		var state string
		var bl []int32
		if err := rows.Scan(&pid, &state, &bl); err != nil {
			return g, fmt.Errorf("overlap: monitor: %w", err)
		}
		g.state[uint32(pid)] = state
		for _, b := range bl {
			g.blockers[uint32(pid)] = append(g.blockers[uint32(pid)], uint32(b))
		}
	}
	return g, rows.Err()
}

// still reports whether pid cannot move until an actor's next call: it
// waits on locks held, at the end of every chain of waits, by
// transactions idle between their actors' calls. A chain that closes on
// itself is a deadlock PostgreSQL has yet to break: not still.
func (g graph) still(pid uint32, seen []uint32) bool {
	bl := g.blockers[pid]
	if len(bl) == 0 || slices.Contains(seen, pid) {
		return false
	}
	seen = append(seen, pid)
	for _, b := range bl {
		if g.state[b] == "idle in transaction" {
			continue
		}
		if !g.still(b, seen) {
			return false
		}
	}
	return true
}

// inFlight are the actors whose call has not returned yet, in actor order.
func (m *Monitor) inFlight() []*Actor {
	var out []*Actor
	for _, a := range m.actors {
		if a.pending == nil {
			continue
		}
		select {
		case <-a.pending.done:
		default:
			out = append(out, a)
		}
	}
	return out
}

// Settle waits until every call in flight has returned or cannot move
// until an actor's next call (target.Racer's Settle).
func (m *Monitor) Settle(ctx context.Context) error {
	deadline := time.Now().Add(settleLimit)
	for {
		waiting := m.inFlight()
		if len(waiting) == 0 {
			return nil
		}
		g, err := m.graph(ctx)
		if err != nil {
			return err
		}
		still := true
		for _, a := range waiting {
			still = still && g.still(a.pid, nil)
		}
		if still {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("overlap: calls in flight still moving after %s: %s", settleLimit, names(waiting))
		}
		time.Sleep(500 * time.Microsecond)
	}
}

// Drain waits for every call in flight to return and drops its result
// (a run's end: its transactions were rolled back, or are by the caller
// next).
func (m *Monitor) Drain(ctx context.Context) error {
	deadline := time.Now().Add(settleLimit)
	for _, a := range m.actors {
		if a.pending == nil {
			continue
		}
		select {
		case <-a.pending.done:
		case <-time.After(time.Until(deadline)):
			return fmt.Errorf("overlap: %s's %s still in flight after %s", a.name, a.pending.what, settleLimit)
		case <-ctx.Done():
			return ctx.Err()
		}
		a.pending = nil
	}
	return nil
}

// InFlight lists the actors with a call in flight.
func (m *Monitor) InFlight() []string {
	var out []string
	for _, a := range m.actors {
		if a.pending != nil {
			out = append(out, a.name+" "+a.pending.what)
		}
	}
	return out
}

func names(as []*Actor) string {
	s := ""
	for i, a := range as {
		if i > 0 {
			s += ", "
		}
		s += a.name + " " + a.pending.what
	}
	return s
}

// Classify wraps an error PostgreSQL returns for a race as a
// target.RaceError: a deadlock it broke (40P01), a serialization failure
// (40001). Other errors come back as they are.
func Classify(err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	switch pg.Code {
	case "40P01":
		return &target.RaceError{Code: "deadlock", Err: err}
	case "40001":
		return &target.RaceError{Code: "serialization", Err: err}
	}
	return err
}

// Stop ends the actors: a call still in flight has its backend
// terminated (pg_terminate_backend), so that it returns; then every
// actor's goroutine stops. The actors' connections are the caller's to
// close (a transaction still open on one first rolled back).
func (m *Monitor) Stop(ctx context.Context) error {
	var err error
	for _, a := range m.inFlight() {
		if _, e := m.conn.Exec(ctx, "SELECT pg_terminate_backend($1)", int32(a.pid)); e != nil {
			err = errors.Join(err, fmt.Errorf("overlap: terminate %s: %w", a.name, e))
		}
	}
	err = errors.Join(err, m.Drain(ctx))
	for _, a := range m.actors {
		close(a.work)
	}
	m.actors = nil
	return err
}
