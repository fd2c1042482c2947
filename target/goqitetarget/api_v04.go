//go:build !goqite_v02

package goqitetarget

import (
	"database/sql"
	"time"

	"maragu.dev/goqite"
)

// The goqite release this file builds against: maragu.dev/goqite v0.4.0
// (SQLite and PostgreSQL flavours, message priorities). api_v02.go is
// the old module path's v0.2.3 (make goqite-compat).
const (
	modulePath = "maragu.dev/goqite"
	schemaFile = "schema_sqlite.sql"
	// apiRelease: "" (Version reads the module's build information).
	apiRelease = ""
)

// newGoqite is goqite.New for one queue name on db.
func newGoqite(db *sql.DB, _, name string, maxReceive int, timeout time.Duration) *goqite.Queue {
	return goqite.New(goqite.NewOpts{DB: db, Name: name, MaxReceive: maxReceive, Timeout: timeout, SQLFlavor: goqite.SQLFlavorSQLite})
}

// goqiteSchemaSQLite is goqite's schema_sqlite.sql (v0.4.0) as a user
// of goqite applies it: goqite ships the file and does not migrate, so
// its users copy it into their migrations. TestSchemaIsGoqites holds
// this copy to the file of the module go.mod pins.
const goqiteSchemaSQLite = `create table goqite (
  id text primary key default ('m_' || lower(hex(randomblob(16)))),
  created text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  updated text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  queue text not null,
  body blob not null,
  timeout text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  received integer not null default 0,
  priority integer not null default 0
) strict;

create trigger goqite_updated_timestamp after update on goqite begin
  update goqite set updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id;
end;

create index goqite_queue_priority_created_idx on goqite (queue, priority desc, created);
`
