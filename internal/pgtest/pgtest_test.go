package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestMain also checks the teardown Main promises: after it returns, the
// shared server's postmaster is gone and so is its directory.
func TestMain(m *testing.M) {
	code := Main(m)
	if s := shared.srv; s != nil {
		pid := s.cmd.Process.Pid
		if processAlive(pid) {
			fmt.Fprintf(os.Stderr, "teardown: postmaster %d still running after Main\n", pid)
			code = 1
		}
		if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
			fmt.Fprintf(os.Stderr, "teardown: %s still exists after Main (stat: %v)\n", s.Dir(), err)
			code = 1
		}
	}
	os.Exit(code)
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func TestURLSelect1(t *testing.T) {
	u := URL(t)
	var one int
	if err := connect(t, u).QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if os.Getenv(EnvURL) != "" {
		return
	}
	if got := URL(t); got != u {
		t.Errorf("second URL = %s, want the shared server's %s", got, u)
	}
	pid, ok := postmasterPID(shared.srv.Dir())
	if !ok {
		t.Fatalf("no live postmaster.pid in %s", shared.srv.Dir())
	}
	if os.Geteuid() == 0 {
		// initdb/postgres refuse root; the server must have been demoted.
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && f[1] == "0" {
				t.Errorf("postmaster %d runs as root", pid)
			}
		}
	}
}

func TestFresh(t *testing.T) {
	u := URL(t)
	var name string
	t.Run("use", func(t *testing.T) {
		conn := connect(t, Fresh(t, u))
		ctx := context.Background()
		if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, "durasim_") {
			t.Errorf("current_database() = %q, want durasim_*", name)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE t (k int PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
		// Left open on purpose: the drop uses WITH (FORCE).
	})
	var n int
	err := connect(t, u).QueryRow(context.Background(),
		"SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n)
	if err != nil || n != 0 {
		t.Fatalf("database %q after its test: count %d, %v; want dropped", name, n, err)
	}
}

// TestStartStopDir is the cmd/pgserver path: Start, then stop from the
// directory alone as another process would.
func TestStartStopDir(t *testing.T) {
	dir, err := os.MkdirTemp(tempRoot(), "durasim-pgstop-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = StopDir(dir) })
	s, err := Start(dir)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	var one int
	if err := connect(t, s.URL()).QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	pid, ok := postmasterPID(dir)
	if !ok {
		t.Fatalf("no live postmaster.pid in %s", dir)
	}
	if _, err := Start(dir); err == nil {
		t.Errorf("second Start in a used dir succeeded")
	}
	if err := StopDir(dir); err != nil {
		t.Fatalf("StopDir: %v", err)
	}
	if processAlive(pid) {
		t.Errorf("postmaster %d still running after StopDir", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after StopDir (stat: %v)", dir, err)
	}
	if err := StopDir(dir); err != nil {
		t.Errorf("StopDir on a missing dir: %v", err)
	}
}

func TestStopDirRefusesForeignDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := StopDir(dir); err == nil {
		t.Fatalf("StopDir removed a directory pgtest did not create")
	}
	if _, err := os.Stat(filepath.Join(dir, "keep")); err != nil {
		t.Fatal(err)
	}
}

func TestSocketURL(t *testing.T) {
	got := socketURL("/tmp/durasim-pg-1", "durasim")
	want := "postgres://durasim@/durasim?host=/tmp/durasim-pg-1&port=5432&sslmode=disable"
	if got != want {
		t.Errorf("socketURL = %s, want %s", got, want)
	}
	cfg, err := pgx.ParseConfig(got)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "/tmp/durasim-pg-1" || cfg.Port != 5432 || cfg.User != "durasim" || cfg.Database != "durasim" {
		t.Errorf("pgx reads %s as host %q port %d user %q db %q", got, cfg.Host, cfg.Port, cfg.User, cfg.Database)
	}
}

func TestWithDatabase(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://durasim@/durasim?host=/tmp/x&port=5432&sslmode=disable": "postgres://durasim@/durasim_9?host=/tmp/x&port=5432&sslmode=disable",
		"postgresql://u:p@db:5433/app?sslmode=require":                      "postgresql://u:p@db:5433/durasim_9?sslmode=require",
		"host=/tmp/x dbname=app":                                            "host=/tmp/x dbname=app dbname=durasim_9",
	} {
		got, err := withDatabase(in, "durasim_9")
		if err != nil || got != want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	cfg, err := pgx.ParseConfig("host=/tmp/x dbname=app dbname=durasim_9")
	if err != nil || cfg.Database != "durasim_9" {
		t.Errorf("later dbname does not win: %v, %v", cfg, err)
	}
}

func TestVersionLess(t *testing.T) {
	if !versionLess("9.6", "15") || versionLess("16", "15") || !versionLess("15", "16") {
		t.Error("versionLess orders numerically")
	}
}
