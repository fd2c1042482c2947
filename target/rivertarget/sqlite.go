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
	// idle is what River's last empty poll left known, sched what its
	// scheduler's last pass that moved nothing left.
	idle, sched quiet
	// private: the database is in memory, on its one connection, so
	// nothing writes it that total_changes() does not count (a file may
	// have other writers): only then are polls and passes judged.
	private bool
}

// quiet is what a River query that changed nothing (an empty poll, a
// scheduler pass that moved no job) left known: the database's count of
// rows changed then (SQLite's total_changes() on the one connection:
// every INSERT, UPDATE and DELETE, rolled back or not, adds the rows it
// touched), and the earliest scheduled_at of a job the query would take
// (none: "", every scheduled_at stored as text).
//
// River's poll is an UPDATE whose rows are the available jobs of the
// queue due at now; its scheduler's pass (JobSchedule) a SELECT of the
// scheduled and retryable jobs of any queue due at now, then an UPDATE of
// those it found. One that found nothing changed nothing. While the count
// has not moved, the database is as it was, so the same query at a now
// before that earliest time finds nothing either: its answer is certain
// without running it. Only SQL certain to be a no-op is skipped: River's
// answer (no job) and the database after it are as if it ran, and
// whatever River's code decides from rows it still decides.
type quiet struct {
	known   bool
	changes int64
	next    string // "": no job the query would take
	certain int    // queries judged certain to find nothing, for tests
}

// sqliteTime is a time as River's SQLite driver writes and compares it:
// UTC, to the millisecond, in this layout (text compares as time).
func sqliteTime(t time.Time) string {
	return t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
}

// The rows each query takes, whose earliest scheduled_at bounds when it
// finds one: River's poll's (JobGetAvailable: the queue's available
// jobs) and its scheduler's (JobScheduleGetEligible: scheduled and
// retryable jobs of every queue). Each reads total_changes() with them,
// and the count of scheduled_at not stored as text.
const (
	pollTakes = `SELECT total_changes(), min(scheduled_at), count(*) - count(CASE WHEN typeof(scheduled_at) = 'text' THEN 1 END)
FROM river_job WHERE priority >= 0 AND queue = ? AND state = 'available'`
	scheduleTakes = `SELECT total_changes(), min(scheduled_at), count(*) - count(CASE WHEN typeof(scheduled_at) = 'text' THEN 1 END)
FROM river_job WHERE state IN ('retryable', 'scheduled')`
)

// empty says whether the query q stands for is certain to find nothing
// at now (see quiet); false when unsure.
func (s *sqliteDB) empty(ctx context.Context, q *quiet, now time.Time) (bool, error) {
	if !s.private || !q.known {
		return false, nil
	}
	var changes int64
	if err := s.db.QueryRowContext(ctx, "SELECT total_changes()").Scan(&changes); err != nil {
		return false, err
	}
	if changes != q.changes {
		q.known = false
		return false, nil
	}
	if q.next != "" && sqliteTime(now) >= q.next {
		return false, nil
	}
	q.certain++
	return true, nil
}

// foundNone records in q the state a query that found nothing left,
// read by takes (pollTakes, scheduleTakes) with args.
func (s *sqliteDB) foundNone(ctx context.Context, q *quiet, takes string, args ...any) error {
	q.known = false
	if !s.private {
		return nil
	}
	var changes int64
	var next sql.NullString
	var other int64
	if err := s.db.QueryRowContext(ctx, takes, args...).Scan(&changes, &next, &other); err != nil {
		return err
	}
	if other > 0 {
		return nil // a time not stored as River's text: unsure
	}
	q.known, q.changes, q.next = true, changes, next.String
	return nil
}

// emptyPoll says whether River's poll at now is certain to find no job;
// false when unsure.
func (s *sqliteDB) emptyPoll(ctx context.Context, now time.Time) (bool, error) {
	return s.empty(ctx, &s.idle, now)
}

// polledEmpty records the state a poll that found nothing left.
func (s *sqliteDB) polledEmpty(ctx context.Context) error {
	return s.foundNone(ctx, &s.idle, pollTakes, queueName)
}

// emptySchedule says whether River's scheduler pass at now is certain to
// move no job; false when unsure.
func (s *sqliteDB) emptySchedule(ctx context.Context, now time.Time) (bool, error) {
	return s.empty(ctx, &s.sched, now)
}

// scheduledNone records the state a scheduler pass that moved nothing
// left.
func (s *sqliteDB) scheduledNone(ctx context.Context) error {
	return s.foundNone(ctx, &s.sched, scheduleTakes)
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

// skipped is how many polls and scheduler passes the database judged
// certain to find nothing (see quiet), verified ones included.
func (s *sqliteDB) skipped() (polls, passes int) { return s.idle.certain, s.sched.certain }
