package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

func TestUpDown(t *testing.T) {
	dir, err := os.MkdirTemp("", "durasim-pgserver-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pgtest.StopDir(dir) })

	var out, errb bytes.Buffer
	if code := run([]string{"up", "-dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("up: exit %d: %s", code, errb.String())
	}
	// Exactly one line, so eval "$(make -s pg-up)" works.
	m := regexp.MustCompile(`^export DURASIM_PG_URL='([^']+)'\n$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("up printed %q, want one export line", out.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, m[1])
	if err != nil {
		t.Fatalf("connect %s: %v", m[1], err)
	}
	_ = conn.Close(ctx)

	if code := run([]string{"down", "-dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("down: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after down", dir)
	}
	if code := run([]string{"sideways"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage") {
		t.Errorf("unknown subcommand: exit %d, stderr %q", code, errb.String())
	}
}
