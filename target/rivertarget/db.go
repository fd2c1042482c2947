package rivertarget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/target/effectsql"
)

// Backends.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// db is one database River runs on, with what the adapter needs of it
// beyond River's executor: its own transactions and durasim's tables.
type db interface {
	exec() riverdriver.Executor
	// river is River's own Go code on the database, its clock clk.
	river(clk *clock, policy river.ClientRetryPolicy) (code, error)
	begin(ctx context.Context) (dbTx, error)
	// run executes durasim's own SQL outside any transaction.
	run(ctx context.Context, q string, args ...any) error
	// ints runs a query of one integer column.
	ints(ctx context.Context, q string) ([]int64, error)
	effects(ctx context.Context) (rows, error)
	reset(ctx context.Context) error
	close() error
}

// dbTx is a transaction River's executor runs in, and durasim's SQL too.
type dbTx interface {
	exec() riverdriver.ExecutorTx
	// run executes SQL in the transaction and returns the rows affected.
	run(ctx context.Context, q string, args ...any) (int64, error)
	// state reads the job's state, durasim's own read (not River's):
	// rivertype.ErrNotFound when there is no such row.
	state(ctx context.Context, id int64) (rivertype.JobState, error)
	commit(ctx context.Context) error
	rollback(ctx context.Context) error
}

// stateQuery is durasim's read of a job's state, on either database.
const stateQuery = "SELECT CAST(state AS text) FROM river_job WHERE id = $1"

// rows is the effects table as read back.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

func migrate[TTx any](ctx context.Context, d riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(d, &rivermigrate.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// pgDB is River on PostgreSQL through pgx, one connection for the same
// reason as SQLite's.
type pgDB struct {
	pool   *pgxpool.Pool
	driver *riverpgxv5.Driver
}

func openPostgres(ctx context.Context, url string) (*pgDB, error) {
	p, err := connectPostgres(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	if err := p.init(ctx); err != nil {
		p.pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return p, nil
}

// connectPostgres opens a pool of one connection to url (session: run on
// it at connect), River's schema already there.
func connectPostgres(ctx context.Context, url string, session []string) (*pgDB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.MaxConns, cfg.MinConns = 1, 0
	if session != nil {
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			for _, q := range session {
				if _, err := c.Exec(ctx, q); err != nil {
					return err
				}
			}
			return nil
		}
	}
	// pgx's default, stated: each SQL text prepared once per connection
	// and reused, as package sqlprep does for SQLite.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return &pgDB{pool: pool, driver: riverpgxv5.New(pool)}, nil
}

func (p *pgDB) init(ctx context.Context) error {
	if err := migrate(ctx, p.driver); err != nil {
		return err
	}
	for _, q := range effectsql.Schema("BIGSERIAL PRIMARY KEY") {
		if _, err := p.pool.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (p *pgDB) exec() riverdriver.Executor { return p.driver.GetExecutor() }

func (p *pgDB) river(clk *clock, policy river.ClientRetryPolicy) (code, error) {
	return newRiverCode[pgx.Tx](p.driver, clk, policy, func(t dbTx) pgx.Tx { return t.(*pgTx).tx })
}

func (p *pgDB) begin(ctx context.Context) (dbTx, error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &pgTx{tx: tx, ex: p.driver.UnwrapExecutor(tx)}, nil
}

func (p *pgDB) run(ctx context.Context, q string, args ...any) error {
	_, err := p.pool.Exec(ctx, q, args...)
	return err
}

func (p *pgDB) ints(ctx context.Context, q string) ([]int64, error) {
	r, err := p.pool.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	return scanInts(pgRows{r})
}

func (p *pgDB) effects(ctx context.Context) (rows, error) {
	r, err := p.pool.Query(ctx, effectsql.Query)
	if err != nil {
		return nil, err
	}
	return pgRows{r}, nil
}

func (p *pgDB) reset(ctx context.Context) error {
	_, err := p.pool.Exec(ctx, "TRUNCATE river_job, durasim_effect, durasim_ledger RESTART IDENTITY")
	return err
}

func (p *pgDB) close() error {
	p.pool.Close()
	return nil
}

type pgTx struct {
	tx pgx.Tx
	ex riverdriver.ExecutorTx
}

func (t *pgTx) exec() riverdriver.ExecutorTx { return t.ex }
func (t *pgTx) run(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}
func (t *pgTx) state(ctx context.Context, id int64) (rivertype.JobState, error) {
	var st string
	err := t.tx.QueryRow(ctx, stateQuery, id).Scan(&st)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", rivertype.ErrNotFound
	}
	return rivertype.JobState(st), err
}
func (t *pgTx) commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t *pgTx) rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }

// pgRows adapts pgx.Rows to rows.
type pgRows struct{ pgx.Rows }

func (r pgRows) Close() error {
	r.Rows.Close()
	return nil
}

func scanInts(r rows) ([]int64, error) {
	defer r.Close()
	var out []int64
	for r.Next() {
		var v int64
		if err := r.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}

// sqlRows is *sql.Rows as rows (it already is; named for the compiler).
var _ rows = (*sql.Rows)(nil)

var errClosed = errors.New("rivertarget: queue closed")
