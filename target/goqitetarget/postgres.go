package goqitetarget

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/durasim/durasim/target"
)

// pgSchemas numbers the scratch schemas this process makes.
var pgSchemas atomic.Int64

// pgDB is goqite's PostgreSQL flavour in a scratch schema of durasim's
// (durasim_goqite_<pid>_<n>), made by Open and dropped by Close, so runs
// share a database without sharing tables. Its connections' search_path
// is that schema and then pg_catalog, named: PostgreSQL searches
// pg_catalog first unless the path names it, and the schema holds two
// functions of durasim's that goqite's schema file then calls in place
// of PostgreSQL's (its defaults and trigger resolve them by the path):
//   - now(), goqite's created, updated and default timeout: the run's
//     database clock, as set in the transaction;
//   - gen_random_bytes(n), pgcrypto's, goqite's message ids: bytes drawn
//     from the seed, as set for a send.
//
// pgcrypto itself (goqite's file creates it if it is missing) goes to a
// second scratch schema, off the path, so that its gen_random_bytes does
// not meet durasim's.
type pgDB struct {
	schema string
	// tx is the transaction whose clock is set (kept, so no later
	// transaction can be taken for it), last the clock's last reading.
	tx   *sql.Tx
	last time.Time
}

// pgFunctions are durasim's now() and gen_random_bytes(n), made in the
// scratch schema before goqite's schema file runs.
const pgFunctions = `CREATE FUNCTION now() RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE t text := current_setting('durasim.now', true);
BEGIN
  IF t IS NULL OR t = '' THEN
    RAISE EXCEPTION 'durasim''s now() stands in for PostgreSQL''s in goqite''s schema: no database clock set in this transaction';
  END IF;
  RETURN t::timestamptz;
END $$;
CREATE FUNCTION gen_random_bytes(n integer) RETURNS bytea LANGUAGE plpgsql VOLATILE AS $$
DECLARE b bytea := decode(coalesce(current_setting('durasim.id', true), ''), 'hex');
BEGIN
  IF length(b) <> n THEN
    RAISE EXCEPTION 'durasim''s gen_random_bytes(%) stands in for pgcrypto''s in goqite''s message ids: no id set for this send', n;
  END IF;
  PERFORM set_config('durasim.id', '', true);
  RETURN b;
END $$;`

// openPostgres makes the scratch schemas on the database at url, and
// goqite's table in the first.
//
// The driver is lib/pq, not pgx (River's): goqite's calls run in
// synctest bubbles, and pgx's connection starts a background reader
// from a real-time timer when a write takes over 15ms, which a later
// read inside a bubble then waits for on a sync.Cond, a wait synctest
// counts as a deadlock (seen under load: "all goroutines in bubble are
// blocked"). lib/pq reads and writes on the calling goroutine only.
func openPostgres(ctx context.Context, url string) (*sql.DB, *pgDB, error) {
	dsn := url
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		var err error
		if dsn, err = pq.ParseURL(url); err != nil {
			return nil, nil, fmt.Errorf("postgres: %w", err)
		}
	}
	p := &pgDB{schema: fmt.Sprintf("durasim_goqite_%d_%d", os.Getpid(), pgSchemas.Add(1))}
	conn, err := pq.NewConnector(dsn + " search_path='" + p.schema + ", pg_catalog'")
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := p.init(ctx, db); err != nil {
		_ = p.drop(db)
		_ = db.Close()
		return nil, nil, fmt.Errorf("postgres: %w", err)
	}
	return db, p, nil
}

func (p *pgDB) init(ctx context.Context, db *sql.DB) error {
	for _, s := range []string{
		"CREATE SCHEMA " + p.schema,
		"CREATE SCHEMA " + p.schema + "_ext",
		"CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA " + p.schema + "_ext",
		pgFunctions,
		goqiteSchemaPostgres,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	for _, s := range durasimSchema("BIGSERIAL PRIMARY KEY") {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// drop removes the scratch schemas (pgcrypto with the second, if it
// was made there).
func (p *pgDB) drop(db *sql.DB) error {
	_, err := db.Exec("DROP SCHEMA IF EXISTS " + p.schema + ", " + p.schema + "_ext CASCADE")
	return err
}

func (p *pgDB) reset(ctx context.Context, db *sql.DB) error {
	p.tx, p.last = nil, time.Time{}
	_, err := db.ExecContext(ctx, "TRUNCATE goqite, durasim_job, durasim_effect, durasim_ledger RESTART IDENTITY")
	return err
}

// stamp sets what durasim's functions return in tx: now(), the database
// clock at virtual time now, once per transaction (PostgreSQL's now() is
// its transaction's start); gen_random_bytes, id, when given (a send).
// Two transactions in one instant of virtual time start a microsecond
// apart, as two of PostgreSQL's never start in one microsecond: goqite
// receives in order of created, and this keeps that the order of sends,
// as SQLite's rowid does where two messages share a millisecond.
func (p *pgDB) stamp(ctx context.Context, tx *sql.Tx, now target.Time, id []byte) error {
	q, args := "SELECT ", []any{}
	if tx != p.tx {
		t := wall(now).UTC().Truncate(time.Microsecond)
		if !t.After(p.last) {
			t = p.last.Add(time.Microsecond)
		}
		p.tx, p.last = tx, t
		q, args = q+"set_config('durasim.now', $1, true)", append(args, t.Format(pgStampLayout))
	}
	if id != nil {
		if len(args) > 0 {
			q += ", "
		}
		q, args = q+fmt.Sprintf("set_config('durasim.id', $%d, true)", len(args)+1), append(args, hex.EncodeToString(id))
	}
	if len(args) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, q, args...)
	return err
}

// pgStampLayout is a timestamptz as durasim hands it to now().
const pgStampLayout = "2006-01-02T15:04:05.000000Z07:00"
