// Package sqlprep is a database/sql driver wrapper that prepares each SQL
// text once per connection and reuses the statement.
//
// River's SQLite driver (riversqlite) issues a handful of SQL texts again
// and again, each through QueryContext or ExecContext on a *sql.DB or
// *sql.Tx; database/sql hands such a call straight to the driver's
// connection, and modernc.org/sqlite parses and plans the statement anew
// every time (twice, in fact: a freshly prepared statement whose plan may
// depend on a bound value is expired by the bind and prepared again at its
// first step). A seed of a target sweep spent about 70% of its CPU in
// SQLite's parser.
//
// [Open] and [NewConnector] give a *sql.DB whose connections keep a cache
// of prepared statements keyed by the SQL text: a query or exec runs the
// cached statement with the arguments database/sql has already checked.
// What a statement returns is unchanged; only the parsing is saved.
//
// # What it does not cache
//
//   - A statement whose rows are still open when the same text is run again
//     (a query inside the loop over another's rows): that call runs on the
//     connection as it would without the cache.
//   - Beyond the cache's capacity, the least recently used statement not in
//     use is closed to make room.
//   - Statements database/sql prepares itself (DB.Prepare, Tx.Prepare) are
//     the driver's own, owned and closed by database/sql.
//
// PostgreSQL through pgx needs none of this: pgx's default query mode
// already prepares each text once per connection and caches it.
package sqlprep
