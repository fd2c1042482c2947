//go:build amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le

package rivertarget

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver riversqlite runs on

	"github.com/durasim/durasim/internal/sqlprep"
	"github.com/durasim/durasim/target/effectsql"
)

// sqliteDB is River on an in-memory SQLite database, one connection: the
// simulator makes one call at a time, and a transaction never outlives a
// call of the seam.
type sqliteDB struct {
	db     *sql.DB
	driver *riversqlite.Driver
	ex     riverdriver.Executor // the driver's executor on db: it keeps no state of a call, so one serves every call
}

func openSQLite(ctx context.Context, url string) (*sqliteDB, error) {
	if url == "" {
		url = "file::memory:"
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	// Each SQL text River issues is prepared once on the connection and
	// reused (package sqlprep): parsing was most of a seed's cost. The
	// temporary b-trees SQLite builds for a statement (River's poll makes
	// one for its IN (SELECT ...) at every call) live in memory, not in
	// a temporary file's pager: 2.6% fewer instructions a seed.
	db, err := sqlprep.Open("sqlite", url+sep+"_pragma=busy_timeout(10000)&_pragma=temp_store(memory)", sqlprep.DefaultCapacity)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := setLookaside(ctx, db, lookasideSlot, lookasideSlots); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	s := &sqliteDB{db: db, driver: riversqlite.New(db)}
	s.ex = s.driver.GetExecutor()
	if err := s.init(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return s, nil
}

func (s *sqliteDB) init(ctx context.Context) error {
	if err := migrate(ctx, s.driver); err != nil {
		return err
	}
	for _, q := range effectsql.Schema("INTEGER PRIMARY KEY AUTOINCREMENT") {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteDB) exec() riverdriver.Executor { return s.ex }

func (s *sqliteDB) river(clk *clock, policy river.ClientRetryPolicy) (code, error) {
	return newRiverCode[*sql.Tx](s.driver, clk, policy, func(t dbTx) *sql.Tx { return t.(*sqliteTx).tx })
}

func (s *sqliteDB) begin(ctx context.Context) (dbTx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &sqliteTx{tx: tx, ex: s.driver.UnwrapExecutor(tx)}, nil
}

func (s *sqliteDB) run(ctx context.Context, q string, args ...any) error {
	_, err := s.db.ExecContext(ctx, q, args...)
	return err
}

func (s *sqliteDB) ints(ctx context.Context, q string) ([]int64, error) {
	r, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return scanInts(r)
}

func (s *sqliteDB) effects(ctx context.Context) (rows, error) {
	return s.db.QueryContext(ctx, effectsql.Query)
}

// reset empties the tables and their id sequences, so that a seed's ids
// start at 1 again.
func (s *sqliteDB) reset(ctx context.Context) error {
	for _, q := range []string{"DELETE FROM river_job", "DELETE FROM durasim_effect", "DELETE FROM durasim_ledger",
		"DELETE FROM sqlite_sequence WHERE name IN ('river_job', 'durasim_effect')"} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteDB) close() error { return s.db.Close() }

type sqliteTx struct {
	tx *sql.Tx
	ex riverdriver.ExecutorTx
}

func (t *sqliteTx) exec() riverdriver.ExecutorTx { return t.ex }
func (t *sqliteTx) run(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := t.tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
func (t *sqliteTx) commit(context.Context) error   { return t.tx.Commit() }
func (t *sqliteTx) rollback(context.Context) error { return t.tx.Rollback() }
