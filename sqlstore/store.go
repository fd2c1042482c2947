package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// Store is an open durasim database. Actors each take their own
// connection with Conn; the Store itself reads (State) and resets.
type Store struct {
	db      *sql.DB
	dialect string // SQLite or Postgres
	where   string // where the database is, for error messages (no password)
	// keep pins one connection to a private in-memory SQLite database:
	// memdb frees the database when its last connection closes, and the
	// pool closes idle connections.
	keep *sql.Conn
	mem  bool
}

// SchemaVersion is the version this binary's migrations produce.
var SchemaVersion = mustLatest()

var memSeq atomic.Int64

// Open opens (and if empty, creates) the database. driver is SQLite or
// Postgres ("pgx" is accepted too). For SQLite, url is "file:/path/x.db",
// a plain path, or ":memory:" (a private database shared by every
// connection of this Store). For PostgreSQL it is any pgx connection
// string. Open pings the database and migrates it to SchemaVersion; a
// database at another version is refused with ErrSchemaVersion.
func Open(ctx context.Context, driver, url string) (*Store, error) {
	var s *Store
	var err error
	switch driver {
	case SQLite:
		s, err = openSQLite(url)
	case Postgres, "pgx":
		s, err = openPostgres(url)
	default:
		return nil, fmt.Errorf("sqlstore: unknown driver %q (want %q or %q)", driver, SQLite, Postgres)
	}
	if err != nil {
		return nil, err
	}
	pctx, cancel := withDefaultTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := s.db.PingContext(pctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("sqlstore: cannot connect to %s at %s: %v", s.dialect, s.where, oneLine(err))
	}
	if s.mem {
		if s.keep, err = s.db.Conn(pctx); err != nil {
			s.db.Close()
			return nil, fmt.Errorf("sqlstore: cannot connect to %s at %s: %v", s.dialect, s.where, oneLine(err))
		}
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func openSQLite(u string) (*Store, error) {
	if strings.TrimSpace(u) == "" {
		return nil, errors.New("sqlstore: empty sqlite url (want file:/path/x.db or :memory:)")
	}
	mem := u == ":memory:" || u == "file::memory:"
	var dsn, where string
	q := url.Values{}
	q.Set("_txlock", "immediate") // writers queue on BEGIN, never deadlock upgrading a read lock
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	if mem {
		// The memdb VFS shares a database between the connections of one
		// process by name, with ordinary locking (busy_timeout works),
		// unlike shared-cache mode, whose table locks fail at once.
		name := fmt.Sprintf("/durasim-%d-%d", time.Now().UnixNano(), memSeq.Add(1))
		q.Set("vfs", "memdb")
		dsn, where = "file:"+name+"?"+q.Encode(), ":memory:"
	} else {
		base, query, _ := strings.Cut(u, "?")
		where = strings.TrimPrefix(base, "file:")
		if where == "" {
			return nil, fmt.Errorf("sqlstore: sqlite url %q has no path", u)
		}
		if strings.Contains(query, "mode=memory") {
			return nil, fmt.Errorf("sqlstore: sqlite url %q: use \":memory:\" for an in-memory database", u)
		}
		// WAL lets readers run beside the writer; synchronous=NORMAL is
		// durable across a process crash (the chaos mode's SIGKILL), not
		// across a power cut, which is what the simulator models.
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		if !strings.HasPrefix(base, "file:") {
			base = "file:" + base
		}
		dsn = base + "?" + q.Encode()
		if query != "" {
			dsn += "&" + query
		}
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: cannot open sqlite at %s: %v", where, oneLine(err))
	}
	return &Store{db: db, dialect: SQLite, where: where, mem: mem}, nil
}

func openPostgres(u string) (*Store, error) {
	cfg, err := pgconn.ParseConfig(u)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: bad postgres url: %v", oneLine(err))
	}
	where := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	db, err := sql.Open("pgx", u)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: cannot open postgres at %s: %v", where, oneLine(err))
	}
	return &Store{db: db, dialect: Postgres, where: where}, nil
}

// Dialect is SQLite or Postgres.
func (s *Store) Dialect() string { return s.dialect }

// DB is the underlying pool, for tests and tools that need raw SQL.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes every connection of the store.
func (s *Store) Close() error {
	if s.keep != nil {
		s.keep.Close()
	}
	return s.db.Close()
}

// Conn gives an actor its own connection.
func (s *Store) Conn(ctx context.Context) (*Conn, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: conn: %w", err)
	}
	return &Conn{c: c, s: s}, nil
}

// migrations lists the dialect's migrations in version order.
func migrations(dialect string) ([]migration, error) {
	dir := "migrations/" + dialect
	ents, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("sqlstore: migration %s is not NNNN_name.sql", e.Name())
		}
		b, err := migrationFS.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("sqlstore: migrations of %s skip version %d", dialect, i+1)
		}
	}
	return out, nil
}

type migration struct {
	version int
	name    string
	sql     string
}

func mustLatest() int {
	a, err := migrations(SQLite)
	if err != nil {
		panic(err)
	}
	b, err := migrations(Postgres)
	if err != nil {
		panic(err)
	}
	if len(a) != len(b) {
		panic("sqlstore: the sqlite and postgres migrations differ in number")
	}
	return len(a)
}

// migrate brings the database to SchemaVersion, in one transaction that
// also serialises concurrent Opens (an advisory lock in PostgreSQL, the
// immediate transaction in SQLite): chaos mode starts several processes
// against one empty database.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations(s.dialect)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: migrate: %v", oneLine(err))
	}
	defer tx.Rollback()
	var exists bool
	if s.dialect == Postgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7402160301)"); err != nil {
			return fmt.Errorf("sqlstore: migrate: %v", oneLine(err))
		}
		err = tx.QueryRowContext(ctx, "SELECT to_regclass('durasim_schema') IS NOT NULL").Scan(&exists)
	} else {
		var n int
		err = tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'durasim_schema'").Scan(&n)
		exists = n > 0
	}
	if err != nil {
		return fmt.Errorf("sqlstore: migrate: %v", oneLine(err))
	}
	have := 0
	if exists {
		var v sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT max(version) FROM durasim_schema").Scan(&v); err != nil {
			return fmt.Errorf("sqlstore: migrate: reading the schema version: %v", oneLine(err))
		}
		have = int(v.Int64)
		if !v.Valid || have < 1 || have > len(ms) {
			return fmt.Errorf("%w: the database has version %d, this binary wants %d", ErrSchemaVersion, have, len(ms))
		}
		if have == len(ms) {
			return nil
		}
	}
	for _, m := range ms[have:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("sqlstore: migration %s/%s: %v", s.dialect, m.name, oneLine(err))
		}
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM durasim_schema"); err != nil {
		return fmt.Errorf("sqlstore: migrate: %v", oneLine(err))
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO durasim_schema (version) VALUES ($1)", len(ms)); err != nil {
		return fmt.Errorf("sqlstore: migrate: %v", oneLine(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: migrate: %v", oneLine(err))
	}
	return nil
}

// tables lists every data table, for Reset.
var tables = []string{"jobs", "results", "outbox", "broker", "ledger", "effects", "dlq", "audit"}

// Reset empties every table and sets the fence back to 0, so one
// database can serve many seeds. No actor may be running.
func (s *Store) Reset(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: reset: %v", oneLine(err))
	}
	defer tx.Rollback()
	if s.dialect == Postgres {
		_, err = tx.ExecContext(ctx, "TRUNCATE "+strings.Join(tables, ", ")+" RESTART IDENTITY")
	} else {
		for _, t := range tables {
			if _, err = tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
				break
			}
		}
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, "UPDATE fence_counter SET value = 0")
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("sqlstore: reset: %v", oneLine(err))
	}
	return nil
}

// Version reads the schema version stored in the database.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, "SELECT max(version) FROM durasim_schema").Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlstore: version: %v", oneLine(err))
	}
	return v, nil
}

// State reads every table, each ordered by its id, in one read
// transaction (a consistent snapshot in PostgreSQL).
func (s *Store) State(ctx context.Context) (State, error) {
	var st State
	opts := &sql.TxOptions{ReadOnly: true}
	if s.dialect == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	} else {
		opts = nil // the sqlite driver rejects ReadOnly; its transaction is serialisable anyway
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return st, fmt.Errorf("sqlstore: state: %v", oneLine(err))
	}
	defer tx.Rollback()
	err = each(ctx, tx, `SELECT id, tenant, idem_key, document, version, payload_hash, state, attempt, max_attempts, fence, holder,
		stage, redrive_count, last_code, origin, created_at, visible_at, lease_until, ready_at, deadline_at FROM jobs ORDER BY id`,
		func(r *sql.Rows) error {
			var j JobRow
			var state, code string
			var fence, payload int64
			if err := r.Scan(&j.ID, &j.Tenant, &j.Key, &j.Document, &j.Version, &payload, &state, &j.Attempt, &j.MaxAttempts, &fence, &j.Holder,
				&j.Stage, &j.RedriveCount, &code, &j.Origin, &j.CreatedAt, &j.VisibleAt, &j.LeaseUntil, &j.ReadyAt, &j.DeadlineAt); err != nil {
				return err
			}
			j.Fence, j.PayloadHash = uint64(fence), uint64(payload)
			var err error
			if j.State, err = parseState(state); err != nil {
				return err
			}
			if j.LastCode, err = parseCode(code); err != nil {
				return err
			}
			st.Jobs = append(st.Jobs, j)
			return nil
		})
	if err == nil {
		err = each(ctx, tx, `SELECT event_id, idem_key, stage, tenant, job, committed_at, published, published_at FROM outbox ORDER BY event_id`,
			func(r *sql.Rows) error {
				var row Row
				if err := r.Scan(&row.EventID, &row.Key, &row.Stage, &row.Tenant, &row.Job, &row.CommittedAt, &row.Published, &row.PublishedAt); err != nil {
					return err
				}
				st.Rows = append(st.Rows, row)
				return nil
			})
	}
	if err == nil {
		err = each(ctx, tx, `SELECT idem_key, stage, tenant, job, payload_hash, value, event_id FROM results ORDER BY event_id`,
			func(r *sql.Rows) error {
				var res ResultRow
				var payload, value int64
				if err := r.Scan(&res.Key, &res.Stage, &res.Tenant, &res.Job, &payload, &value, &res.EventID); err != nil {
					return err
				}
				res.PayloadHash, res.Value = uint64(payload), uint64(value)
				st.Results = append(st.Results, res)
				return nil
			})
	}
	if err == nil {
		err = each(ctx, tx, `SELECT msg_id, event_id, published_at, deliveries, acked FROM broker ORDER BY msg_id`,
			func(r *sql.Rows) error {
				var m BrokerRow
				if err := r.Scan(&m.ID, &m.Event, &m.PublishedAt, &m.Deliveries, &m.Acked); err != nil {
					return err
				}
				st.Broker = append(st.Broker, m)
				return nil
			})
	}
	if err == nil {
		err = each(ctx, tx, `SELECT event_id, idem_key, stage, tenant, job, at FROM effects ORDER BY id`,
			func(r *sql.Rows) error {
				var e EffectRow
				if err := r.Scan(&e.EventID, &e.Key, &e.Stage, &e.Tenant, &e.Job, &e.At); err != nil {
					return err
				}
				st.Effects = append(st.Effects, e)
				return nil
			})
	}
	if err == nil {
		err = each(ctx, tx, `SELECT job, tenant, reason, attempts, redrive_count, at FROM dlq ORDER BY job`,
			func(r *sql.Rows) error {
				var d DLQRow
				var code string
				if err := r.Scan(&d.Job, &d.Tenant, &code, &d.Attempts, &d.RedriveCount, &d.At); err != nil {
					return err
				}
				var err error
				d.Reason, err = parseCode(code)
				st.DLQ = append(st.DLQ, d)
				return err
			})
	}
	if err == nil {
		err = each(ctx, tx, `SELECT operator, action, job, new_job, at FROM audit ORDER BY id`,
			func(r *sql.Rows) error {
				var a AuditRow
				if err := r.Scan(&a.Operator, &a.Action, &a.Job, &a.NewJob, &a.At); err != nil {
					return err
				}
				st.Audit = append(st.Audit, a)
				return nil
			})
	}
	if err == nil {
		err = each(ctx, tx, `SELECT event_id, at FROM ledger ORDER BY event_id`,
			func(r *sql.Rows) error {
				var l LedgerRow
				if err := r.Scan(&l.Event, &l.At); err != nil {
					return err
				}
				st.Ledger = append(st.Ledger, l)
				return nil
			})
	}
	if err == nil {
		var fence int64
		err = tx.QueryRowContext(ctx, "SELECT value FROM fence_counter WHERE id = 1").Scan(&fence)
		st.Fence = uint64(fence)
	}
	if err != nil {
		return State{}, fmt.Errorf("sqlstore: state: %v", oneLine(err))
	}
	return st, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func each(ctx context.Context, q querier, query string, f func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// oneLine flattens a driver error so every error we return is one line.
func oneLine(err error) string {
	// pgx reports each attempt of one connection (sslmode=prefer tries
	// TLS, then plain text) on its own line: attempts that failed alike
	// are said once.
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ")
}
