package sqlprep

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
)

// conn is a driver connection with its statement cache. database/sql
// uses a connection from one goroutine at a time (closing a Rows
// included), so the cache needs no lock.
type conn struct {
	c        driver.Conn
	capacity int
	byText   map[string]*entry
	entries  []*entry // in the order they were prepared: eviction scans these, never the map
	tick     uint64   // a use's number, for least-recently-used eviction
	stats    Stats
	closed   bool
	// uninterrupted: statements get their context without its
	// cancellation (UninterruptedStatements).
	uninterrupted bool
}

// entry is one cached statement.
type entry struct {
	text string
	st   driver.Stmt
	q    driver.StmtQueryContext
	x    driver.StmtExecContext
	busy bool // its rows are open
	used uint64
}

func newConn(c driver.Conn, capacity int) *conn {
	return &conn{c: c, capacity: capacity, byText: map[string]*entry{}}
}

var (
	_ driver.Conn               = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
)

// statement is the cached statement for text, prepared now if it is not
// there; nil (and no error) when the call must run on the connection
// instead: the statement is in use, the cache is full of statements in
// use, or the driver's statement cannot take a context.
func (c *conn) statement(ctx context.Context, text string) (*entry, error) {
	if c.closed {
		return nil, errClosed
	}
	if e, ok := c.byText[text]; ok {
		if e.busy {
			return nil, nil
		}
		c.tick++
		e.used = c.tick
		c.stats.Hits++
		return e, nil
	}
	if len(c.entries) >= c.capacity && !c.evict() {
		return nil, nil
	}
	st, err := c.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	q, okQ := st.(driver.StmtQueryContext)
	x, okX := st.(driver.StmtExecContext)
	if !okQ || !okX {
		return nil, st.Close()
	}
	c.tick++
	e := &entry{text: text, st: st, q: q, x: x, used: c.tick}
	c.byText[text] = e
	c.entries = append(c.entries, e)
	c.stats.Prepared++
	return e, nil
}

// evict closes the least recently used statement not in use; false when
// every statement is in use.
func (c *conn) evict() bool {
	victim := -1
	for i, e := range c.entries {
		if !e.busy && (victim < 0 || e.used < c.entries[victim].used) {
			victim = i
		}
	}
	if victim < 0 {
		return false
	}
	e := c.entries[victim]
	c.entries = append(c.entries[:victim], c.entries[victim+1:]...)
	delete(c.byText, e.text)
	c.stats.Evicted++
	_ = e.st.Close() // a statement that fails to close has nothing left to give
	return true
}

// run is the context a statement runs under.
func (c *conn) run(ctx context.Context) context.Context {
	if c.uninterrupted {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	ctx = c.run(ctx)
	e, err := c.statement(ctx, query)
	if err != nil {
		return nil, err
	}
	if e == nil {
		c.stats.Bypassed++
		if qc, ok := c.c.(driver.QueryerContext); ok {
			return qc.QueryContext(ctx, query, args)
		}
		return nil, driver.ErrSkip // database/sql prepares it through PrepareContext
	}
	r, err := e.q.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	e.busy = true
	return &rows{Rows: r, e: e}, nil
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	ctx = c.run(ctx)
	e, err := c.statement(ctx, query)
	if err != nil {
		return nil, err
	}
	if e == nil {
		c.stats.Bypassed++
		if ec, ok := c.c.(driver.ExecerContext); ok {
			return ec.ExecContext(ctx, query, args)
		}
		return nil, driver.ErrSkip
	}
	return e.x.ExecContext(ctx, args)
}

// PrepareContext prepares a statement of the driver's own: database/sql
// owns it and closes it.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if pc, ok := c.c.(driver.ConnPrepareContext); ok {
		return pc.PrepareContext(ctx, query)
	}
	return c.c.Prepare(query)
}

func (c *conn) Prepare(query string) (driver.Stmt, error) { return c.c.Prepare(query) }

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	ctx = c.run(ctx) // the driver may keep it for the commit
	if bc, ok := c.c.(driver.ConnBeginTx); ok {
		return bc.BeginTx(ctx, opts)
	}
	if opts.Isolation != driver.IsolationLevel(0) || opts.ReadOnly {
		return nil, errors.New("sqlprep: the driver takes no transaction options")
	}
	return c.c.Begin() //nolint:staticcheck // the driver has nothing newer
}

// Begin is the deprecated form database/sql no longer calls when BeginTx
// exists.
func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

// Close closes every cached statement, then the connection.
func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	var first error
	for _, e := range c.entries {
		if err := e.st.Close(); err != nil && first == nil {
			first = err
		}
	}
	c.entries, c.byText = nil, nil
	if err := c.c.Close(); err != nil {
		return err
	}
	return first
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.c.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.c.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.c.(driver.Validator); ok {
		return v.IsValid()
	}
	return !c.closed
}

// CheckNamedValue is the driver's own check of an argument, or
// database/sql's default conversion where the driver has none.
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if nc, ok := c.c.(driver.NamedValueChecker); ok {
		return nc.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// rows are a cached statement's rows: closing them frees the statement
// for the next call. The column-type methods are the driver's, or what
// database/sql reports for a driver without them.
type rows struct {
	driver.Rows
	e *entry
}

func (r *rows) Close() error {
	r.e.busy = false
	return r.Rows.Close()
}

func (r *rows) HasNextResultSet() bool {
	if n, ok := r.Rows.(driver.RowsNextResultSet); ok {
		return n.HasNextResultSet()
	}
	return false
}

func (r *rows) NextResultSet() error {
	if n, ok := r.Rows.(driver.RowsNextResultSet); ok {
		return n.NextResultSet()
	}
	return io.EOF
}

func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *rows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *rows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *rows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}
