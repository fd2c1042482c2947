package goqitetarget

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"modernc.org/sqlite"
)

// openSQLite opens an SQLite database (url "": in memory) on a driver of
// durasim's own, whose connections carry two functions in place of
// SQLite's, so that the database's clock and randomness are the run's:
//   - strftime(format), the one-argument form goqite's schema stamps
//     created and updated with ("now" implied), reads q's database
//     clock (the two- and more-argument forms stay SQLite's);
//   - randomblob(n), behind goqite's message ids, is the id a send drew
//     from the seed.
//
// One connection: the simulator makes one call at a time, and a
// transaction never outlives a call of the seam.
func openSQLite(ctx context.Context, url string, q *Queue) (*sql.DB, error) {
	if url == "" {
		url = "file::memory:"
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	d := &sqlite.Driver{}
	if err := d.RegisterScalarFunction("strftime", 1, q.sqliteStrftime); err != nil {
		return nil, err
	}
	if err := d.RegisterScalarFunction("randomblob", 1, q.sqliteRandomblob); err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector{d: d, dsn: url + sep + "_pragma=busy_timeout(10000)"})
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := initSQLite(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return db, nil
}

func initSQLite(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'goqite'").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := db.ExecContext(ctx, goqiteSchemaSQLite); err != nil {
			return err
		}
	}
	for _, s := range durasimSchema("INTEGER PRIMARY KEY AUTOINCREMENT") {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// connector opens connections of one driver (sql.OpenDB registers no
// driver name).
type connector struct {
	d   *sqlite.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }

// sqliteStamp is goqite's schema's strftime format, the only one its
// one-argument calls use.
const sqliteStamp = "%Y-%m-%dT%H:%M:%fZ"

func (q *Queue) sqliteStrftime(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	if f, ok := args[0].(string); !ok || f != sqliteStamp {
		return nil, fmt.Errorf("durasim's strftime(format) stands in for SQLite's 'now' in goqite's schema only: format %q unknown", args[0])
	}
	return wall(q.clk.db).UTC().Format("2006-01-02T15:04:05.000Z"), nil
}

// sqliteRandomblob hands out the id a send drew (Queue.messageID), once.
func (q *Queue) sqliteRandomblob(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	n, ok := args[0].(int64)
	if !ok || n != int64(len(q.clk.id)) {
		return nil, fmt.Errorf("durasim's randomblob(n) stands in for SQLite's in goqite's message ids: no id of %v bytes set for this send", args[0])
	}
	b := q.clk.id
	q.clk.id = nil
	return b, nil
}
