package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/riverinproc"
	"github.com/durasim/durasim/targetsim"
)

// The in-process mode's reproduce line, as printed, parses back through
// the CLI's own flags into the configuration that printed it: the CLI
// defines every flag riverinproc.Config's settings have.
func TestChaosRiverInprocessCommandRoundTrips(t *testing.T) {
	for _, name := range riverinproc.FlagNames() {
		if inprocFlags(&riverinproc.Config{}).Lookup(name) == nil {
			t.Errorf("chaos -inprocess has no -%s, which riverinproc.Config.Flags prints", name)
		}
	}
	c := riverinproc.DefaultConfig()
	c.Design, c.Workers, c.Kills, c.RescueAfter, c.Reruns = targetsim.IdempotentKey, 5, 9, 42*time.Second, 3
	words := repro.ShellWords(c.Command("durasim", 11))
	back := riverinproc.DefaultConfig()
	if err := inprocFlags(&back).Parse(words[2:]); err != nil {
		t.Fatalf("%q: %v", words, err)
	}
	want := c
	want.Seeds = "11:11"
	if back != want {
		t.Errorf("%q parsed back as %+v, want %+v", words, back, want)
	}
}

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

// A failing in-process seed prints a shrunk deterministic plan beside
// its reproduction rate, and that command, run through the CLI's own
// entry point as printed, fails the same check.
func TestChaosRiverInprocessShrunkPlanFails(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: an in-process run (riverinproc's tests check the shrunk plan too)")
	}
	var out, errw bytes.Buffer
	err := cmdChaos([]string{"-target", "river", "-inprocess", "-design", "effect-outside-tx", "-seeds", "4:4", "-reruns", "0"}, &out, &errw)
	if err != errViolation {
		t.Fatalf("effect-outside-tx seed 4: %v, want a violation\n%s", err, out.String())
	}
	_, line, ok := strings.Cut(out.String(), "shrunk to a deterministic plan failing target-effect-once")
	if !ok {
		t.Fatalf("no shrunk plan printed:\n%s", out.String())
	}
	_, cmd, _ := strings.Cut(strings.SplitN(line, "\n", 2)[0], ": ")
	words := repro.ShellWords(cmd)
	i := 0
	for i < len(words)-2 && (words[i] != "run" || words[i+1] != "-target" || words[i+2] != "river") {
		i++
	}
	if i >= len(words)-2 {
		t.Fatalf("shrunk command %q", cmd)
	}
	words = words[i:] // from the verb: the CLI's run(args)
	var rout, rerr bytes.Buffer
	if code := run(words, &rout, &rerr); code != 1 || !strings.Contains(rout.String(), "target-effect-once         the handler's effects  VIOLATED") {
		t.Errorf("%s: status %d, want 1 with target-effect-once violated\n%s%s", cmd, code, rout.String(), rerr.String())
	}
}
