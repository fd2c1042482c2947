//go:build amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le

package sqlprep

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	_ "modernc.org/sqlite"
)

// TestSQLiteAnswersAsWithoutTheCache runs one workload on SQLite with and
// without the cache: the same rows, and each text prepared once.
func TestSQLiteAnswersAsWithoutTheCache(t *testing.T) {
	run := func(db *sql.DB) []string {
		t.Helper()
		db.SetMaxOpenConns(1)
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, "CREATE TABLE j (id INTEGER PRIMARY KEY, state TEXT NOT NULL, at INTEGER NOT NULL)"); err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := range 20 {
			if _, err := db.ExecContext(ctx, "INSERT INTO j (state, at) VALUES ('available', ?1)", i); err != nil {
				t.Fatal(err)
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := read(t)(tx.QueryContext(ctx, "UPDATE j SET state = 'running' WHERE id IN (SELECT id FROM j WHERE state = 'available' AND at <= ?1 ORDER BY at LIMIT 1) RETURNING id || ':' || state", i/2))
			out = append(out, got...)
			if i%3 == 0 {
				_ = tx.Rollback()
				continue
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO j (id, state, at) VALUES (1, 'dup', 0)"); err == nil {
			t.Fatal("a duplicate key was accepted")
		}
		return append(out, read(t)(db.QueryContext(ctx, "SELECT id || ':' || state FROM j ORDER BY id"))...)
	}
	plain, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	cached, err := Open("sqlite", "file::memory:", DefaultCapacity)
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Close()
	want, got := run(plain), run(cached)
	if !slices.Equal(got, want) {
		t.Fatalf("with the cache:\n%q\nwithout:\n%q", got, want)
	}
	if s := stats(t, cached); s.Prepared != 5 || s.Hits != 43-5 || s.Bypassed != 0 {
		t.Errorf("stats %+v: want 5 texts prepared once each, the rest hits", s)
	}
}
