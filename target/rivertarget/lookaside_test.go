//go:build amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le

package rivertarget

import (
	"database/sql"
	"testing"

	"modernc.org/sqlite"

	"github.com/durasim/durasim/internal/sqlprep"
	"github.com/durasim/durasim/target"
)

// TestLookaside: River's database has the larger lookaside, so a poll's
// allocations no longer miss it for want of a free slot (they did about
// 19 times a poll with SQLite's default of 40 slots).
func TestLookaside(t *testing.T) {
	q := openTest(t)
	c := q.Conn("w0")
	if _, err := c.Insert(ctx, 0, target.InsertReq{Kind: "doc", Args: target.Args{Tenant: "acme", Doc: "d1", Version: 1}, MaxAttempts: 3}); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if _, err := c.Fetch(ctx, 0, 1); err != nil {
			t.Fatal(err)
		}
	}
	db := q.db.(*sqliteDB).db
	if _, full := lookasideStatus(t, db, sqlite.DBStatusLookasideMissFull); full != 0 {
		t.Errorf("lookaside full %d times in 50 polls, want 0", full)
	}
	if _, hits := lookasideStatus(t, db, sqlite.DBStatusLookasideHit); hits == 0 {
		t.Error("no allocation used the lookaside")
	}
}

func lookasideStatus(t *testing.T, db *sql.DB, op sqlite.DBStatusOp) (cur, high int) {
	t.Helper()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error {
		in, _ := sqlprep.Unwrap(dc)
		cur, high, err = in.(sqlite.DBStatus).Status(op, false)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return cur, high
}

// TestSQLiteHandleRefusesOthers: a connection that is not sqlprep's over
// modernc's has no handle to configure, and says so.
func TestSQLiteHandleRefusesOthers(t *testing.T) {
	if _, err := sqliteHandle(struct{}{}); err == nil {
		t.Error("a struct{} gave a handle")
	}
}
