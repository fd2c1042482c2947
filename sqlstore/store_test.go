package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/model"
)

// TestReopen: a database reopened keeps its data and version.
func TestReopen(t *testing.T) {
	for _, b := range backends() {
		if b.name == "sqlite-mem" {
			continue // private by design
		}
		t.Run(b.name, func(t *testing.T) {
			d, u := b.url(t)
			s := mustOpen(t, d, u)
			id := enqueue(t, conn(t, s), job("k", 0))
			s.Close()
			s = mustOpen(t, d, u)
			if v, err := s.Version(ctx); err != nil || v != SchemaVersion {
				t.Fatalf("version = %v, %v; want %d", v, err, SchemaVersion)
			}
			if j := jobRow(t, s, id); j.Key != "k" || j.State != model.Pending {
				t.Fatalf("job after reopen = %+v", j)
			}
			// The fence counter survives too.
			if l := lease(t, conn(t, s), "w", 0, 10); l.Fence != 1 {
				t.Fatalf("fence = %d", l.Fence)
			}
		})
	}
}

func TestSchemaVersionRefused(t *testing.T) {
	for _, b := range backends() {
		if b.name == "sqlite-mem" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			d, u := b.url(t)
			s := mustOpen(t, d, u)
			if _, err := s.DB().ExecContext(ctx, "UPDATE durasim_schema SET version = 99"); err != nil {
				t.Fatal(err)
			}
			s.Close()
			_, err := Open(ctx, d, u)
			if !errors.Is(err, ErrSchemaVersion) || !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), "wants 1") {
				t.Fatalf("Open of a version-99 database: err = %v", err)
			}
		})
	}
}

func TestBadURLs(t *testing.T) {
	cases := []struct {
		driver, url, want string
	}{
		{"oracle", "x", `unknown driver "oracle"`},
		{SQLite, "", "empty sqlite url"},
		{SQLite, "file:" + filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"), "cannot connect to sqlite at "},
		{Postgres, "postgres://durasim@/durasim?host=/nonexistent-durasim-dir&sslmode=disable", "cannot connect to postgres at host=/nonexistent-durasim-dir port=5432 dbname=durasim user=durasim"},
		{Postgres, "postgres://u:secret@127.0.0.1:1/db?sslmode=disable&connect_timeout=2", "cannot connect to postgres at host=127.0.0.1 port=1 dbname=db user=u"},
		{Postgres, "postgres://%zz", "bad postgres url"},
	}
	for _, c := range cases {
		_, err := Open(ctx, c.driver, c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%s, %q): err = %v; want one line containing %q (and no password)", c.driver, c.url, err, c.want)
		}
	}
}

func TestStateRoundTrip(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		c := conn(t, s)
		j := job("k", 0)
		j.Origin = 5
		id := enqueue(t, c, j)
		l := lease(t, c, "w0", 0, 10)
		if l.Payload != j.PayloadHash {
			t.Fatalf("payload %x; want %x (uint64 bit pattern)", l.Payload, j.PayloadHash)
		}
		got := jobRow(t, s, id)
		want := JobRow{ID: id, Tenant: "t1", Key: "k", Document: "d-k", Version: 1, PayloadHash: j.PayloadHash, State: model.Leased,
			Attempt: 1, MaxAttempts: 3, Fence: 1, Holder: "w0", Origin: 5, LeaseUntil: 10, ReadyAt: 10, DeadlineAt: 1_000_000}
		if got != want {
			t.Fatalf("job row = %+v; want %+v", got, want)
		}
	})
}

// TestConcurrentLease: 8 workers, each on its own connection, lease
// concurrently until the queue is empty; every job goes to exactly one.
func TestConcurrentLease(t *testing.T) {
	forEach(t, func(t *testing.T, s *Store) {
		const jobs, workers = 64, 8
		c := conn(t, s)
		for i := range jobs {
			enqueue(t, c, job(fmt.Sprintf("k%02d", i), 0))
		}
		var mu sync.Mutex
		seen := map[model.JobID]string{}
		fences := map[uint64]bool{}
		var errs []error // under mu: a duplicate is reported, never waits for a reader
		lctx, cancel := context.WithTimeout(ctx, deadline)
		defer cancel()
		var wg sync.WaitGroup
		start := make(chan struct{})
		for w := range workers {
			wc := conn(t, s)
			name := fmt.Sprintf("w%d", w)
			wg.Go(func() {
				<-start
				for {
					l, ok, err := wc.LeaseNext(lctx, LeaseReq{Worker: name, Now: 1, LeaseUntil: 1000})
					if err != nil || !ok {
						if err != nil {
							mu.Lock()
							errs = append(errs, fmt.Errorf("%s: %w", name, err))
							mu.Unlock()
						}
						return
					}
					mu.Lock()
					prev, dup := seen[l.Job]
					if dup {
						errs = append(errs, errors.New(name+" and "+prev+" both leased "+l.Job.String()))
					}
					seen[l.Job], fences[l.Fence] = name, true
					mu.Unlock()
					if dup {
						return // a broken lease may hand out the same job forever
					}
				}
			})
		}
		close(start)
		waitAll(t, &wg, "workers leasing")
		for _, err := range errs {
			t.Error(err)
		}
		if len(errs) > 0 {
			t.FailNow()
		}
		if len(seen) != jobs || len(fences) != jobs {
			t.Fatalf("%d jobs leased with %d distinct fences; want %d", len(seen), len(fences), jobs)
		}
		for f := uint64(1); f <= jobs; f++ {
			if !fences[f] {
				t.Fatalf("fence %d never granted: fences have gaps", f)
			}
		}
	})
}

// TestClaimSkipLocked: while one relay holds its claimed rows (its
// transaction still open), a second relay's claim skips them. The order
// is forced with channels, so the test cannot flake. PostgreSQL only:
// SQLite has no row locks, its second claimer waits for the first.
func TestClaimSkipLocked(t *testing.T) {
	d, u := Postgres, pgtest.Fresh(t, pgtest.URL(t))
	s := mustOpen(t, d, u)
	c := conn(t, s)
	id := enqueue(t, c, job("k", 0))
	for st := model.StageIngest; st < model.StageDone; st++ {
		if _, err := c.Commit(ctx, commitReq(id, 0, "k", st)); err != nil {
			t.Fatal(err)
		}
	}
	a, b := conn(t, s), conn(t, s)
	held, release := make(chan []Row), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := a.ClaimWith(ctx, 2, func(rows []Row) error {
			held <- rows
			<-release
			return nil
		})
		done <- err
	}()
	aRows := within(t, held, "a's claim") // a's transaction is open and holds rows 1 and 2
	bRows, err := b.ClaimUnpublished(ctx, 10)
	close(release)
	if err := within(t, done, "a's claim to end"); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rs []Row) (out []model.EventID) {
		for _, r := range rs {
			out = append(out, r.EventID)
		}
		return out
	}
	if got, want := ids(aRows), []model.EventID{1, 2}; !equal(got, want) {
		t.Fatalf("a claimed %v; want %v", got, want)
	}
	if got, want := ids(bRows), []model.EventID{3, 4}; !equal(got, want) {
		t.Fatalf("b claimed %v while a held 1 and 2; want %v", got, want)
	}
	// Once a's transaction ended its rows are claimable again (they are
	// still unpublished): the lock lasts only for the claim.
	rows, err := b.ClaimUnpublished(ctx, 10)
	if err != nil || len(rows) != 4 {
		t.Fatalf("claim after release = %v, %v", ids(rows), err)
	}
}

func equal(a, b []model.EventID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
