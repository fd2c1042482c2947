// Package workloadtest is what the tests of every library's chaos
// package share: the test binary as a child of a run, a short run and
// its checks, and the checks of a child's and a run's settings.
package workloadtest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/targetsim"
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

// Short sets c to a run the tests can afford: design d on 3 processes
// (1 never killed) of 3 jobs at once, 30 documents, kills kills, no
// freeze, children started from the test binary with childFlag first
// (see Main). The library's test sets its drain and timeout.
func Short(c *workload.Config, d targetsim.Design, kills int, childFlag string) {
	c.Design, c.Workers, c.Steady, c.Concurrency, c.Jobs, c.Kills = d, 3, 1, 3, 30, kills
	c.PauseEvery, c.Zombies = 0, 0
	c.Exe, c.ExeArgs = os.Args[0], []string{childFlag}
}

// Run runs c with run (a library's Run), failing t if the run did not
// finish, and returns its report and the report's text, logged with how
// long the run took.
func Run[C any, R interface{ Print(io.Writer) }](t testing.TB, c C, run func(context.Context, C) (R, error)) (R, string) {
	t.Helper()
	start := time.Now()
	rep, err := run(context.Background(), c)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep, Printed(t, rep, time.Since(start))
}

// Printed is a finished run's report as text, logged with how long the
// run took.
func Printed(t testing.TB, r interface{ Print(io.Writer) }, took time.Duration) string {
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

// Passed fails t unless the run of a correct handler held every check and
// drained, its kills landed as Killed wants, the report out says every
// check holds, and every completed document has exactly one effect.
func Passed(t testing.TB, r *workload.Report, out string, kills int) {
	t.Helper()
	if !r.OK() || !r.Drained {
		t.Fatalf("the correct handler failed (drained %v):\n%s", r.Drained, out)
	}
	Killed(t, r, kills)
	Hold(t, r, out)
	if r.Effects != r.CompletedDocs || r.DuplicateDocs != 0 || r.MissingDocs != 0 {
		t.Errorf("effects %d for %d completed documents (%d duplicated, %d missing)", r.Effects, r.CompletedDocs, r.DuplicateDocs, r.MissingDocs)
	}
}

// Duplicated fails t unless target-effect-once alone caught the run and
// a document has two effects: the failure of a handler that writes its
// effect with no key, killed after the effect.
func Duplicated(t testing.TB, r *workload.Report, out string) {
	t.Helper()
	CaughtBy(t, r, out, invariants.TargetEffectOnce)
	if r.DuplicateDocs == 0 {
		t.Errorf("no document with two effects:\n%s", out)
	}
}

// Missed fails t unless target-effect-once caught the run and a
// completed document has no effect: the failure of a key that leaves
// the tenant out (two tenants' documents of one name share it). The
// histories the run kept are removed.
func Missed(t testing.TB, r *workload.Report, out string) {
	t.Helper()
	if r.OK() || !LineHas(out, invariants.TargetEffectOnce+" ", "VIOLATED") || r.MissingDocs == 0 {
		t.Fatalf("key-without-tenant not caught:\n%s", out)
	}
	os.RemoveAll(r.Dir)
}

// Flagged is a child configuration as its flags leave it given no
// argument: its defaults.
func Flagged[C any, P interface {
	*C
	Flags(*flag.FlagSet)
}]() C {
	var c C
	P(&c).Flags(flag.NewFlagSet("child", flag.ContinueOnError))
	return c
}

// ArgsRoundTrip fails t unless each child configuration's command line
// (its Args) parses back with its Flags into it; keep copies from c to
// the parsed configuration what the command line does not carry (the
// addresses of the queue and the database).
func ArgsRoundTrip[C interface {
	comparable
	Args() []string
}, P interface {
	*C
	Flags(*flag.FlagSet)
}](t testing.TB, cs []C, keep func(parsed *C, c C)) {
	t.Helper()
	for _, c := range cs {
		var got C
		fs := flag.NewFlagSet("child", flag.ContinueOnError)
		P(&got).Flags(fs)
		if err := fs.Parse(c.Args()); err != nil {
			t.Fatalf("%q: %v", c.Args(), err)
		}
		keep(&got, c)
		if got != c {
			t.Errorf("%q parsed back as\n%+v, want\n%+v", c.Args(), got, c)
		}
	}
}

// Refused fails t unless validate accepts ok and refuses, with a
// one-line error, each copy of ok that one of bad changes.
func Refused[C any](t testing.TB, ok C, validate func(C) error, bad map[string]func(*C)) {
	t.Helper()
	refused(t, ok, validate, bad, "a one-line error", func(error) bool { return true })
}

// RefusedUsage is Refused with each error a one-line *crash.UsageError,
// as a run's settings are refused.
func RefusedUsage[C any](t testing.TB, ok C, validate func(C) error, bad map[string]func(*C)) {
	t.Helper()
	refused(t, ok, validate, bad, "a one-line UsageError", func(err error) bool {
		var ue *crash.UsageError
		return errors.As(err, &ue)
	})
}

func refused[C any](t testing.TB, ok C, validate func(C) error, bad map[string]func(*C), want string, kind func(error) bool) {
	t.Helper()
	if err := validate(ok); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for name, mod := range bad {
		c := ok
		mod(&c)
		if err := validate(c); err == nil || !kind(err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Validate = %v, want %s", name, err, want)
		}
	}
}
