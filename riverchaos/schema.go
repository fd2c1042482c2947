package riverchaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// durasim's tables beside River's, the shape of target/rivertarget's: the
// handlers' effects (no unique key, so that a duplicate shows) and the
// ledger the deduplicating handler writes first.
var durasimSchema = []string{
	`CREATE TABLE IF NOT EXISTS durasim_effect (id BIGSERIAL PRIMARY KEY, job BIGINT NOT NULL, attempt INTEGER NOT NULL,
		worker TEXT NOT NULL, idem_key TEXT NOT NULL, tenant TEXT NOT NULL, doc TEXT NOT NULL, at BIGINT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS durasim_ledger (idem_key TEXT PRIMARY KEY)`,
}

const (
	insertEffect = `INSERT INTO durasim_effect (job, attempt, worker, idem_key, tenant, doc, at) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	insertLedger = `INSERT INTO durasim_ledger (idem_key) VALUES ($1) ON CONFLICT (idem_key) DO NOTHING`
	// River's tables a run empties (river_migration and the clients'
	// tables stay).
	resetTables = `TRUNCATE river_job, river_leader, river_queue, durasim_effect, durasim_ledger RESTART IDENTITY`
)

// prepare migrates River's schema (rivermigrate, up) and durasim's tables
// into the database and empties them. A database where another River
// client leads right now is refused: emptying it would pull its jobs away.
func prepare(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("rivermigrate: %w", err)
	}
	for _, q := range durasimSchema {
		if _, err := pool.Exec(ctx, q); err != nil {
			return err
		}
	}
	var leader string
	var until time.Time
	err = pool.QueryRow(ctx, "SELECT leader_id, expires_at FROM river_leader WHERE expires_at > now()").Scan(&leader, &until)
	switch {
	case err == nil:
		return usage("the database has a live River leader (%s, until %s): another River client runs on it; give another -db or -scratch-db",
			leader, until.Format(time.RFC3339))
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	_, err = pool.Exec(ctx, resetTables)
	return err
}

// openPool connects to url with at most conns connections, each named
// app in pg_stat_activity (the orchestrator finds a frozen child's
// sessions by it).
func openPool(ctx context.Context, url, app string, conns int32) (*pgxpool.Pool, error) {
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
