// Package workloadtest is what the tests of every library's chaos
// package share: the test binary as a child of a run, and the checks of a
// finished run's report.
package workloadtest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/crash/workload"
)

// Child is a library's child configuration (its ChildConfig).
type Child interface {
	Flags(*flag.FlagSet)
	Run(context.Context) error
}

// Main is a chaos package's TestMain body. With childFlag first on the
// command line the test binary is a child of a run (the end-to-end tests
// start their children from the test binary itself, so they need no
// durasim binary): the child's flags, then its Run, as `durasim
// <name>` does; else run(m).
func Main(m *testing.M, childFlag, name string, child Child, run func(*testing.M) int) int {
	if len(os.Args) < 2 || os.Args[1] != childFlag {
		return run(m)
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	child.Flags(fs)
	if err := fs.Parse(os.Args[2:]); err != nil {
		return 2
	}
	if err := child.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return 1
	}
	return 0
}

// Printed is a finished run's report as text, logged with how long the
// run took.
func Printed(t testing.TB, r *workload.Report, took time.Duration) string {
	t.Helper()
	var out bytes.Buffer
	r.Print(&out)
	t.Logf("run took %v:\n%s", took.Round(time.Millisecond), out.String())
	return out.String()
}

// LineHas reports whether out's line that starts with prefix contains s.
func LineHas(out, prefix, s string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.Contains(l, s)
		}
	}
	return false
}

// Killed fails t unless every kill point had a kill and its kill line,
// at least want kills landed, each was restarted, and no stop was hard.
func Killed(t testing.TB, r *workload.Report, want int) {
	t.Helper()
	for _, p := range r.Points {
		if r.Kills[p] == 0 || r.KillLines[p.String()] < r.Kills[p] {
			t.Errorf("point %s: %d kills, %d kill lines", p, r.Kills[p], r.KillLines[p.String()])
		}
	}
	if total := r.TotalKills(); total < want || r.Restarts != total || r.HardStops != 0 {
		t.Errorf("%d kills (want %d), %d restarts, %d hard stops", total, want, r.Restarts, r.HardStops)
	}
}

// Hold fails t unless the report out says holds on the line of every
// check the run checked.
func Hold(t testing.TB, r *workload.Report, out string) {
	t.Helper()
	for _, name := range r.Checked {
		if !LineHas(out, name+" ", "holds") {
			t.Errorf("report line of %s does not say holds", name)
		}
	}
}

// CaughtBy fails t unless the run failed, the report's line of check
// says VIOLATED, and no other check was violated; the histories it kept
// are removed.
func CaughtBy(t testing.TB, r *workload.Report, out, check string) {
	t.Helper()
	if r.OK() || !LineHas(out, check+" ", "VIOLATED") {
		t.Fatalf("not caught by %s:\n%s", check, out)
	}
	for _, v := range r.Violations {
		if v.Invariant != check {
			t.Errorf("violation of another check: %s", v)
		}
	}
	if r.Dir == "" {
		t.Error("a failing run removed its histories")
	}
	os.RemoveAll(r.Dir)
}
