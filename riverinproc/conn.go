package riverinproc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"

	"modernc.org/sqlite"
)

// ErrKilled is every database call of a client after its kill: nothing
// of a killed client reaches the database, as nothing of a SIGKILLed
// process reaches the server.
var ErrKilled = errors.New("riverinproc: the client was killed")

// dbLock is the database's one writer: SQLite lets one transaction write
// at a time and makes the others wait (busy_timeout) in real time, in a
// sleep outside the bubble's clock. Here a transaction takes the lock at
// its BEGIN and gives it back at its end, and a statement outside a
// transaction holds it while it runs (until its rows close): a wait is a
// goroutine blocked on a channel of the bubble, durably blocked, so
// virtual time runs on while it waits, as River's own timeouts expect.
type dbLock chan struct{}

func (l dbLock) take(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l dbLock) give() { <-l }

// ctl is one client incarnation's hold on its connections: killed, every
// call fails with ErrKilled; frozen, every call waits until thawed (or
// its context ends), as a SIGSTOPped process's calls never leave it.
type ctl struct {
	mu     sync.Mutex
	dead   bool
	thawed chan struct{} // nil: not frozen
}

func (c *ctl) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = true
	if c.thawed != nil {
		close(c.thawed)
		c.thawed = nil
	}
}

func (c *ctl) freeze() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.thawed == nil && !c.dead {
		c.thawed = make(chan struct{})
	}
}

func (c *ctl) thaw() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.thawed != nil {
		close(c.thawed)
		c.thawed = nil
	}
}

func (c *ctl) killed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// gate is what every call passes first.
func (c *ctl) gate(ctx context.Context) error {
	c.mu.Lock()
	dead, wait := c.dead, c.thawed
	c.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		return c.gate(ctx)
	}
	if dead {
		return ErrKilled
	}
	return nil
}

// openDB is a database/sql pool on the SQLite file dsn whose every
// connection passes c's gate and the run's lock.
func openDB(dsn string, c *ctl, lock dbLock, conns int) *sql.DB {
	db := sql.OpenDB(&connector{dsn: dsn, c: c, lock: lock})
	db.SetMaxOpenConns(conns)
	return db
}

type connector struct {
	dsn  string
	c    *ctl
	lock dbLock
}

func (k *connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := k.c.gate(ctx); err != nil {
		return nil, err
	}
	inner, err := (&sqlite.Driver{}).Open(k.dsn)
	if err != nil {
		return nil, err
	}
	return &conn{inner: inner, c: k.c, lock: k.lock}, nil
}

func (k *connector) Driver() driver.Driver { return &sqlite.Driver{} }

// conn is one gated connection. inTx: it holds the lock for its open
// transaction.
type conn struct {
	inner driver.Conn
	c     *ctl
	lock  dbLock
	inTx  bool
}

func (c *conn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("riverinproc: Prepare without a context")
}

func (c *conn) Begin() (driver.Tx, error) {
	return nil, errors.New("riverinproc: Begin without a context")
}

func (c *conn) Close() error {
	if c.inTx {
		c.inTx = false
		c.lock.give()
	}
	return c.inner.Close()
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.c.gate(ctx); err != nil {
		return nil, err
	}
	if err := c.lock.take(ctx); err != nil {
		return nil, err
	}
	tx, err := c.inner.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		c.lock.give()
		return nil, err
	}
	c.inTx = true
	return &txn{inner: tx, c: c}, nil
}

// hold takes the lock for a statement outside a transaction; its release
// is the returned func (nothing to release inside one).
func (c *conn) hold(ctx context.Context) (func(), error) {
	if err := c.c.gate(ctx); err != nil {
		return nil, err
	}
	if c.inTx {
		return func() {}, nil
	}
	if err := c.lock.take(ctx); err != nil {
		return nil, err
	}
	return c.lock.give, nil
}

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	release, err := c.hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return c.inner.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	release, err := c.hold(ctx)
	if err != nil {
		return nil, err
	}
	r, err := c.inner.(driver.QueryerContext).QueryContext(ctx, q, args)
	if err != nil {
		release()
		return nil, err
	}
	return &rowsOf{Rows: r, release: release}, nil
}

func (c *conn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	if err := c.c.gate(ctx); err != nil {
		return nil, err
	}
	s, err := c.inner.(driver.ConnPrepareContext).PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return &stmt{inner: s, c: c}, nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if c.c.killed() {
		return driver.ErrBadConn
	}
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// rowsOf releases the lock of a statement outside a transaction when its
// rows close.
type rowsOf struct {
	driver.Rows
	once    sync.Once
	release func()
}

func (r *rowsOf) Close() error {
	err := r.Rows.Close()
	r.once.Do(r.release)
	return err
}

type stmt struct {
	inner driver.Stmt
	c     *conn
}

func (s *stmt) Close() error  { return s.inner.Close() }
func (s *stmt) NumInput() int { return s.inner.NumInput() }
func (s *stmt) Exec([]driver.Value) (driver.Result, error) {
	return nil, errors.New("riverinproc: Exec without a context")
}
func (s *stmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("riverinproc: Query without a context")
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	release, err := s.c.hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.inner.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	release, err := s.c.hold(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.inner.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		release()
		return nil, err
	}
	return &rowsOf{Rows: r, release: release}, nil
}

// txn is a gated transaction: a killed client's COMMIT never reaches the
// database (it rolls back, as the server does when the connection
// drops); a ROLLBACK always does.
type txn struct {
	inner driver.Tx
	c     *conn
}

func (t *txn) end() {
	if t.c.inTx {
		t.c.inTx = false
		t.c.lock.give()
	}
}

func (t *txn) Commit() error {
	defer t.end()
	if err := t.c.c.gate(context.Background()); err != nil {
		_ = t.inner.Rollback()
		return err
	}
	return t.inner.Commit()
}

func (t *txn) Rollback() error {
	defer t.end()
	return t.inner.Rollback()
}
