package sqlprep

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
)

// fakeDriver is a driver whose statements answer a query with the
// query's text and arguments, and which counts what it prepared.
type fakeDriver struct {
	prepared    []string
	closed      []string
	cancellable []bool // per statement run: could its context be cancelled?
}

func (d *fakeDriver) Open(string) (driver.Conn, error) { return &fakeConn{d: d}, nil }

type fakeConn struct{ d *fakeDriver }

func (c *fakeConn) Prepare(q string) (driver.Stmt, error) {
	if q == "bad" {
		return nil, errors.New("syntax error")
	}
	c.d.prepared = append(c.d.prepared, q)
	return &fakeStmt{d: c.d, q: q}, nil
}
func (c *fakeConn) Close() error              { return nil }
func (c *fakeConn) Begin() (driver.Tx, error) { return fakeTx{}, nil }

type fakeTx struct{}

func (fakeTx) Commit() error   { return nil }
func (fakeTx) Rollback() error { return nil }

type fakeStmt struct {
	d *fakeDriver
	q string
}

func (s *fakeStmt) Close() error {
	s.d.closed = append(s.d.closed, s.q)
	return nil
}
func (s *fakeStmt) NumInput() int { return -1 }
func (s *fakeStmt) Exec([]driver.Value) (driver.Result, error) {
	return nil, errors.New("the cache must use ExecContext")
}
func (s *fakeStmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("the cache must use QueryContext")
}
func (s *fakeStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.d.cancellable = append(s.d.cancellable, ctx.Done() != nil)
	return driver.RowsAffected(len(args)), nil
}
func (s *fakeStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.d.cancellable = append(s.d.cancellable, ctx.Done() != nil)
	out := []string{s.q}
	for _, a := range args {
		out = append(out, fmt.Sprint(a.Value))
	}
	return &fakeRows{vals: out}, nil
}

type fakeRows struct{ vals []string }

func (r *fakeRows) Columns() []string { return []string{"v"} }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if len(r.vals) == 0 {
		return io.EOF
	}
	dest[0], r.vals = r.vals[0], r.vals[1:]
	return nil
}

func openFake(t *testing.T, capacity int, opts ...Option) (*sql.DB, *fakeDriver) {
	t.Helper()
	d := &fakeDriver{}
	c, err := NewConnector(dsnConnector{drv: d}, capacity, opts...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db, d
}

// read reads a query's one column of strings.
func read(t *testing.T) func(*sql.Rows, error) []string {
	t.Helper()
	return func(r *sql.Rows, err error) []string { return strs(t, r, err) }
}

func strs(t *testing.T, r *sql.Rows, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for r.Next() {
		var s string
		if err := r.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func stats(t *testing.T, db *sql.DB) Stats {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var s Stats
	if err := c.Raw(func(dc any) error {
		var ok bool
		if s, ok = StatsOf(dc); !ok {
			return errors.New("not a sqlprep connection")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOneTextIsPreparedOnce(t *testing.T) {
	db, d := openFake(t, 8)
	ctx := context.Background()
	for i := range 5 {
		got := read(t)(db.QueryContext(ctx, "SELECT ?", i))
		if want := []string{"SELECT ?", fmt.Sprint(i)}; !slices.Equal(got, want) {
			t.Fatalf("query %d: got %q, want %q", i, got, want)
		}
		if _, err := db.ExecContext(ctx, "UPDATE ?", i); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	read(t)(tx.QueryContext(ctx, "SELECT ?", 9)) // a transaction runs on the same connection: the same statement
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"SELECT ?", "UPDATE ?"}; !slices.Equal(d.prepared, want) {
		t.Errorf("prepared %q, want %q", d.prepared, want)
	}
	if s := stats(t, db); s.Prepared != 2 || s.Hits != 9 || s.Bypassed != 0 {
		t.Errorf("stats %+v, want 2 prepared, 9 hits", s)
	}
}

func TestTextInUseRunsOnTheConnection(t *testing.T) {
	db, d := openFake(t, 8)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	outer, err := tx.QueryContext(ctx, "SELECT ?", 1)
	if err != nil {
		t.Fatal(err)
	}
	// The same text while the first rows are open: the fake driver has no
	// QueryerContext, so database/sql prepares a statement of its own.
	inner := read(t)(tx.QueryContext(ctx, "SELECT ?", 2))
	if want := []string{"SELECT ?", "2"}; !slices.Equal(inner, want) {
		t.Errorf("inner query: %q, want %q", inner, want)
	}
	if got := read(t)(outer, nil); !slices.Equal(got, []string{"SELECT ?", "1"}) {
		t.Errorf("outer query: %q", got)
	}
	read(t)(tx.QueryContext(ctx, "SELECT ?", 3)) // free again: the cached one
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := stats(t, db); s.Prepared != 1 || s.Hits != 1 || s.Bypassed != 1 {
		t.Errorf("stats %+v, want 1 prepared, 1 hit, 1 bypassed", s)
	}
	if n := len(d.prepared); n != 2 {
		t.Errorf("driver prepared %d statements (%q), want 2: the cached one and database/sql's", n, d.prepared)
	}
}

func TestLeastRecentlyUsedIsEvicted(t *testing.T) {
	db, d := openFake(t, 2)
	ctx := context.Background()
	for _, q := range []string{"a", "b", "a", "c", "a", "b"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// a, b cached; c evicts b (a was used after it); b evicts c.
	if want := []string{"a", "b", "c", "b"}; !slices.Equal(d.prepared, want) {
		t.Errorf("prepared %q, want %q", d.prepared, want)
	}
	if want := []string{"b", "c"}; !slices.Equal(d.closed, want) {
		t.Errorf("closed %q, want %q", d.closed, want)
	}
	if s := stats(t, db); s.Evicted != 2 || s.Hits != 2 {
		t.Errorf("stats %+v, want 2 evicted, 2 hits", s)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "c", "a", "b"}; !slices.Equal(d.closed, want) {
		t.Errorf("after Close, closed %q, want %q: every cached statement closed with its connection", d.closed, want)
	}
}

func TestPrepareErrorIsReturnedAndNotCached(t *testing.T) {
	db, d := openFake(t, 4)
	for range 2 {
		if _, err := db.ExecContext(context.Background(), "bad"); err == nil || err.Error() != "syntax error" {
			t.Fatalf("got %v, want the driver's syntax error", err)
		}
	}
	if len(d.prepared) != 0 {
		t.Errorf("prepared %q", d.prepared)
	}
}

func TestCapacityMustBePositive(t *testing.T) {
	if _, err := NewConnector(dsnConnector{drv: &fakeDriver{}}, 0); err == nil {
		t.Fatal("capacity 0 accepted")
	}
}

// Unwrap gives the driver's own connection under sqlprep's, and nothing
// for a connection sqlprep did not open.
func TestUnwrap(t *testing.T) {
	db, _ := openFake(t, 8)
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error {
		in, ok := Unwrap(dc)
		if !ok || in == nil || in == dc {
			return fmt.Errorf("Unwrap(%T) = %T, %v: want the driver's connection", dc, in, ok)
		}
		if _, isOurs := Unwrap(in); isOurs {
			return fmt.Errorf("Unwrap of the driver's own %T took it for sqlprep's", in)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A statement gets its caller's cancellable context, unless the
// connections run statements uninterrupted; either way database/sql
// refuses a call whose context is already done.
func TestUninterruptedStatements(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want bool // the driver saw a cancellable context
	}{{nil, true}, {[]Option{UninterruptedStatements()}, false}} {
		db, d := openFake(t, 4, tc.opts...)
		ctx, cancel := context.WithCancel(context.Background())
		read(t)(db.QueryContext(ctx, "SELECT ?", 1))
		if _, err := db.ExecContext(ctx, "UPDATE ?", 2); err != nil {
			t.Fatal(err)
		}
		if want := []bool{tc.want, tc.want}; !slices.Equal(d.cancellable, want) {
			t.Errorf("options %d: the driver's contexts cancellable %v, want %v", len(tc.opts), d.cancellable, want)
		}
		cancel()
		if _, err := db.ExecContext(ctx, "UPDATE ?", 3); !errors.Is(err, context.Canceled) {
			t.Errorf("options %d: a call on a done context gave %v, want context.Canceled", len(tc.opts), err)
		}
	}
}
