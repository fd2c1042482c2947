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
		{"chaos", "-db", "x", "-consumers", "0"},
		{"chaos", "-db", "x", "-consumers", "-1"},
		{"chaos", "-db", "x", "-workers", "40", "-relays", "20", "-consumers", "10"},
		{"chaos", "-db", "x", "-freeze", "600ms"}, // not above 4/3 of the 500ms lease
		{"chaos", "-db", "x", "-freeze", "-1s"},
		{"chaos", "-db", "x", "-slow-work", "-1ms"},
		{"chaos", "-db", "x", "-max-attempts", "3"},
		{"chaos", "-db", "x", "-operator=maybe"},
		{"worker", "-db", "x", "-role", "operator", "-kill-at", "after_lease"},
		{"worker", "-db", "x", "-role", "operator", "-kill-at", "inside_redrive_after_stmt", "-kill-stmt", "-1"},
		{"worker", "-db", "x", "-kill-at", "after_lease", "-kill-stmt", "2"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		msg := strings.TrimSpace(stderr.String())
		if code != 2 || msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, msg)
		}
	}
}
