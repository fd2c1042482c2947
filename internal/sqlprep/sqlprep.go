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

// Open opens a *sql.DB on the registered driver driverName whose
// connections cache up to capacity prepared statements each (at least 1).
func Open(driverName, dsn string, capacity int) (*sql.DB, error) {
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
	c, err := NewConnector(base, capacity)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// NewConnector wraps base: each connection it opens caches up to capacity
// prepared statements.
func NewConnector(base driver.Connector, capacity int) (driver.Connector, error) {
	if capacity < 1 {
		return nil, fmt.Errorf("sqlprep: capacity must be at least 1, got %d", capacity)
	}
	return &connector{base: base, capacity: capacity}, nil
}

type connector struct {
	base     driver.Connector
	capacity int
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return newConn(dc, c.capacity), nil
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
