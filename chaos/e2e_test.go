package chaos

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/sqlstore"
)

// buildDurasim builds the command into a temporary directory: the chaos
// run starts its children from that binary.
func buildDurasim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "durasim")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/durasim/durasim/cmd/durasim").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Real processes, real SIGKILLs, real PostgreSQL: 8 workers, 3 relays, 2
// consumers and the operator take 500 kills, drain, every invariant holds
// and every path is taken.
func TestChaosEndToEnd(t *testing.T) {
	url := pgtest.Fresh(t, pgtest.URL(t))
	bin := buildDurasim(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "chaos", "-db", url, "-workers", "8", "-relays", "3", "-consumers", "2", "-kills", "500",
		"-seed", "3", "-quiet")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("chaos took %v:\n%s", time.Since(start).Round(time.Millisecond), stdout.String())
	if err != nil {
		t.Fatalf("chaos: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, inv := range InvariantNames() {
		if !strings.Contains(out, inv) || !lineHas(out, inv, "holds") {
			t.Errorf("invariant %q does not hold", inv)
		}
	}
	if !strings.Contains(out, "kill point") || !lineHas(out, "total", "") {
		t.Errorf("no kill table in the report")
	}
	if !lineHas(out, "path ", "taken") || !lineHas(out, "redrive ", "jobs' redrive counts") {
		t.Errorf("no path table in the report")
	}
}

func lineHas(out, prefix, s string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.Contains(l, s)
		}
	}
	return false
}

// Bad input is a UsageError (the command's exit 2), never a panic, and
// leaves nothing running.
func TestBadInput(t *testing.T) {
	base := DefaultConfig()
	base.DB = "postgres://nobody@/nowhere?host=/nonexistent-durasim&sslmode=disable"
	for name, mod := range map[string]func(*Config){
		"no connection": func(*Config) {},
		"no url":        func(c *Config) { c.DB = "" },
		"bad url":       func(c *Config) { c.DB = "postgres://%zz" },
		"workers 0":     func(c *Config) { c.Workers = 0 },
		"relays 0":      func(c *Config) { c.Relays = 0 },
		"kills < 0":     func(c *Config) { c.Kills = -1 },
		"lease 0":       func(c *Config) { c.Lease = 0 },
		"consumers 0":   func(c *Config) { c.Consumers = 0 },
		"short freeze":  func(c *Config) { c.Freeze = c.Lease },
		"few attempts":  func(c *Config) { c.MaxAttempts = FewAttempts },
	} {
		t.Run(name, func(t *testing.T) {
			c := base
			mod(&c)
			_, err := Run(context.Background(), c)
			var ue *UsageError
			if !errors.As(err, &ue) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Run = %v, want a one-line UsageError", err)
			}
		})
	}
	bad := []ChildConfig{
		{},
		{DB: "x", Role: "boss", Lease: time.Second},
		{DB: "x", Role: RoleRelay, Kill: crash.Assignment{At: boundary.AfterLease, Nth: 1}, Lease: time.Second},
		{DB: "x", Role: RoleWorker, Kill: crash.Assignment{At: boundary.AfterLease, Nth: 0}, Lease: time.Second},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// A database holding a durasim schema of another version is refused
// before anything runs.
func TestOtherSchemaVersion(t *testing.T) {
	url := pgtest.Fresh(t, pgtest.URL(t))
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, sqlstore.Postgres, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "UPDATE durasim_schema SET version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	c := DefaultConfig()
	c.DB = url
	_, err = Run(ctx, c)
	var ue *UsageError
	if !errors.As(err, &ue) || !errors.Is(err, sqlstore.ErrSchemaVersion) {
		t.Fatalf("Run = %v, want a UsageError wrapping ErrSchemaVersion", err)
	}
}
