package rivertarget

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/overlap"
	"github.com/durasim/durasim/target"
)

// River's races mode (target.Racer), on PostgreSQL: each actor's Conn is
// a connection of its own (a pool of one, with River's client and
// executor on it and a clock of its own), and its calls run on a
// goroutine of its own through package overlap, so that one actor's call
// waits on the row locks another's open transaction holds.

var _ target.Racer = (*Queue)(nil)

// raceState is the actors of races mode, opened as their Conns are asked
// for and closed at each Races call (a run starts on fresh connections).
type raceState struct {
	mon    *overlap.Monitor
	actors map[string]*raceActor
}

// raceActor is one actor's connection, River's code on it, and its
// handler transaction still open (nil: none).
type raceActor struct {
	db   *pgDB
	ov   *overlap.Actor
	code code
	open *handlerTx
}

// Races turns races mode on or off for the run that follows, its actors
// on fresh connections (the last run's, their calls in flight and
// transactions left open, ended); only PostgreSQL races (SQLite
// serializes every write on one lock, and the adapter keeps one
// connection to it).
func (q *Queue) Races(on bool) error {
	if on && q.backend != Postgres {
		return fmt.Errorf("races mode needs -backend postgres: River on %s runs every call on one connection", q.backend)
	}
	if err := q.stopActors(context.Background()); err != nil {
		return err
	}
	if on && q.race == nil {
		mon, err := overlap.NewMonitor(context.Background(), q.url)
		if err != nil {
			return err
		}
		q.race = &raceState{mon: mon, actors: map[string]*raceActor{}}
	}
	q.races = on
	return nil
}

// Settle is the monitor's (overlap.Monitor.Settle).
func (q *Queue) Settle(ctx context.Context) error {
	if q.race == nil {
		return nil
	}
	return q.race.mon.Settle(ctx)
}

// actor is the actor named name, connected on first use.
func (q *Queue) actor(ctx context.Context, name string) (*raceActor, error) {
	if a := q.race.actors[name]; a != nil {
		return a, nil
	}
	d, err := connectPostgres(ctx, q.url, []string{overlap.Session})
	if err != nil {
		return nil, err
	}
	pc, err := d.pool.Acquire(ctx)
	if err != nil {
		d.pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pid := pc.Conn().PgConn().PID()
	pc.Release()
	clk := &clock{}
	c, err := d.river(clk, seededPolicy{q, clk})
	if err != nil {
		d.pool.Close()
		return nil, err
	}
	a := &raceActor{db: d, code: c, ov: q.race.mon.Actor(name, pid)}
	q.race.actors[name] = a
	return a, nil
}

// stopActors ends the last run's actors: their calls still in flight
// (their backends terminated), their transactions left open, their
// connections.
func (q *Queue) stopActors(ctx context.Context) error {
	if q.race == nil {
		return nil
	}
	err := q.race.mon.Stop(ctx)
	for _, name := range slices.Sorted(maps.Keys(q.race.actors)) {
		a := q.race.actors[name]
		if a.open != nil {
			_ = a.open.Rollback(ctx)
		}
		a.db.pool.Close()
		delete(q.race.actors, name)
	}
	return err
}

func (q *Queue) closeRaces() error {
	if q.race == nil {
		return nil
	}
	err := q.stopActors(context.Background())
	err = errors.Join(err, q.race.mon.Close())
	q.race = nil
	return err
}

// raceConn is an actor's Conn in races mode: each call on the actor's
// goroutine, through overlap.Do.
type raceConn struct {
	c   *conn
	a   *raceActor
	err error // the actor's connection failed to open
}

var (
	_ target.Conn     = (*raceConn)(nil)
	_ target.Operator = (*raceConn)(nil)
)

func (q *Queue) raceConn(name string) target.Conn {
	a, err := q.actor(context.Background(), name)
	if err != nil {
		return &raceConn{err: err}
	}
	return &raceConn{a: a, c: &conn{q: q, actor: name, db: a.db, code: a.code, held: map[int64]*rivertype.JobRow{}}}
}

func do[T any](ctx context.Context, r *raceConn, what string, f func() (T, error)) (T, error) {
	if r.err != nil {
		var zero T
		return zero, r.err
	}
	return overlap.Do(ctx, r.a.ov, what, f)
}

func (r *raceConn) Insert(ctx context.Context, now target.Time, req target.InsertReq) (target.Inserted, error) {
	return do(ctx, r, "insert", func() (target.Inserted, error) { return r.c.Insert(ctx, now, req) })
}

func (r *raceConn) Fetch(ctx context.Context, now target.Time, max int) ([]target.Job, error) {
	return do(ctx, r, "fetch", func() ([]target.Job, error) { return r.c.Fetch(ctx, now, max) })
}

func (r *raceConn) Report(ctx context.Context, now target.Time, j target.Job, rep target.Report) (target.Reported, error) {
	return do(ctx, r, fmt.Sprintf("report %d", j.ID), func() (target.Reported, error) { return r.c.Report(ctx, now, j, rep) })
}

func (r *raceConn) Stuck(ctx context.Context, now target.Time) ([]target.Job, error) {
	return do(ctx, r, "stuck", func() ([]target.Job, error) { return r.c.Stuck(ctx, now) })
}

func (r *raceConn) Rescue(ctx context.Context, now target.Time, stuck []target.Job) ([]target.Rescued, error) {
	return do(ctx, r, "rescue", func() ([]target.Rescued, error) { return r.c.Rescue(ctx, now, stuck) })
}

func (r *raceConn) Schedule(ctx context.Context, now target.Time) ([]target.Rescued, error) {
	return do(ctx, r, "schedule", func() ([]target.Rescued, error) { return r.c.Schedule(ctx, now) })
}

func (r *raceConn) Retry(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	return do(ctx, r, fmt.Sprintf("retry %d", id), func() (target.Job, error) { return r.c.Retry(ctx, now, id) })
}

func (r *raceConn) Cancel(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	return do(ctx, r, fmt.Sprintf("cancel %d", id), func() (target.Job, error) { return r.c.Cancel(ctx, now, id) })
}

func (r *raceConn) Delete(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	return do(ctx, r, fmt.Sprintf("delete %d", id), func() (target.Job, error) { return r.c.Delete(ctx, now, id) })
}

func (r *raceConn) SetMetadata(ctx context.Context, now target.Time, id target.JobID, key, value string) (target.Job, error) {
	return do(ctx, r, fmt.Sprintf("metadata %d", id), func() (target.Job, error) { return r.c.SetMetadata(ctx, now, id, key, value) })
}

func (r *raceConn) OutOfBand(ctx context.Context, now target.Time, id target.JobID, n int) (target.Job, error) {
	return do(ctx, r, fmt.Sprintf("out-of-band %d", id), func() (target.Job, error) { return r.c.OutOfBand(ctx, now, id, n) })
}

func (r *raceConn) InsertMany(ctx context.Context, now target.Time, rs []target.InsertReq) ([]target.Inserted, error) {
	return do(ctx, r, "insert-many", func() ([]target.Inserted, error) { return r.c.InsertMany(ctx, now, rs) })
}

// Begin opens the handler's transaction on the actor's connection; the
// actor holds at most one.
func (r *raceConn) Begin(ctx context.Context) (target.Tx, error) {
	if r.err == nil && r.a.open != nil {
		return nil, fmt.Errorf("rivertarget: %s begins a transaction with one open", r.c.actor)
	}
	tx, err := do(ctx, r, "begin", func() (target.Tx, error) { return r.c.Begin(ctx) })
	if err != nil {
		return nil, err
	}
	r.a.open = tx.(*handlerTx)
	return &raceTx{r: r, tx: r.a.open}, nil
}

// raceTx is the handler's transaction in races mode.
type raceTx struct {
	r  *raceConn
	tx *handlerTx
}

func (t *raceTx) Effect(ctx context.Context, e target.Effect) (bool, error) {
	return do(ctx, t.r, "effect", func() (bool, error) { return t.tx.Effect(ctx, e) })
}

func (t *raceTx) Complete(ctx context.Context, now target.Time, j target.Job) (target.Job, error) {
	return do(ctx, t.r, "complete", func() (target.Job, error) { return t.tx.Complete(ctx, now, j) })
}

func (t *raceTx) Insert(ctx context.Context, now target.Time, req target.InsertReq) (target.Inserted, error) {
	return do(ctx, t.r, "insert in transaction", func() (target.Inserted, error) { return t.tx.Insert(ctx, now, req) })
}

func (t *raceTx) Commit(ctx context.Context) error {
	_, err := do(ctx, t.r, "commit", func() (struct{}, error) { return struct{}{}, t.tx.Commit(ctx) })
	if !errors.Is(err, target.ErrBlocked) {
		t.r.a.open = nil
	}
	return err
}

func (t *raceTx) Rollback(ctx context.Context) error {
	if t.tx.done {
		return nil
	}
	_, err := do(ctx, t.r, "rollback", func() (struct{}, error) { return struct{}{}, t.tx.Rollback(ctx) })
	if !errors.Is(err, target.ErrBlocked) {
		t.r.a.open = nil
	}
	return err
}
