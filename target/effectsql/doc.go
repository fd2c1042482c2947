// Package effectsql is the two tables durasim keeps beside a SQL queue's
// own, in the queue's database, for the handlers it runs there: the
// effects (durasim_effect, no unique key, so that a duplicate shows) and
// the ledger the deduplicating handlers write first (durasim_ledger).
// The target adapters on SQL (target/rivertarget, target/goqitetarget)
// write and read them through it, on SQLite and PostgreSQL alike (the
// statements are in the dialect both take).
package effectsql
