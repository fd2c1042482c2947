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
	// quiet is what the database last showed of the rows River's queries
	// that take rows by a time may take (quietKind).
	quiet quiet
	// private: the database is in memory, on its one connection, so
	// nothing writes it that total_changes() does not count (a file may
	// have other writers): only then are River's queries judged.
	private bool
	changes changeCounter
}

// quietKind names one of River's queries that take the rows of a set
// whose time has come: its poll, its scheduler's pass, its rescuer's read
// of stuck jobs. In riversqlite's SQL:
//   - JobGetAvailable (quietPoll) is an UPDATE of the rows WHERE priority
//     >= 0 AND queue = ? AND scheduled_at <= now AND state = 'available'
//     (no kind filter; LIMIT the fetch's max, never 0);
//   - JobSchedule (quietSchedule) is a SELECT of the rows WHERE state IN
//     ('retryable', 'scheduled') AND scheduled_at <= now, then an UPDATE
//     of each found, in a transaction of its own;
//   - JobGetStuck (quietStuck) is a SELECT of the rows WHERE state =
//     'running' AND id > 0 AND attempted_at < the stuck horizon (every id
//     is above 0: the rows of any id are a superset, whose earliest time
//     is no later, so judging by them is safe).
//
// Each compares a time column of NUMERIC affinity with a text parameter
// River formats (sqliteTime): a value stored as text is compared as text,
// byte by byte (BINARY collation), as Go compares strings and as min()
// orders them; a value stored otherwise is compared otherwise, so a kind
// whose rows hold one is not judged.
type quietKind int

const (
	quietPoll quietKind = iota
	quietSchedule
	quietStuck
	quietKinds
)

// strict: the query takes a row whose time is before its bound (else at
// or before it).
var quietStrict = [quietKinds]bool{quietStuck: true}

// quietRows reads SQLite's count of rows changed (total_changes()) and,
// for each quietKind, the earliest time of the rows it may take: NULL when
// there are none, 0 when one of their times is not stored as text. Each
// is one search of river_job's index on (state, queue, priority,
// scheduled_at, id), which holds the scheduled_at of the first two.
const quietRows = `SELECT total_changes(),
  (SELECT CASE WHEN count(CASE WHEN typeof(scheduled_at) <> 'text' THEN 1 END) > 0 THEN 0 ELSE min(scheduled_at) END
   FROM river_job WHERE state = 'available' AND queue = ?1 AND priority >= 0),
  (SELECT CASE WHEN count(CASE WHEN typeof(scheduled_at) <> 'text' THEN 1 END) > 0 THEN 0 ELSE min(scheduled_at) END
   FROM river_job WHERE state IN ('retryable', 'scheduled')),
  (SELECT CASE WHEN count(CASE WHEN typeof(attempted_at) <> 'text' THEN 1 END) > 0 THEN 0 ELSE min(attempted_at) END
   FROM river_job WHERE state = 'running')`

// quiet is what the database last showed of the rows River's queries may
// take (quietRows): the count of rows changed then (SQLite's
// total_changes() on the one connection: every INSERT, UPDATE and DELETE,
// rolled back or not, adds the rows it touched), and for each kind the
// earliest time of its rows (none: "").
//
// If that time is past a query's bound, the query is certain to find
// nothing; while the count has not moved, the rows are as they were, so
// they need not be read again. A query that finds nothing changes nothing
// (an UPDATE of no row, a SELECT), so River's answer (no job) and the
// database after it are as if its SQL ran: only SQL certain to be a no-op
// is skipped, and whatever River's code decides from rows it still
// decides.
type quiet struct {
	known   bool
	changes int64
	next    [quietKinds]string
	unsure  [quietKinds]bool // a time of the kind's rows not stored as text
	certain [quietKinds]int  // queries judged certain to find nothing, for tests
}

// sqliteTime is a time as River's SQLite driver writes and compares it:
// UTC, to the millisecond, in the layout "2006-01-02 15:04:05.000" (text
// compares as time), written out digit by digit (Format's cost was 1% of
// a seed); a year Format would not write in four digits goes through
// Format.
func sqliteTime(t time.Time) string {
	t = t.UTC().Round(time.Millisecond)
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.Format("2006-01-02 15:04:05.000")
	}
	h, mi, sec := t.Clock()
	var b [23]byte
	put := func(at, v, n int) {
		for i := at + n - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, y, 4)
	b[4] = '-'
	put(5, int(mo), 2)
	b[7] = '-'
	put(8, d, 2)
	b[10] = ' '
	put(11, h, 2)
	b[13] = ':'
	put(14, mi, 2)
	b[16] = ':'
	put(17, sec, 2)
	b[19] = '.'
	put(20, t.Nanosecond()/int(time.Millisecond), 3)
	return string(b[:])
}

// certainEmpty says whether River's query k at bound is certain to find
// nothing (see quiet); false when unsure.
func (s *sqliteDB) certainEmpty(ctx context.Context, k quietKind, bound time.Time) (bool, error) {
	if !s.private {
		return false, nil
	}
	q := &s.quiet
	if q.known {
		changes, err := s.changes.total(ctx, s.db)
		if err != nil {
			return false, err
		}
		q.known = changes == q.changes
	}
	if !q.known {
		var next [quietKinds]any
		if err := s.db.QueryRowContext(ctx, quietRows, queueName).Scan(&q.changes, &next[quietPoll], &next[quietSchedule], &next[quietStuck]); err != nil {
			return false, err
		}
		for i, v := range next {
			// text: the earliest time; NULL: no row; 0: a time not text
			t, ok := v.(string)
			q.next[i], q.unsure[i] = t, !ok && v != nil
		}
		q.known = true
	}
	if q.unsure[k] {
		return false, nil // a time not stored as River's text
	}
	if b := sqliteTime(bound); q.next[k] != "" && (q.next[k] < b || !quietStrict[k] && q.next[k] == b) {
		return false, nil // a row's time has come
	}
	q.certain[k]++
	return true, nil
}

// skipped is how many of River's polls, scheduler passes and reads of
// stuck jobs the database judged certain to find nothing (see quiet),
// verified ones included.
func (s *sqliteDB) skipped() Skips {
	c := s.quiet.certain
	return Skips{Polls: c[quietPoll], Passes: c[quietSchedule], Stuck: c[quietStuck]}
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
	// a temporary file's pager: 2.6% fewer instructions a seed. A
	// statement runs to its end once started (the sweep is one process,
	// its statements take microseconds): modernc no longer starts a
	// goroutine per statement to watch for a cancel.
	db, err := sqlprep.Open("sqlite", url+sep+"_pragma=busy_timeout(10000)&_pragma=temp_store(memory)", sqlprep.DefaultCapacity,
		sqlprep.UninterruptedStatements())
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

func (s *sqliteDB) close() error {
	s.changes.close()
	return s.db.Close()
}

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
