package sqlstore

import (
	"context"
	"fmt"

	"github.com/durasim/durasim/model"
)

// Read-only views beside State, for a consumer that reads the broker and
// for checks run over a real-crash run: the schema stays this package's.

// Message is a broker message.
type Message struct {
	ID    int64
	Event model.EventID
}

// Messages returns, in id order, up to limit broker messages past the
// cursor after, and those behind it whose event was never applied:
// concurrent relays commit their messages out of id order, so a message
// with a lower id can become visible after a consumer read higher ones, and
// a cursor alone would skip it for good (a lost event a 500-kill chaos run
// found).
func (s *Store) Messages(ctx context.Context, after int64, limit int) ([]Message, error) {
	return messages(ctx, s.db, messagesQuery, after, limit)
}

// Messages is Store.Messages read on the connection, as a consumer that
// holds one reads the broker.
func (c *Conn) Messages(ctx context.Context, after int64, limit int) ([]Message, error) {
	return messages(ctx, c.c, messagesQuery, after, limit)
}

const messagesQuery = `SELECT msg_id, event_id FROM broker b
		WHERE b.msg_id > $1 OR NOT EXISTS (SELECT 1 FROM ledger l WHERE l.event_id = b.event_id)
		ORDER BY msg_id LIMIT $2`

// Broker returns every broker message, in id order.
func (s *Store) Broker(ctx context.Context) ([]Message, error) {
	return messages(ctx, s.db, `SELECT msg_id, event_id FROM broker ORDER BY msg_id`)
}

func messages(ctx context.Context, q querier, query string, args ...any) ([]Message, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: reading the broker: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		if err := rows.Scan(&m.ID, &m.Event); err != nil {
			return nil, fmt.Errorf("sqlstore: reading the broker: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Results maps each committed (key, stage), as model.StageKey, to its
// event.
func (s *Store) Results(ctx context.Context) (map[string]model.EventID, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT idem_key, stage, event_id FROM results`)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: reading the results: %w", err)
	}
	defer rows.Close()
	out := map[string]model.EventID{}
	for rows.Next() {
		var key string
		var st model.Stage
		var ev model.EventID
		if err := rows.Scan(&key, &st, &ev); err != nil {
			return nil, fmt.Errorf("sqlstore: reading the results: %w", err)
		}
		out[model.StageKey(key, st)] = ev
	}
	return out, rows.Err()
}

// Backlog is what is left to do: jobs not terminal, outbox rows not
// published, committed events the consumer has not applied.
type Backlog struct {
	Live, Unpublished, Unapplied int
}

// Drained reports that nothing is left to do.
func (b Backlog) Drained() bool { return b.Live == 0 && b.Unpublished == 0 && b.Unapplied == 0 }

// Backlog counts what is left to do.
func (s *Store) Backlog(ctx context.Context) (Backlog, error) {
	var b Backlog
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM jobs WHERE state IN ('`+sPending+`', '`+sLeased+`', '`+sRetryWait+`')),
		(SELECT count(*) FROM outbox WHERE NOT published),
		(SELECT count(*) FROM outbox o WHERE NOT EXISTS (SELECT 1 FROM ledger l WHERE l.event_id = o.event_id))`).
		Scan(&b.Live, &b.Unpublished, &b.Unapplied)
	if err != nil {
		return b, fmt.Errorf("sqlstore: reading the backlog: %w", err)
	}
	return b, nil
}
