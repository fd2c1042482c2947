package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad input to chaos and worker: exit 2, one line, no panic.
func TestChaosBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"chaos", "-db", "postgres://nobody@/x?host=/nonexistent-durasim&sslmode=disable", "-kills", "1"},
		{"chaos", "-db", "x", "-workers", "0"},
		{"chaos", "-db", "x", "-kills", "-3"},
		{"chaos", "-db", ""},
		{"worker", "-db", "x", "-role", "boss"},
		{"worker", "-db", "x", "-role", "relay", "-kill-at", "after_lease"},
		{"worker", "-db", "x", "-kill-at", "nowhere"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		msg := strings.TrimSpace(stderr.String())
		if code != 2 || msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, msg)
		}
	}
}
