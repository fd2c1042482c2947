package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad input to `chaos -target river` and `river-worker`: exit 2, one
// line, no panic, nothing started. (Through the two functions: the
// dispatch in chaos.go and the command table are not this file's.)
func TestChaosRiverBadInput(t *testing.T) {
	for _, tc := range []struct {
		worker bool
		args   []string
	}{
		{false, []string{"-target", "river", "-db", "postgres://nobody@/x?host=/nonexistent-durasim&sslmode=disable", "-kills", "1"}},
		{false, []string{"-target", "kafka", "-db", "x"}},
		{false, []string{"-target", "river", "-db", ""}},
		{false, []string{"-target", "river", "-db", "x", "-workers", "1"}},
		{false, []string{"-target", "river", "-db", "x", "-design", "outbox"}},
		{false, []string{"-target", "river", "-db", "x", "-design", "nonsense"}},
		{false, []string{"-target", "river", "-db", "x", "-kills", "-1"}},
		{false, []string{"-target", "river", "-db", "x", "-job-timeout", "5s"}},
		{false, []string{"-target", "river", "-db", "x", "-pause-every", "0"}},
		{false, []string{"-target", "river", "-db", "x", "stray"}},
		{true, []string{"-db", "x", "-kill-at", "nowhere"}},
		{true, []string{"-db", "x", "-design", "effect-outside-tx", "-kill-at", "before_commit"}},
		{true, []string{"-db", "x", "-kill-at", "after_fetch", "-kill-nth", "0"}},
		{true, []string{"-db", ""}},
	} {
		var stdout, stderr bytes.Buffer
		run := cmdChaosRiver
		if tc.worker {
			run = cmdRiverWorker
		}
		code := status(run(tc.args, &stdout, &stderr), &stderr)
		msg := strings.TrimSpace(stderr.String())
		if code != 2 || msg == "" || strings.Contains(msg, "\n") || stdout.Len() != 0 {
			t.Errorf("%q (worker %v): exit %d, stderr %q; want 2 and one line", tc.args, tc.worker, code, msg)
		}
	}
}

// -h lists the flags the brief names and exits 0.
func TestChaosRiverHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := status(cmdChaosRiver([]string{"-h"}, &stdout, &stderr), &stderr); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, f := range []string{"-db", "-scratch-db", "-workers", "-jobs", "-kills", "-design", "-seed", "-timeout", "-drain", "-dir", "-quiet"} {
		if !strings.Contains(stderr.String(), "  "+f+" ") && !strings.Contains(stderr.String(), "  "+f+"\n") {
			t.Errorf("-h does not list %s:\n%s", f, stderr.String())
		}
	}
}
