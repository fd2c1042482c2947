package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad input to `chaos -target asynq`, `mutants -target asynq` and
// `asynq-worker`: exit 2, one line, no panic, nothing on stdout.
func TestChaosAsynqBadInput(t *testing.T) {
	for _, tc := range []struct {
		run  func([]string, *bytes.Buffer, *bytes.Buffer) error
		args []string
	}{
		{chaosAsynq, []string{"-target", "asynq", "-db", "", "-redis", "/tmp/x.sock"}},
		{chaosAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/tmp/x.sock", "-workers", "1"}},
		{chaosAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/tmp/x.sock", "-design", "tx-checked"}},
		{chaosAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/tmp/x.sock", "-design", "nonsense"}},
		{chaosAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/tmp/x.sock", "-tz", "Nowhere/Atlantis"}},
		{chaosAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/tmp/x.sock", "-max-freeze", "10s"}},
		{chaosAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/tmp/x.sock", "stray"}},
		{chaosAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/nonexistent-durasim/r.sock", "-kills", "1"}},
		{mutantsAsynq, []string{"-target", "asynq", "-db", "x", "-redis", "/tmp/x.sock", "-kills", "-1"}},
		{asynqWorker, []string{"-db", "x", "-redis", "/tmp/x.sock", "-kill-at", "nowhere"}},
		{asynqWorker, []string{"-db", "x", "-redis", "/tmp/x.sock", "-design", "effect-outside-tx", "-kill-at", "after_commit"}},
		{asynqWorker, []string{"-db", "x", "-redis", ""}},
	} {
		var stdout, stderr bytes.Buffer
		code := status(tc.run(tc.args, &stdout, &stderr), &stderr)
		msg := strings.TrimSpace(stderr.String())
		if code != 2 || msg == "" || strings.Contains(msg, "\n") || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", tc.args, code, msg)
		}
	}
}

func chaosAsynq(args []string, o, e *bytes.Buffer) error   { return cmdChaos(args, o, e) }
func mutantsAsynq(args []string, o, e *bytes.Buffer) error { return cmdMutants(args, o, e) }
func asynqWorker(args []string, o, e *bytes.Buffer) error  { return cmdAsynqWorker(args, o, e) }

// -h of chaos -target asynq lists its flags, the clock faults among them,
// and exits 0.
func TestChaosAsynqHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := status(cmdChaos([]string{"-target", "asynq", "-h"}, &stdout, &stderr), &stderr); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, f := range []string{"-redis", "-db", "-kills", "-design", "-tz", "-client-skew", "-concurrency", "-drain-delay"} {
		if !strings.Contains(stderr.String(), "  "+f+" ") && !strings.Contains(stderr.String(), "  "+f+"\n") {
			t.Errorf("-h does not list %s:\n%s", f, stderr.String())
		}
	}
}
