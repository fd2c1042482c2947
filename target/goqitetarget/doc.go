// Package goqitetarget is goqite (maragu.dev/goqite) as a
// [target.Queue]: durasim's actors drive goqite's own queue API on
// SQLite (modernc.org/sqlite, in memory) or PostgreSQL (lib/pq,
// goqite's SQLFlavorPostgreSQL), with durasim
// owning every clock goqite reads.
//
// # What is goqite's code and what is durasim's
//
// goqite's code: SendAndGetIDTx (an insert, and an outbox message in a
// handler's transaction), ReceiveTx (a fetch), ExtendTx (the user's
// retry delay and snooze), DeleteTx (a completion or a cancel), and
// goqite's schema_sqlite.sql or schema_postgres.sql (its table, trigger
// and index), applied as its users apply it.
//
// durasim's: the transactions those calls run in (serializable, as
// goqite's own), a table durasim_job beside goqite's that keeps what
// goqite does not (each job's number, kind, args, receivers, errors and
// the adapter's last word on it; a deleted message's last receive
// count), the effects and ledger tables, the user's client logic around
// goqite (an error extends the timeout by 1s·n², a snooze by its span, a
// cancel deletes, the last receive's error leaves a dead letter), the
// scheduler's pass (a read of goqite's timeouts: goqite has none), and an
// operator's redrive (goqite has none: SQL on goqite's schema, or a send).
//
// # Time
//
// goqite reads time.Now().UTC() in Go for every timeout: each such call
// runs in a testing/synctest bubble of its own whose clock reads the
// calling worker's process time (package internal/bubble), and the
// run's clock faults skew it ([Queue.SetClocks]). goqite's schema
// stamps created and updated with SQLite's strftime: durasim's driver
// replaces the one-argument strftime with the run's database clock, and
// randomblob (goqite's ids) with the seed's randomness. On PostgreSQL the
// schema stamps them with now() and makes ids with pgcrypto's
// gen_random_bytes: durasim runs it in a scratch schema of its own whose
// search_path puts that schema ahead of pg_catalog, with a now() and a
// gen_random_bytes of durasim's in it that return what each transaction
// was given (the run's database clock; the seed's bytes). A seed replays
// byte for byte, on 32-bit platforms too, and gives the same trace on
// both databases.
//
// # Releases
//
// api_v04.go builds against v0.4.0; api_v02.go (-tags goqite_v02)
// against the old module path's github.com/maragudk/goqite v0.2.3, as
// make goqite-compat builds it (SQLite only: v0.2.3 has no PostgreSQL
// flavour).
package goqitetarget
