package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EnvURL names the variable that points the tests at an existing server.
const EnvURL = "DURASIM_PG_URL"

// dirPrefix marks the shared servers' temporary directories, so a later run
// can find the ones a killed test binary left behind.
const dirPrefix = "durasim-pg-"

var (
	inMain atomic.Bool // Main is running: someone will stop the shared server

	shared struct {
		once sync.Once
		srv  *Server
		err  error
	}
	freshSeq atomic.Int64
)

// URL returns $DURASIM_PG_URL if set, else the URL of this test binary's
// throwaway server, starting it on first use. It fails t if the server
// cannot be started, or if the package's TestMain does not use [Main].
func URL(t testing.TB) string {
	t.Helper()
	if !inMain.Load() {
		t.Fatalf("pgtest: the package needs func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) } so the server is stopped")
	}
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	shared.once.Do(func() {
		root := tempRoot()
		sweepStale(root)
		dir, err := os.MkdirTemp(root, dirPrefix+"*")
		if err != nil {
			shared.err = err
			return
		}
		// MkdirTemp left it empty; start fills it, marking it ours first.
		shared.srv, shared.err = start(dir, strconv.Itoa(os.Getpid()), true)
	})
	if shared.err != nil {
		t.Fatalf("pgtest: cannot start a throwaway PostgreSQL server (or set %s): %v", EnvURL, shared.err)
	}
	return shared.srv.URL()
}

// Main runs the tests, then stops the shared server if URL started one.
// Use it as: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	inMain.Store(true)
	code := m.Run()
	inMain.Store(false)
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the throwaway server: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Fresh creates an empty database on the server at url, named
// durasim_<pid>_<n> so parallel tests and test binaries sharing a
// DURASIM_PG_URL server do not collide, and returns its URL. The database is
// dropped (WITH (FORCE), closing connections the test leaked) at t's cleanup.
func Fresh(t testing.TB, url string) string {
	t.Helper()
	u, drop, err := Scratch(url)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return u
}

// Scratch is [Fresh] outside a test: it creates an empty database
// durasim_<pid>_<n> on the server at url and returns its URL and the
// function that drops it (WITH (FORCE)). Runs side by side on one server
// (the mutation killers, say) each get their own tables this way.
func Scratch(url string) (string, func() error, error) {
	name := fmt.Sprintf("durasim_%d_%d", os.Getpid(), freshSeq.Add(1))
	u, err := withDatabase(url, name)
	if err != nil {
		return "", nil, err
	}
	if err := admin(url, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database %s: %v", name, err)
	}
	drop := func() error {
		if err := admin(url, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %v", name, err)
		}
		return nil
	}
	return u, drop, nil
}

// admin runs one statement on its own connection. CREATE DATABASE fails
// with object_in_use (55006) while another session is in template1, so
// that is retried briefly.
func admin(url, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for attempt := 0; ; attempt++ {
		_, err = conn.Exec(ctx, stmt)
		var pgErr *pgconn.PgError
		if err == nil || attempt == 20 || !errors.As(err, &pgErr) || pgErr.Code != "55006" {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// withDatabase points a URL or a keyword/value connection string at db.
func withDatabase(s, db string) (string, error) {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		u, err := url.Parse(s)
		if err != nil {
			return "", fmt.Errorf("parse %s: %v", EnvURL, err)
		}
		u.Path, u.RawPath = "/"+db, ""
		return u.String(), nil
	}
	// Keyword/value form: a later dbname overrides an earlier one.
	return s + " dbname=" + db, nil
}

// tempRoot is os.TempDir, unless we are root and that is a directory the
// unprivileged server user cannot enter (TMPDIR=/root/tmp, say).
func tempRoot() string {
	root := os.TempDir()
	if os.Geteuid() == 0 {
		for p := root; ; p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o001 == 0 {
				return "/tmp"
			}
			if p == filepath.Dir(p) {
				break
			}
		}
	}
	return root
}

// sweepStale removes durasim-pg-* directories under root whose test
// process is gone (SIGKILLed before Main could stop its server), stopping
// the postmaster first if it outlived its parent. Directories without an
// owner yet are left for a minute: another binary may be creating them.
func sweepStale(root string) {
	dirs, _ := filepath.Glob(filepath.Join(root, dirPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, marker))
		if err != nil {
			if fi, err := os.Stat(dir); err == nil && time.Since(fi.ModTime()) > time.Minute {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || owner == os.Getpid() || processAlive(owner) {
			continue // not a test's server (no owner pid), or still in use
		}
		_ = (&Server{dir: dir}).Stop()
	}
}
