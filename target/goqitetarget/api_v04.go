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
	// schemaFilePostgres is the PostgreSQL flavour's.
	schemaFilePostgres = "schema_postgres.sql"
	// apiRelease: "" (Version reads the module's build information).
	apiRelease = ""
)

// newGoqite is goqite.New for one queue name on db, in backend's flavour.
func newGoqite(db *sql.DB, backend, name string, maxReceive int, timeout time.Duration) *goqite.Queue {
	flavor := goqite.SQLFlavorSQLite
	if backend == Postgres {
		flavor = goqite.SQLFlavorPostgreSQL
	}
	return goqite.New(goqite.NewOpts{DB: db, Name: name, MaxReceive: maxReceive, Timeout: timeout, SQLFlavor: flavor})
}

// backends are the flavours of this release, the CLI's default first.
func backends() []string { return []string{SQLite, Postgres} }

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

// goqiteSchemaPostgres is goqite's schema_postgres.sql (v0.4.0), as its
// users apply it (TestSchemaIsGoqites holds the copy to the file). Its
// now() and gen_random_bytes are durasim's on the path it runs with
// (pgDB).
const goqiteSchemaPostgres = `create extension if not exists pgcrypto;

create function update_timestamp()
returns trigger as $$
begin
   new.updated = now();
   return new;
end;
$$ language plpgsql;

create table goqite (
  id text primary key default ('m_' || encode(gen_random_bytes(16), 'hex')),
  created timestamptz not null default now(),
  updated timestamptz not null default now(),
  queue text not null,
  body bytea not null,
  timeout timestamptz not null default now(),
  received integer not null default 0,
  priority integer not null default 0
);

create trigger goqite_updated_timestamp
before update on goqite
for each row execute procedure update_timestamp();

create index goqite_queue_priority_created_idx on goqite (queue, priority desc, created);
`
