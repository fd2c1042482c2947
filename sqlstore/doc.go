// Package sqlstore is the durable part of the durasim pipeline on a real
// SQL database: the job queue with leases and fencing tokens, the
// transactional outbox (results and events committed together), the
// broker's message log, the deduplicating consumer's ledger and effects,
// the DLQ and the operator audit. It runs on SQLite (modernc.org/sqlite,
// pure Go) and PostgreSQL (pgx), and follows the semantics of the
// in-memory model (package model) in its correct design, so that the
// simulator can mirror every model outcome against SQL.
//
// # Schema
//
// The schema is a list of versioned migrations per dialect, embedded in
// the binary (migrations/<dialect>/NNNN_name.sql). [Open] creates it on an
// empty database, accepts the current version and refuses any other with
// [ErrSchemaVersion]. uint64 values (payload hashes, fences, result
// values) are stored as int64 with the same bits; times are the model's
// integer nanoseconds; job states and reason codes are stored by name.
//
// # Transactions and concurrency
//
// Every [Ops] method is one transaction on the actor's own connection,
// so closing the connection (a crash) rolls back whatever was in flight.
// In PostgreSQL, LeaseNext and ClaimUnpublished lock the rows they take
// with FOR UPDATE SKIP LOCKED, so concurrent workers never take the same
// job; every lease also takes the next value of a single-row fence
// counter, which serialises leases briefly but keeps fences gap-free like
// the model's. In SQLite every transaction is BEGIN IMMEDIATE: writers
// queue (busy_timeout) instead of deadlocking.
//
// # Where the store differs from the model
//
// Commits are not fenced by default, as in the model; CommitReq.Fenced
// opts in. Dead writes the DLQ row and the dead state in one transaction
// (the model's two steps, WriteDLQ then MarkDead, have a crash window
// between them that SQL does not need). The model's token budget is not
// tracked, so LeaseNext dead-letters only on max_attempts_exceeded.
package sqlstore
