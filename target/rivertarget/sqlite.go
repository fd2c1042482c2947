//go:build amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le

package rivertarget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
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
	// quiet is, for each of River's queries that take rows by a time
	// (quietQueries), what the database last showed of those rows.
	quiet [quietKinds]quiet
	// private: the database is in memory, on its one connection, so
	// nothing writes it that total_changes() does not count (a file may
	// have other writers): only then are River's queries judged.
	private bool
}

// quietKind names one of River's queries that take the rows of a set
// whose time has come: River's poll, its scheduler's pass, its rescuer's
// read of stuck jobs.
type quietKind int

const (
	quietPoll     quietKind = iota // JobGetAvailable
	quietSchedule                  // JobSchedule
	quietStuck                     // JobGetStuck
	quietKinds
)

// quietQuery is what the database reads to judge a River query: takes
// reads, over the rows the query may take (a superset is safe: its
// earliest time is no later), SQLite's count of rows changed
// (total_changes()), their earliest time, and how many of their times are
// not stored as text (River writes text; another kind compares otherwise).
// The query takes a row whose time is at or before its bound (strict:
// before it).
type quietQuery struct {
	takes  string
	args   []any
	strict bool
}

// quietQueries: River's SQL in riversqlite, and the rows each takes
// (its WHERE clause less the time bound):
//   - JobGetAvailable, an UPDATE of the rows WHERE priority >= 0 AND
//     queue = ? AND scheduled_at <= now AND state = 'available' (no kind
//     filter, LIMIT the fetch's max, never 0);
//   - JobSchedule, a SELECT of the rows WHERE state IN ('retryable',
//     'scheduled') AND scheduled_at <= now, then an UPDATE of each found,
//     in a transaction of its own;
//   - JobGetStuck, a SELECT of the rows WHERE state = 'running' AND id > 0
//     AND attempted_at < the stuck horizon (every id is above 0, so the
//     rows of any id are a superset).
//
// Each compares a time column of NUMERIC affinity with a text parameter:
// a value stored as text is compared as text (BINARY collation, byte by
// byte as Go compares strings), min() orders them the same way.
var quietQueries = [quietKinds]quietQuery{
	quietPoll: {takes: `SELECT total_changes(), min(scheduled_at), count(*) - count(CASE WHEN typeof(scheduled_at) = 'text' THEN 1 END)
FROM river_job WHERE priority >= 0 AND queue = ? AND state = 'available'`, args: []any{queueName}},
	quietSchedule: {takes: `SELECT total_changes(), min(scheduled_at), count(*) - count(CASE WHEN typeof(scheduled_at) = 'text' THEN 1 END)
FROM river_job WHERE state IN ('retryable', 'scheduled')`},
	quietStuck: {takes: `SELECT total_changes(), min(attempted_at), count(*) - count(CASE WHEN typeof(attempted_at) = 'text' THEN 1 END)
FROM river_job WHERE state = 'running'`, strict: true},
}

// quiet is what the database last showed of the rows a River query may
// take (see quietQueries): the count of rows changed then (SQLite's
// total_changes() on the one connection: every INSERT, UPDATE and DELETE,
// rolled back or not, adds the rows it touched), and their earliest time
// (none: "", every time stored as text).
//
// If that time is past the query's bound, the query is certain to find
// nothing; while the count has not moved, the rows are as they were, so a
// later bound still before it is certain too, without reading them again.
// A query that finds nothing changes nothing (an UPDATE of no row, a
// SELECT), so River's answer (no job) and the database after it are as if
// its SQL ran: only SQL certain to be a no-op is skipped, and whatever
// River's code decides from rows it still decides.
type quiet struct {
	known   bool
	changes int64
	next    string
	certain int // queries judged certain to find nothing, for tests
}

// sqliteTime is a time as River's SQLite driver writes and compares it:
// UTC, to the millisecond, in this layout (text compares as time).
func sqliteTime(t time.Time) string {
	return t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
}

// certainEmpty says whether River's query k at bound is certain to find
// nothing (see quiet); false when unsure.
func (s *sqliteDB) certainEmpty(ctx context.Context, k quietKind, bound time.Time) (bool, error) {
	if !s.private {
		return false, nil
	}
	q, qq := &s.quiet[k], &quietQueries[k]
	if q.known {
		var changes int64
		if err := s.db.QueryRowContext(ctx, "SELECT total_changes()").Scan(&changes); err != nil {
			return false, err
		}
		q.known = changes == q.changes
	}
	if !q.known {
		var next sql.NullString
		var other int64
		if err := s.db.QueryRowContext(ctx, qq.takes, qq.args...).Scan(&q.changes, &next, &other); err != nil {
			return false, err
		}
		if other > 0 {
			return false, nil // a time not stored as River's text: unsure
		}
		q.known, q.next = true, next.String
	}
	if b := sqliteTime(bound); q.next != "" && (q.next < b || !qq.strict && q.next == b) {
		return false, nil // a row's time has come
	}
	q.certain++
	return true, nil
}

// skipped is how many of River's polls, scheduler passes and reads of
// stuck jobs the database judged certain to find nothing (see quiet),
// verified ones included.
func (s *sqliteDB) skipped() Skips {
	return Skips{Polls: s.quiet[quietPoll].certain, Passes: s.quiet[quietSchedule].certain, Stuck: s.quiet[quietStuck].certain}
}

func openSQLite(ctx context.Context, url string) (*sqliteDB, error) {
	private := url == ""
	if private {
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
	s := &sqliteDB{db: db, driver: riversqlite.New(db), private: private}
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
func (t *sqliteTx) state(ctx context.Context, id int64) (rivertype.JobState, error) {
	var st string
	err := t.tx.QueryRowContext(ctx, stateQuery, id).Scan(&st)
	if errors.Is(err, sql.ErrNoRows) {
		return "", rivertype.ErrNotFound
	}
	return rivertype.JobState(st), err
}
func (t *sqliteTx) commit(context.Context) error   { return t.tx.Commit() }
func (t *sqliteTx) rollback(context.Context) error { return t.tx.Rollback() }
