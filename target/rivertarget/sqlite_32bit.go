//go:build !(amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le)

package rivertarget

import (
	"context"
	"errors"
)

// riversqlite does not build where int has 32 bits: its
// river_sqlite_driver.go (v0.47.0 to v0.51.2 at least) compares an int
// with math.MaxInt64 (min(params.MaxAttempts, math.MaxInt64)), a constant
// that overflows int. On such a platform only PostgreSQL is offered.
var errSQLite32 = errors.New("rivertarget: River's SQLite driver does not build on 32-bit platforms (riversqlite compares an int with math.MaxInt64); use -backend postgres")

type sqliteDB struct{ db }

func openSQLite(context.Context, string) (*sqliteDB, error) { return nil, errSQLite32 }
