//go:build amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le

package rivertarget

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/durasim/durasim/internal/sqlprep"
)

// Lookaside: SQLite serves a connection's small allocations from a
// buffer of its own (its lookaside) and everything else from the
// process's allocator, which modernc.org/libc guards with one mutex for
// the whole process. The default buffer (40 slots of 1200 bytes) is held
// by the cached statements, so about a quarter of a poll's allocations
// missed it (SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL) and went through that
// mutex: a cost per call, and one the databases of -parallel share.
const (
	lookasideSlot  = 1200 // bytes: SQLite's default slot size
	lookasideSlots = 2000 // 2.4 MB a connection
)

// setLookaside gives the one connection of db a lookaside of n slots of
// sz bytes. SQLite takes it only while none of the connection's
// lookaside is in use, so it runs before anything is prepared on it.
func setLookaside(ctx context.Context, db *sql.DB, sz, n int32) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		h, err := sqliteHandle(dc)
		if err != nil {
			return err
		}
		tls := libc.NewTLS()
		defer tls.Close()
		va := libc.NewVaList(uintptr(0), sz, n)
		defer libc.Xfree(tls, va)
		if rc := sqlite3.Xsqlite3_db_config(tls, h, sqlite3.SQLITE_DBCONFIG_LOOKASIDE, va); rc != sqlite3.SQLITE_OK {
			return fmt.Errorf("lookaside of %d slots of %d bytes: SQLite error %d", n, sz, rc)
		}
		return nil
	})
}

// sqliteHandle is the sqlite3* of a modernc.org/sqlite connection under
// sqlprep's: modernc keeps it in an unexported field, read (never
// written) here; a modernc release that renames it fails the open with
// this error, and TestLookaside.
func sqliteHandle(dc any) (uintptr, error) {
	in, ok := sqlprep.Unwrap(dc)
	if !ok {
		return 0, fmt.Errorf("a %T is not sqlprep's connection", dc)
	}
	v := reflect.ValueOf(in)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, fmt.Errorf("modernc.org/sqlite's connection %T has no handle field", in)
	}
	f := v.FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return 0, fmt.Errorf("modernc.org/sqlite's connection %T has no handle field db", in)
	}
	return uintptr(f.Uint()), nil
}

// changeCounter reads SQLite's total_changes() of a database's one
// connection through SQLite's C API on the connection's handle: the
// number SELECT total_changes() returns, without a statement (whose run
// through database/sql was 3% of a seed, once a poll). The handle is
// looked up again whenever database/sql hands over a connection other
// than the one it was read from.
type changeCounter struct {
	tls  *libc.TLS
	conn any // the connection h is the handle of
	h    uintptr
}

func (c *changeCounter) total(ctx context.Context, db *sql.DB) (int64, error) {
	sc, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer sc.Close()
	var n int64
	err = sc.Raw(func(dc any) error {
		if dc != c.conn {
			h, err := sqliteHandle(dc)
			if err != nil {
				return err
			}
			c.conn, c.h = dc, h
		}
		if c.tls == nil {
			c.tls = libc.NewTLS()
		}
		n = sqlite3.Xsqlite3_total_changes64(c.tls, c.h)
		return nil
	})
	return n, err
}

func (c *changeCounter) close() {
	if c.tls != nil {
		c.tls.Close()
		c.tls = nil
	}
	c.conn, c.h = nil, 0
}
