package sqlstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/model"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backend opens a fresh, empty store of one kind.
type backend struct {
	name string
	open func(t testing.TB) *Store
	// url gives a URL that a second Open reaches the same database with
	// ("" for a private in-memory database).
	url func(t testing.TB) (driver, url string)
}

func backends() []backend {
	return []backend{
		{name: "sqlite-mem", url: func(testing.TB) (string, string) { return SQLite, ":memory:" }},
		{name: "sqlite-file", url: func(t testing.TB) (string, string) {
			return SQLite, "file:" + filepath.Join(t.TempDir(), "durasim.db")
		}},
		{name: "postgres", url: func(t testing.TB) (string, string) {
			return Postgres, pgtest.Fresh(t, pgtest.URL(t))
		}},
	}
}

// forEach runs f against a fresh store of every backend.
func forEach(t *testing.T, f func(t *testing.T, s *Store)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			d, u := b.url(t)
			f(t, mustOpen(t, d, u))
		})
	}
}

func mustOpen(t testing.TB, driver, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), driver, url)
	if err != nil {
		t.Fatalf("Open(%s): %v", driver, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func conn(t testing.TB, s *Store) *Conn {
	t.Helper()
	c, err := s.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var ctx = context.Background()

// job is a NewJob for key with sensible defaults.
func job(key string, now model.Time) NewJob {
	return NewJob{Tenant: "t1", Document: "d-" + key, Version: 1, Key: key, PayloadHash: 1<<63 | 42,
		MaxAttempts: 3, Now: now, DeadlineAt: now + 1_000_000}
}

func enqueue(t testing.TB, c *Conn, j NewJob) model.JobID {
	t.Helper()
	id, created, err := c.Enqueue(ctx, j)
	if err != nil || !created {
		t.Fatalf("Enqueue(%s) = %v, %v, %v", j.Key, id, created, err)
	}
	return id
}

func lease(t testing.TB, c *Conn, worker string, now, until model.Time) Leased {
	t.Helper()
	l, ok, err := c.LeaseNext(ctx, LeaseReq{Worker: worker, Now: now, LeaseUntil: until})
	if err != nil || !ok {
		t.Fatalf("LeaseNext(now=%d) = %+v, %v, %v", now, l, ok, err)
	}
	return l
}

func noLease(t testing.TB, c *Conn, now model.Time) {
	t.Helper()
	l, ok, err := c.LeaseNext(ctx, LeaseReq{Worker: "w", Now: now, LeaseUntil: now + 10})
	if err != nil || ok {
		t.Fatalf("LeaseNext(now=%d) = %+v, %v, %v; want nothing", now, l, ok, err)
	}
}

func state(t testing.TB, s *Store) State {
	t.Helper()
	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func jobRow(t testing.TB, s *Store, id model.JobID) JobRow {
	t.Helper()
	for _, j := range state(t, s).Jobs {
		if j.ID == id {
			return j
		}
	}
	t.Fatalf("no job %v", id)
	return JobRow{}
}

// wantFenced checks err is ErrFenced with the model's reason code.
func wantFenced(t testing.TB, what string, err error, code model.Code) {
	t.Helper()
	var fe *FenceError
	if !errors.Is(err, ErrFenced) || !errors.As(err, &fe) || fe.Code != code {
		t.Fatalf("%s: err = %v; want ErrFenced with %v", what, err, code)
	}
}

// deadline is how long a test waiting on other goroutines (or on another
// connection's lock) waits before it fails: a lost wake-up or a lease
// handed out forever fails that test, instead of hanging the run until
// go test's 10-minute timeout.
const deadline = time.Minute

// within receives from ch, failing the test after deadline.
func within[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deadline):
		t.Fatalf("waited %v for %s", deadline, what)
		panic("unreachable")
	}
}

// waitAll waits for wg, failing the test after deadline.
func waitAll(t testing.TB, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	within(t, done, what)
}
