package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad input to `chaos -target goqite` and `goqite-worker`: exit 2, one
// line, no panic, nothing on stdout.
func TestChaosGoqiteBadInput(t *testing.T) {
	for _, tc := range []struct {
		run  func([]string, *bytes.Buffer, *bytes.Buffer) error
		args []string
	}{
		{chaosGoqite, []string{"-target", "goqite", "-workers", "1"}},
		{chaosGoqite, []string{"-target", "goqite", "-design", "outbox"}},
		{chaosGoqite, []string{"-target", "goqite", "-design", "nonsense"}},
		{chaosGoqite, []string{"-target", "goqite", "-job-timeout", "5s"}},
		{chaosGoqite, []string{"-target", "goqite", "-goqite-timeout", "1500us"}},
		{chaosGoqite, []string{"-target", "goqite", "-max-freeze", "1s"}},
		{chaosGoqite, []string{"-target", "goqite", "-pause-every", "0"}},
		{chaosGoqite, []string{"-target", "goqite", "-db", "/nonexistent-durasim/dir/g.db", "-kills", "1"}},
		{chaosGoqite, []string{"-target", "goqite", "stray"}},
		{goqiteWorker, []string{"-db", "/tmp/x.db", "-kill-at", "nowhere"}},
		{goqiteWorker, []string{"-db", "/tmp/x.db", "-design", "effect-outside-tx", "-kill-at", "before_commit"}},
		{goqiteWorker, []string{"-db", ""}},
	} {
		var stdout, stderr bytes.Buffer
		code := status(tc.run(tc.args, &stdout, &stderr), &stderr)
		msg := strings.TrimSpace(stderr.String())
		if code != 2 || msg == "" || strings.Contains(msg, "\n") || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", tc.args, code, msg)
		}
	}
}

func chaosGoqite(args []string, o, e *bytes.Buffer) error  { return cmdChaos(args, o, e) }
func goqiteWorker(args []string, o, e *bytes.Buffer) error { return cmdGoqiteWorker(args, o, e) }

// -h of chaos -target goqite lists its flags and exits 0; -db is a file
// there, so there is no -scratch-db.
func TestChaosGoqiteHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := status(cmdChaos([]string{"-target", "goqite", "-h"}, &stdout, &stderr), &stderr); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, f := range []string{"-db", "-kills", "-design", "-goqite-timeout", "-concurrency", "-workers", "-pause-every", "-zombies"} {
		if !strings.Contains(stderr.String(), "  "+f+" ") && !strings.Contains(stderr.String(), "  "+f+"\n") {
			t.Errorf("-h does not list %s:\n%s", f, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "-scratch-db") {
		t.Error("-h lists -scratch-db")
	}
}
