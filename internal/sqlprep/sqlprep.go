package sqlprep

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
)

// DefaultCapacity is how many statements a connection keeps: well above
// the number of SQL texts River's driver issues in a sweep.
const DefaultCapacity = 128

// Option changes how the wrapped connections run statements.
type Option func(*connector)

// UninterruptedStatements runs every statement, once started, to its end:
// the driver is given the call's context without its cancellation
// (context.WithoutCancel). database/sql still refuses a call whose context
// is already done before it reaches the driver; what goes is only the
// interrupt of a statement under way, and with it the goroutine
// modernc.org/sqlite starts for every statement on a cancellable context
// to watch for one (about a fifth of a River seed's goroutines). For a
// single process whose statements take microseconds, as the deterministic
// target sweeps are, nothing is lost.
func UninterruptedStatements() Option { return func(c *connector) { c.uninterrupted = true } }

// Open opens a *sql.DB on the registered driver driverName whose
// connections cache up to capacity prepared statements each (at least 1).
func Open(driverName, dsn string, capacity int, opts ...Option) (*sql.DB, error) {
	probe, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	drv := probe.Driver()
	_ = probe.Close() // sql.Open connected nothing
	var base driver.Connector
	if dc, ok := drv.(driver.DriverContext); ok {
		if base, err = dc.OpenConnector(dsn); err != nil {
			return nil, err
		}
	} else {
		base = dsnConnector{drv: drv, dsn: dsn}
	}
	c, err := NewConnector(base, capacity, opts...)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// NewConnector wraps base: each connection it opens caches up to capacity
// prepared statements.
func NewConnector(base driver.Connector, capacity int, opts ...Option) (driver.Connector, error) {
	if capacity < 1 {
		return nil, fmt.Errorf("sqlprep: capacity must be at least 1, got %d", capacity)
	}
	c := &connector{base: base, capacity: capacity}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

type connector struct {
	base          driver.Connector
	capacity      int
	uninterrupted bool
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	cn := newConn(dc, c.capacity)
	cn.uninterrupted = c.uninterrupted
	return cn, nil
}

func (c *connector) Driver() driver.Driver { return c.base.Driver() }

// dsnConnector is a driver without a connector of its own opened by name.
type dsnConnector struct {
	drv driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// Stats are a connection's cache counts, for tests and profiles.
type Stats struct {
	Prepared int // statements prepared for the cache
	Hits     int // calls that ran a cached statement
	Bypassed int // calls run on the connection: the text's statement was in use, or the driver cannot run it
	Evicted  int // statements closed to make room
}

// StatsOf reads the cache counts of the connection c holds (a *sql.Conn's
// Raw gives it); ok is false for a connection this package did not open.
func StatsOf(driverConn any) (Stats, bool) {
	c, ok := driverConn.(*conn)
	if !ok {
		return Stats{}, false
	}
	return c.stats, true
}

var errClosed = errors.New("sqlprep: connection closed")

// Unwrap is the driver's own connection under the connection c holds (a
// *sql.Conn's Raw gives it); ok is false for a connection this package
// did not open.
func Unwrap(driverConn any) (driver.Conn, bool) {
	c, ok := driverConn.(*conn)
	if !ok {
		return nil, false
	}
	return c.c, true
}
