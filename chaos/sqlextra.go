package chaos

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// The store's contract (sqlstore.Ops, State) has no way to read the broker
// or to count what is left to do, which the consumer and the orchestrator
// need: these few read-only queries go straight to the store's tables
// (the same SQL in PostgreSQL and SQLite).

// dbBroker reads the broker table.
type dbBroker struct{ db *sql.DB }

// StoreBroker is the broker of a store.
func StoreBroker(s *sqlstore.Store) Broker { return dbBroker{s.DB()} }

func (b dbBroker) Messages(ctx context.Context, after int64, limit int) ([]Message, error) {
	// Past the cursor, or behind it and never applied: concurrent relays
	// commit their messages out of id order, so a message with a lower id
	// can become visible after the consumer read higher ones. A cursor
	// alone skipped it for good — a lost event the chaos run found.
	rows, err := b.db.QueryContext(ctx, `SELECT msg_id, event_id FROM broker b
		WHERE b.msg_id > $1 OR NOT EXISTS (SELECT 1 FROM ledger l WHERE l.event_id = b.event_id)
		ORDER BY msg_id LIMIT $2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		if err := rows.Scan(&m.ID, &m.Event); err != nil {
			return nil, fmt.Errorf("broker: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// backlog is what is left to do: jobs not terminal, outbox rows not
// published, committed events not applied by the consumer.
type backlog struct {
	Live, Unpublished, Unapplied int
}

func (b backlog) drained() bool { return b.Live == 0 && b.Unpublished == 0 && b.Unapplied == 0 }

func readBacklog(ctx context.Context, db *sql.DB) (backlog, error) {
	var b backlog
	err := db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM jobs WHERE state IN ('pending', 'leased', 'retry_wait')),
		(SELECT count(*) FROM outbox WHERE NOT published),
		(SELECT count(*) FROM outbox o WHERE NOT EXISTS (SELECT 1 FROM ledger l WHERE l.event_id = o.event_id))`).
		Scan(&b.Live, &b.Unpublished, &b.Unapplied)
	if err != nil {
		return b, fmt.Errorf("reading the backlog: %w", err)
	}
	return b, nil
}

// extra is what the final checks read beside sqlstore.State.
type extra struct {
	Broker  []Message
	Results map[string]model.EventID // StageKey(key, stage) → event
}

func readExtra(ctx context.Context, db *sql.DB) (extra, error) {
	x := extra{Results: map[string]model.EventID{}}
	rows, err := db.QueryContext(ctx, `SELECT msg_id, event_id FROM broker ORDER BY msg_id`)
	if err != nil {
		return x, fmt.Errorf("reading the broker: %w", err)
	}
	for rows.Next() {
		var m Message
		if err := rows.Scan(&m.ID, &m.Event); err != nil {
			rows.Close()
			return x, fmt.Errorf("reading the broker: %w", err)
		}
		x.Broker = append(x.Broker, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return x, fmt.Errorf("reading the broker: %w", err)
	}
	rows, err = db.QueryContext(ctx, `SELECT idem_key, stage, event_id FROM results`)
	if err != nil {
		return x, fmt.Errorf("reading the results: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var st model.Stage
		var ev model.EventID
		if err := rows.Scan(&key, &st, &ev); err != nil {
			return x, fmt.Errorf("reading the results: %w", err)
		}
		x.Results[model.StageKey(key, st)] = ev
	}
	return x, rows.Err()
}
