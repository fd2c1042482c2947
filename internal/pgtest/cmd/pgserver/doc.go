// Command pgserver starts and stops a throwaway PostgreSQL server for
// manual runs (make pg-up / make pg-down), with the settings the tests use
// (see package pgtest):
//
//	go run ./internal/pgtest/cmd/pgserver up -dir .pg     # prints: export DURASIM_PG_URL='...'
//	go run ./internal/pgtest/cmd/pgserver down -dir .pg   # stops it, removes .pg
//
// `up` prints exactly one line on stdout, so `eval "$(make -s pg-up)"` sets
// the variable; the server keeps running after the command exits. As root,
// the server runs as the postgres user (or nobody), so every parent of the
// directory must be enterable by that user.
package main
