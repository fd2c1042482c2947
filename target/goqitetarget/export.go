package goqitetarget

import (
	"database/sql"
	"time"

	"github.com/durasim/durasim/target"
	"maragu.dev/goqite"
)

// SQLiteSchema is goqite's schema_sqlite.sql and durasim's tables beside
// it (durasim_job, durasim_effect, durasim_ledger), as Open applies them
// to an SQLite database: `chaos -target goqite`'s processes share one
// SQLite file made with it, goqite's own strftime and randomblob in
// place (real time: no run owns their clock there).
func SQLiteSchema() []string {
	return append([]string{goqiteSchemaSQLite}, durasimSchema("INTEGER PRIMARY KEY AUTOINCREMENT")...)
}

// Rules is goqite's Policy (Queue.Policy) for the settings cfg, with no
// queue open: the rules of goqite's queue API and of the user's client
// logic around it that both modes re-enact.
func Rules(cfg Config) target.Policy { return (&Queue{cfg: cfg}).Policy() }

// NewSQLiteQueue is goqite's queue named name on the SQLite database db,
// built as the release durasim is built against takes its options (a
// release before v0.4.0 has no SQLFlavor): `chaos -target goqite`'s
// processes open theirs with it, so make goqite-compat builds them too.
func NewSQLiteQueue(db *sql.DB, name string, maxReceive int, timeout time.Duration) *goqite.Queue {
	return newGoqite(db, SQLite, name, maxReceive, timeout)
}
