package effectsql_test

import (
	"context"
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/effectsql"
)

// A deduplicated effect is written once per key, a plain one every time,
// and they read back in commit order.
func TestWriteAndScan(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range effectsql.Schema("INTEGER PRIMARY KEY AUTOINCREMENT") {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(ctx context.Context, q string, args ...any) (int64, error) {
		res, err := db.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	e := target.Effect{Job: 3, Attempt: 1, Worker: "w0", Key: "acme:d1:v1", Tenant: "acme", Doc: "d1", At: 7, Dedupe: true}
	var wrote []bool
	for _, x := range []target.Effect{e, e, {Job: 4, Attempt: 2, Worker: "w1", Key: "acme:d1:v1", Tenant: "acme", Doc: "d1", At: 9}} {
		ok, err := effectsql.Write(ctx, exec, x)
		if err != nil {
			t.Fatal(err)
		}
		wrote = append(wrote, ok)
	}
	if !wrote[0] || wrote[1] || !wrote[2] {
		t.Fatalf("written %v; want the dedupe key's second write refused", wrote)
	}
	rows, err := db.Query(effectsql.Query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got, err := effectsql.Scan(rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Seq != 1 || got[0].Job != 3 || got[0].At != 7 || got[1].Job != 4 || got[1].Worker != "w1" {
		t.Fatalf("read back %+v", got)
	}
}
