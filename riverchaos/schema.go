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

	"github.com/durasim/durasim/crash/workload"
)

// River's tables a run empties (river_migration and the clients'
// tables stay), with the handlers' (package crash/workload's).
const resetTables = `TRUNCATE river_job, river_leader, river_queue, durasim_effect, durasim_ledger RESTART IDENTITY`

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
	for _, q := range workload.PGSchema {
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
