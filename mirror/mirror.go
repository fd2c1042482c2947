package mirror

import (
	"context"
	"errors"
	"fmt"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/sqlstore"
)

// Backend mirrors a simulation onto a SQL store; it implements
// [sim.Backend]. It is not safe for concurrent use: one per goroutine.
type Backend struct {
	ctx   context.Context
	store *sqlstore.Store
	name  string
	wrap  func(Conn) Conn
	drop  func() error // run after Close (WithDrop)
	sys   *model.System
	seed  uint64
	conns []actorConn // a handful of actors: a slice beats a map
	fails []failNote  // by worker id
	read  int64       // the consumer's cursor: the highest message it applied
	// commitStatements is how many statements the last commit that created
	// a result ran: where a tear inside a commit can fall.
	commitStatements int
	// deliverStatements is how many statements the last delivery that
	// applied its event ran: where a tear inside a delivery can fall.
	deliverStatements int
	applied           map[model.EventID]bool  // events the store applied
	probed            map[probePath]int       // failure probes run per path this seed (probe.go)
	raced             map[model.EventKind]int // races run per kind this seed (race.go)
	conflicted        map[model.EventKind]int // conflicting payloads sent after a created job or result, per kind this seed
	// The store checks' feed (oracle.go): the operations replayed, each
	// dead-lettered job's last reason, and the final state End read.
	ops      []invariants.Op
	lastDead []deadCode
	final    sqlstore.State
}

// actorConn is one actor's connection: a crash closes it.
type actorConn struct {
	role model.Role
	id   int32
	conn Conn
}

var (
	_ sim.CLIBackend = (*Backend)(nil)
	_ sim.Checker    = (*Backend)(nil)
)

// Option configures a Backend.
type Option func(*Backend)

// WithWrap passes every connection through wrap: tests use it to break the
// store on purpose and see the mirror catch it.
func WithWrap(wrap func(Conn) Conn) Option { return func(b *Backend) { b.wrap = wrap } }

// WithDrop runs drop after Close has closed the store: the CLI drops the
// scratch database a run made for itself (-scratch-db).
func WithDrop(drop func() error) Option { return func(b *Backend) { b.drop = drop } }

// Open connects to the store (driver sqlstore.SQLite or sqlstore.Postgres)
// and migrates it.
func Open(ctx context.Context, driver, url string, opts ...Option) (*Backend, error) {
	st, err := sqlstore.Open(ctx, driver, url)
	if err != nil {
		return nil, err
	}
	b := &Backend{ctx: ctx, store: st, name: driver, applied: map[model.EventID]bool{}, probed: map[probePath]int{},
		raced: map[model.EventKind]int{}, conflicted: map[model.EventKind]int{}}
	for _, o := range opts {
		o(b)
	}
	return b, nil
}

// Store is the store the backend drives.
func (b *Backend) Store() *sqlstore.Store { return b.store }

// Close closes every connection and the store.
func (b *Backend) Close() error {
	err := b.closeAll()
	b.store.Close()
	if b.drop != nil {
		err = errors.Join(err, b.drop())
	}
	return err
}

// Name implements sim.Backend.
func (b *Backend) Name() string { return b.name }

// OpenedByName implements sim.CLIBackend: durasim's CLI opens this store
// by its name (-backend sqlite|postgres), so reproduce commands name it.
func (*Backend) OpenedByName() {}

// Begin implements sim.Backend: every actor starts with a new connection
// on an empty database.
func (b *Backend) Begin(seed uint64, sys *model.System) error {
	b.sys, b.seed, b.read, b.commitStatements, b.deliverStatements = sys, seed, 0, 0, 0
	clear(b.fails)
	clear(b.applied)
	clear(b.probed)
	clear(b.raced)
	clear(b.conflicted)
	b.ops, b.lastDead, b.final = b.ops[:0], b.lastDead[:0], sqlstore.State{}
	if err := b.closeAll(); err != nil {
		return err
	}
	return b.store.Reset(b.ctx)
}

// End implements sim.Backend: the store's tables must hold what the
// model's do.
func (b *Backend) End(sys *model.System) error {
	got, err := b.store.State(b.ctx)
	if err != nil {
		return fmt.Errorf("reading the store: %w", err)
	}
	b.final = got
	return compareState(ModelState(sys), got, b.name)
}

// conn returns the actor's connection, opening one for a new incarnation.
func (b *Backend) conn(a model.Actor) (Conn, error) {
	for i := range b.conns {
		if c := &b.conns[i]; c.role == a.Role && c.id == a.ID {
			return c.conn, nil
		}
	}
	c, err := b.open()
	if err != nil {
		return nil, fmt.Errorf("connecting %s: %w", a, err)
	}
	b.conns = append(b.conns, actorConn{role: a.Role, id: a.ID, conn: c})
	return c, nil
}

// crash closes the actor's connection: whatever it had open rolls back,
// and its next incarnation connects again.
// open opens a connection, wrapped as every connection is.
func (b *Backend) open() (Conn, error) {
	sc, err := b.store.Conn(b.ctx)
	if err != nil {
		return nil, err
	}
	var c Conn = sc
	if b.wrap != nil {
		c = b.wrap(c)
	}
	return c, nil
}

func (b *Backend) crash(a model.Actor) error {
	for i := range b.conns {
		if c := b.conns[i]; c.role == a.Role && c.id == a.ID {
			b.conns = append(b.conns[:i], b.conns[i+1:]...)
			return c.conn.Close()
		}
	}
	return nil
}

func (b *Backend) closeAll() error {
	var errs []error
	for _, c := range b.conns {
		errs = append(errs, c.conn.Close())
	}
	b.conns = b.conns[:0]
	return errors.Join(errs...)
}
