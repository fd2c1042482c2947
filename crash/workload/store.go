package workload

import (
	"context"
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/durasim/durasim/target"
)

// The handlers' tables, the shape of target/rivertarget's and
// target/goqitetarget's: the effects (no unique key, so that a duplicate
// shows) and the ledger of keys the keyed designs write in the effect's
// transaction. The statements use $n placeholders, which PostgreSQL and
// SQLite both read.
const (
	insertEffect = `INSERT INTO durasim_effect (job, attempt, worker, idem_key, tenant, doc, at) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	insertLedger = `INSERT INTO durasim_ledger (idem_key) VALUES ($1) ON CONFLICT (idem_key) DO NOTHING`
	selectEffect = `SELECT id, job, attempt, worker, idem_key, tenant, doc, at FROM durasim_effect ORDER BY id`
)

// PGSchema makes the handlers' tables on PostgreSQL; PGReset empties
// them.
var (
	PGSchema = []string{
		`CREATE TABLE IF NOT EXISTS durasim_effect (id BIGSERIAL PRIMARY KEY, job BIGINT NOT NULL, attempt INTEGER NOT NULL,
		worker TEXT NOT NULL, idem_key TEXT NOT NULL, tenant TEXT NOT NULL, doc TEXT NOT NULL, at BIGINT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS durasim_ledger (idem_key TEXT PRIMARY KEY)`,
	}
	PGReset = `TRUNCATE durasim_effect, durasim_ledger RESTART IDENTITY`
)

// Effect is one effect row a handler writes.
type Effect struct {
	Job         int64
	Attempt     int
	Worker, Key string
	Tenant, Doc string
	At          int64
}

func (e Effect) args() []any { return []any{e.Job, e.Attempt, e.Worker, e.Key, e.Tenant, e.Doc, e.At} }

// Store is the handlers' database: an effect written on its own
// (autocommit), or a transaction.
type Store interface {
	Effect(ctx context.Context, e Effect) error
	Begin(ctx context.Context) (Tx, error)
}

// Tx is a handler's transaction: the ledger's row of a key (false: it
// was there), the effect, and its end. Raw is the library's own
// transaction value (a pgx.Tx, an *sql.Tx), for its transactional
// completion.
type Tx interface {
	Ledger(ctx context.Context, key string) (bool, error)
	Effect(ctx context.Context, e Effect) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	Raw() any
}

// PG is a Store on a pgx pool (River's and asynq's handlers' database).
type PG struct{ Pool *pgxpool.Pool }

func (s PG) Effect(ctx context.Context, e Effect) error {
	_, err := s.Pool.Exec(ctx, insertEffect, e.args()...)
	return err
}

func (s PG) Begin(ctx context.Context) (Tx, error) {
	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return pgTx{tx}, nil
}

type pgTx struct{ tx pgx.Tx }

func (t pgTx) Ledger(ctx context.Context, key string) (bool, error) {
	tag, err := t.tx.Exec(ctx, insertLedger, key)
	return err == nil && tag.RowsAffected() == 1, err
}

func (t pgTx) Effect(ctx context.Context, e Effect) error {
	_, err := t.tx.Exec(ctx, insertEffect, e.args()...)
	return err
}

func (t pgTx) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t pgTx) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }
func (t pgTx) Raw() any                           { return t.tx }

// SQL is a Store on a database/sql database (goqite's).
type SQL struct{ DB *sql.DB }

func (s SQL) Effect(ctx context.Context, e Effect) error {
	_, err := s.DB.ExecContext(ctx, insertEffect, e.args()...)
	return err
}

func (s SQL) Begin(ctx context.Context) (Tx, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return sqlTx{tx}, nil
}

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Ledger(ctx context.Context, key string) (bool, error) {
	res, err := t.tx.ExecContext(ctx, insertLedger, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t sqlTx) Effect(ctx context.Context, e Effect) error {
	_, err := t.tx.ExecContext(ctx, insertEffect, e.args()...)
	return err
}

func (t sqlTx) Commit(context.Context) error   { return t.tx.Commit() }
func (t sqlTx) Rollback(context.Context) error { return t.tx.Rollback() }
func (t sqlTx) Raw() any                       { return t.tx }

// PGPrepare makes the handlers' tables on PostgreSQL and empties them.
func PGPrepare(ctx context.Context, pool *pgxpool.Pool) error {
	for _, q := range append(PGSchema, PGReset) {
		if _, err := pool.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// OpenPool connects to url with at most conns connections, each named
// app in pg_stat_activity (River's orchestrator finds a frozen child's
// sessions by it).
func OpenPool(ctx context.Context, url, app string, conns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = conns
	cfg.ConnConfig.RuntimeParams["application_name"] = app
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// rows is what both databases' query results give.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanEffects reads the effect rows, with times relative to base.
func scanEffects(r rows, base time.Time) ([]target.Effect, error) {
	var out []target.Effect
	for r.Next() {
		var e target.Effect
		var job, at int64
		if err := r.Scan(&e.Seq, &job, &e.Attempt, &e.Worker, &e.Key, &e.Tenant, &e.Doc, &at); err != nil {
			return nil, err
		}
		e.Job, e.At = target.JobID(job), at-base.UnixNano()
		out = append(out, e)
	}
	return out, r.Err()
}

// PGEffects reads every effect back, in id order.
func PGEffects(ctx context.Context, pool *pgxpool.Pool, base time.Time) ([]target.Effect, error) {
	r, err := pool.Query(ctx, selectEffect)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return scanEffects(r, base)
}

// SQLEffects reads every effect back, in id order.
func SQLEffects(ctx context.Context, db *sql.DB, base time.Time) ([]target.Effect, error) {
	r, err := db.QueryContext(ctx, selectEffect)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return scanEffects(r, base)
}
