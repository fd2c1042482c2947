package main

import (
	"bytes"
	"strings"
	"testing"
)

// The in-process mode: bad input is a one-line error with status 2; a
// seed of the correct design passes (status 0) and says so.
func TestChaosRiverInprocess(t *testing.T) {
	for _, args := range [][]string{
		{"-target", "river", "-inprocess", "-seeds", "3:1"},
		{"-target", "asynq", "-inprocess"},
		{"-target", "river", "-inprocess", "-design", "outbox"},
		{"-target", "river", "-inprocess", "-workers", "x"},
	} {
		var out, errw bytes.Buffer
		err := cmdChaos(args, &out, &errw)
		ee, ok := err.(*exitError)
		if !ok || ee.code != 2 || strings.Contains(strings.TrimSpace(ee.Error()), "\n") {
			t.Errorf("%q: %v, want a one-line usage error (status 2)", args, err)
		}
	}
	if testing.Short() {
		t.Skip("-short: the run itself is riverinproc's tests'")
	}
	var out, errw bytes.Buffer
	if err := cmdChaos([]string{"-target", "river", "-inprocess", "-seeds", "1:1"}, &out, &errw); err != nil {
		t.Fatalf("seed 1: %v\n%s%s", err, out.String(), errw.String())
	}
	if !strings.Contains(out.String(), "seed 1: ok") || !strings.Contains(out.String(), "1 seeds, 0 failed") {
		t.Errorf("output:\n%s", out.String())
	}
}
