package goqiterepro

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"maragu.dev/goqite"
	_ "modernc.org/sqlite"
)

// newQueue is goqite's README setup: one connection, goqite's own
// schema_sqlite.sql (read from goqite's module), a queue with the given
// max receive count and goqite's default five-second timeout.
func newQueue(t *testing.T, maxReceive int) (*goqite.Queue, *sql.DB) {
	t.Helper()
	db := newDB(t)
	return goqite.New(goqite.NewOpts{DB: db, Name: "jobs", MaxReceive: maxReceive}), db
}

// newDB is one in-memory SQLite connection with goqite's schema applied.
func newDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Exec(schema(t)); err != nil {
		t.Fatal(err)
	}
	return db
}

func schema(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goqiteDir(t), "schema_sqlite.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func receive(t *testing.T, q *goqite.Queue) *goqite.Message {
	t.Helper()
	m, err := q.Receive(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("select count(*) from goqite").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A worker whose receive was superseded deletes the message the next
// receive holds (goqite's Delete takes an id, not a receipt), and a
// delete of a message already gone returns no error: a handler that
// deletes in its transaction and checks only that error cannot tell
// that another receive did the work (durasim: replay -target goqite
// -design tx-as-documented -seed 2 -workers 2 -swarm=false -plan 'slow
// doc=6 attempt=1 for=9s' -only 6 writes the effect twice).
func TestStaleDeleteTakesTheHoldersMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, db := newQueue(t, 3)
		if err := q.Send(context.Background(), goqite.Message{Body: []byte("doc")}); err != nil {
			t.Fatal(err)
		}
		first := receive(t, q)
		time.Sleep(6 * time.Second) // past the five-second timeout: first is superseded
		second := receive(t, q)
		if first == nil || second == nil || first.ID != second.ID {
			t.Fatalf("receives: %v, %v; want the message twice", first, second)
		}
		// The superseded worker finishes and deletes; the second worker is
		// still at work on the same message.
		if err := q.Delete(context.Background(), first.ID); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db); n != 0 {
			t.Fatalf("after the superseded worker's delete the table holds %d message(s); goqite v0.4.0 deletes it (0)", n)
		}
		// The holder's own calls now act on nothing, and say nothing.
		if err := q.Extend(context.Background(), second.ID, time.Second); err != nil {
			t.Fatal(err)
		}
		if err := q.Delete(context.Background(), second.ID); err != nil {
			t.Fatal(err)
		}
	})
}

// A message that failed its last receive is never received again, yet
// the superseded first receiver's late Delete deletes it as done.
// (durasim: replay -target goqite -design idempotent-key -seed 95
// -workers 2 -swarm=false -plan 'slow doc=3 attempt=1 for=14s; transient
// doc=3 attempt=2; few-attempts doc=3 max=2' -only 3.)
func TestStaleDeleteFinishesADeadLetter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, db := newQueue(t, 2)
		if err := q.Send(context.Background(), goqite.Message{Body: []byte("doc")}); err != nil {
			t.Fatal(err)
		}
		first := receive(t, q)
		time.Sleep(6 * time.Second)
		last := receive(t, q) // received twice: its last receive
		if first == nil || last == nil {
			t.Fatal("want the message received twice")
		}
		// The last receive's work fails: its worker does not delete. Once
		// its timeout passed, goqite hands the message out no more.
		time.Sleep(6 * time.Second)
		if m := receive(t, q); m != nil {
			t.Fatalf("a third receive of a message with MaxReceive 2: %v", m)
		}
		if n := count(t, db); n != 1 {
			t.Fatalf("the dead message: %d rows, want it kept (1)", n)
		}
		// The first worker, slow but successful, deletes it late.
		if err := q.Delete(context.Background(), first.ID); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db); n != 0 {
			t.Fatalf("after the first receive's late delete: %d rows; goqite v0.4.0 deletes the dead message (0)", n)
		}
	})
}
