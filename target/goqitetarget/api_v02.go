//go:build goqite_v02

package goqitetarget

import (
	"database/sql"
	"time"

	"maragu.dev/goqite"
)

// The goqite release this file builds against: github.com/maragudk/goqite
// v0.2.3, the old module path, as make goqite-compat builds it (the
// module replaced by a copy of v0.2.3 whose go.mod names maragu.dev/goqite,
// with -tags goqite_v02). SQLite only, no priorities.
//
// Noticed, not applied: v0.2.3 writes and compares timeouts as
// time.Now() formatted in the process's local zone (no UTC()), as text,
// so a zone other than UTC or a daylight-saving transition reaches it;
// durasim's bubbles cannot give one process a zone of its own (time.Local
// is the whole program's), so its Policy.Clocks says Process only, as
// v0.4.0's.
const (
	modulePath = "maragu.dev/goqite"
	schemaFile = "schema.sql"
	// schemaFilePostgres: none (v0.2.3 is SQLite only).
	schemaFilePostgres = ""
	// apiRelease is the release this file is, for Version (the replaced
	// module's build information names no version).
	apiRelease = "v0.2.3"
)

func newGoqite(db *sql.DB, _, name string, maxReceive int, timeout time.Duration) *goqite.Queue {
	return goqite.New(goqite.NewOpts{DB: db, Name: name, MaxReceive: maxReceive, Timeout: timeout})
}

// backends are the flavours of this release: SQLite only.
func backends() []string { return []string{SQLite} }

// goqiteSchemaPostgres: none, v0.2.3 has no PostgreSQL flavour.
const goqiteSchemaPostgres = ""

// goqiteSchemaSQLite is v0.2.3's schema.sql, as its users apply it
// (TestSchemaIsGoqites holds the copy to the file).
const goqiteSchemaSQLite = `create table goqite (
  id text primary key default ('m_' || lower(hex(randomblob(16)))),
  created text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  updated text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  queue text not null,
  body blob not null,
  timeout text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  received integer not null default 0
) strict;

create trigger goqite_updated_timestamp after update on goqite begin
  update goqite set updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id;
end;

create index goqite_queue_created_idx on goqite (queue, created);
`
