package goqitetarget

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/target"
)

func openBackend(t *testing.T, backend string) *Queue {
	t.Helper()
	url := ""
	if backend == Postgres {
		url = pgtest.URL(t)
	}
	q, err := Open(context.Background(), backend, url, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := q.Close(); err != nil {
			t.Error(err)
		}
	})
	return q
}

// row is goqite's row of a message as the database stamped it.
type row struct {
	id               string
	created, updated time.Time
}

func readRow(t *testing.T, q *Queue, id target.JobID) row {
	t.Helper()
	var r row
	var created, updated any
	err := q.db.QueryRow("SELECT g.id, g.created, g.updated FROM goqite g JOIN durasim_job j ON j.msg = g.id WHERE j.seq = $1", int64(id)).
		Scan(&r.id, &created, &updated)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		v   any
		out *time.Time
	}{{created, &r.created}, {updated, &r.updated}} {
		switch v := p.v.(type) {
		case time.Time:
			*p.out = v
		case string:
			w, err := time.Parse(stampLayout, v)
			if err != nil {
				t.Fatal(err)
			}
			*p.out = w
		default:
			t.Fatalf("a stamp of type %T", v)
		}
	}
	return r
}

// On both flavours goqite's schema stamps created and updated with the
// run's database clock and makes ids of the seed's bytes: the same ids
// on SQLite and PostgreSQL for one seed, created at virtual time (a
// second send in the same instant a microsecond on, on PostgreSQL, so
// goqite's order by created stays the order of sends), updated moved by
// a receive's transaction.
func TestDatabaseClockAndIDsAreDurasims(t *testing.T) {
	ctx := context.Background()
	ids := map[string][]string{}
	for _, backend := range []string{SQLite, Postgres} {
		q := openBackend(t, backend)
		if err := q.Reset(ctx, rand.New(rand.NewPCG(7, 7))); err != nil {
			t.Fatal(err)
		}
		c := q.Conn("w0")
		req := target.InsertReq{Kind: "doc", Args: target.Args{Tenant: "acme", Doc: "d1", Version: 1}, MaxAttempts: 3}
		at := 90 * target.Second
		var jobs []target.JobID
		for range 2 {
			in, err := c.Insert(ctx, at, req)
			if err != nil {
				t.Fatalf("%s: %v", backend, err)
			}
			jobs = append(jobs, in.Job)
		}
		if _, err := c.Fetch(ctx, at+2*target.Second, 1); err != nil {
			t.Fatalf("%s: %v", backend, err)
		}
		first, second := readRow(t, q, jobs[0]), readRow(t, q, jobs[1])
		step := time.Duration(0)
		if backend == Postgres {
			step = time.Microsecond
		}
		if !first.created.Equal(wall(at)) || !second.created.Equal(wall(at).Add(step)) {
			t.Errorf("%s: created %s and %s; want %s and %s later", backend, first.created, second.created, wall(at), step)
		}
		if !first.updated.Equal(wall(at+2*target.Second)) || !second.updated.Equal(second.created) {
			t.Errorf("%s: updated %s (received) and %s; want %s and its created", backend, first.updated, second.updated, wall(at+2*target.Second))
		}
		ids[backend] = []string{first.id, second.id}
	}
	want := rand.New(rand.NewPCG(7, 7))
	for i, got := range ids[Postgres] {
		b := make([]byte, 16)
		for k := range b {
			b[k] = byte(want.Int64N(256))
		}
		if w := "m_" + hex.EncodeToString(b); got != w || ids[SQLite][i] != w {
			t.Errorf("message %d: ids %s (postgres) and %s (sqlite); want %s on both", i+1, got, ids[SQLite][i], w)
		}
	}
}

// Outside durasim's stamp, its functions refuse: a row goqite's schema
// would stamp with PostgreSQL's own clock or pgcrypto's randomness is an
// error, not a silent default.
func TestPostgresRefusesAnUnstampedRow(t *testing.T) {
	q := openBackend(t, Postgres)
	_, err := q.db.Exec("INSERT INTO goqite (queue, body) VALUES ('q', '\\x00')")
	if err == nil || !strings.Contains(err.Error(), "no id set for this send") {
		t.Fatalf("an insert with no id set: %v", err)
	}
	_, err = q.db.Exec("INSERT INTO goqite (id, queue, body) VALUES ('m_x', 'q', '\\x00')")
	if err == nil || !strings.Contains(err.Error(), "no database clock set") {
		t.Fatalf("an insert with no clock set: %v", err)
	}
}

// Close drops the scratch schemas: nothing of goqite's is left on the
// server's database.
func TestPostgresCloseDropsItsSchema(t *testing.T) {
	url := pgtest.URL(t)
	q, err := Open(context.Background(), Postgres, url, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	schema := q.pg.schema
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	probe := openBackend(t, Postgres)
	var n int
	if err := probe.db.QueryRow("SELECT count(*) FROM pg_namespace WHERE nspname LIKE $1", schema+"%").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d schema(s) %s* left after Close", n, schema)
	}
}
