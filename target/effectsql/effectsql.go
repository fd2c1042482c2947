package effectsql

import (
	"context"

	"github.com/durasim/durasim/target"
)

// Schema is the two tables' DDL; serial is the effect id column's type
// ("INTEGER PRIMARY KEY AUTOINCREMENT" on SQLite, "BIGSERIAL PRIMARY
// KEY" on PostgreSQL): the ids are the effects' commit order.
func Schema(serial string) []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS durasim_effect (id ` + serial + `, job BIGINT NOT NULL, attempt INTEGER NOT NULL,
			worker TEXT NOT NULL, idem_key TEXT NOT NULL, tenant TEXT NOT NULL, doc TEXT NOT NULL, at BIGINT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS durasim_ledger (idem_key TEXT PRIMARY KEY)`,
	}
}

// Exec runs one statement in the handler's transaction and reports the
// rows it affected.
type Exec func(ctx context.Context, query string, args ...any) (int64, error)

// Write writes e with exec; with e.Dedupe, the ledger's row for its key
// first, and nothing if the key was there. It reports whether the effect
// was written.
func Write(ctx context.Context, exec Exec, e target.Effect) (bool, error) {
	if e.Dedupe {
		n, err := exec(ctx, "INSERT INTO durasim_ledger (idem_key) VALUES ($1) ON CONFLICT (idem_key) DO NOTHING", e.Key)
		if err != nil || n == 0 {
			return false, err
		}
	}
	_, err := exec(ctx, "INSERT INTO durasim_effect (job, attempt, worker, idem_key, tenant, doc, at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
		int64(e.Job), e.Attempt, e.Worker, e.Key, e.Tenant, e.Doc, e.At)
	return err == nil, err
}

// Query reads every effect, in commit order, for [Scan].
const Query = "SELECT id, job, attempt, worker, idem_key, tenant, doc, at FROM durasim_effect ORDER BY id"

// Rows is a result of [Query] (database/sql's *sql.Rows, pgx's Rows).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Scan reads the effects of [Query]'s rows (the caller closes them).
func Scan(r Rows) ([]target.Effect, error) {
	var out []target.Effect
	for r.Next() {
		var e target.Effect
		var job int64
		if err := r.Scan(&e.Seq, &job, &e.Attempt, &e.Worker, &e.Key, &e.Tenant, &e.Doc, &e.At); err != nil {
			return nil, err
		}
		e.Job = target.JobID(job)
		out = append(out, e)
	}
	return out, r.Err()
}
