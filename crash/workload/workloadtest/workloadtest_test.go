package workloadtest

import (
	"errors"
	"flag"
	"runtime"
	"strconv"
	"testing"

	"github.com/durasim/durasim/crash"
)

// recorder is a testing.TB that notes a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// fails reports whether check failed the recorder it was given.
func fails(t *testing.T, check func(testing.TB)) bool {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.failed
}

// child is a child configuration of one flag; lossy's Args forgets it.
type child struct {
	N     int
	DB    string
	lossy bool
}

func (c *child) Flags(fs *flag.FlagSet) { fs.IntVar(&c.N, "n", 3, "a number") }

func (c child) Args() []string {
	if c.lossy {
		return nil
	}
	return []string{"-n", strconv.Itoa(c.N)}
}

func TestFlagged(t *testing.T) {
	if c := Flagged[child](); c.N != 3 {
		t.Errorf("Flagged: %+v, want the flag's default 3", c)
	}
}

func TestArgsRoundTrip(t *testing.T) {
	keep := func(got *child, c child) { got.DB, got.lossy = c.DB, c.lossy }
	if fails(t, func(tb testing.TB) { ArgsRoundTrip(tb, []child{{N: 7, DB: "x"}, {N: 0}}, keep) }) {
		t.Error("a command line that parses back failed")
	}
	if !fails(t, func(tb testing.TB) { ArgsRoundTrip(tb, []child{{N: 7, lossy: true}}, keep) }) {
		t.Error("a command line that forgets -n passed")
	}
	if !fails(t, func(tb testing.TB) { ArgsRoundTrip(tb, []child{{N: 7, DB: "x"}}, func(*child, child) {}) }) {
		t.Error("a database the parse cannot carry, not kept, passed")
	}
}

func TestRefused(t *testing.T) {
	plain := func(c child) error {
		switch {
		case c.N < 1:
			return errors.New("-n must be >= 1")
		case c.N > 9:
			return errors.New("-n must be\nat most 9")
		}
		return nil
	}
	usage := func(c child) error {
		if c.N < 1 {
			return crash.Usage("-n must be >= 1 (got %d)", c.N)
		}
		return nil
	}
	zero := map[string]func(*child){"n 0": func(c *child) { c.N = 0 }}
	for name, tc := range map[string]struct {
		check func(testing.TB)
		fail  bool
	}{
		"refused":          {func(tb testing.TB) { Refused(tb, child{N: 3}, plain, zero) }, false},
		"usage refused":    {func(tb testing.TB) { RefusedUsage(tb, child{N: 3}, usage, zero) }, false},
		"defaults refused": {func(tb testing.TB) { Refused(tb, child{N: 0}, plain, zero) }, true},
		"bad accepted": {func(tb testing.TB) {
			Refused(tb, child{N: 3}, plain, map[string]func(*child){"n 5": func(c *child) { c.N = 5 }})
		}, true},
		"two-line error": {func(tb testing.TB) {
			Refused(tb, child{N: 3}, plain, map[string]func(*child){"n 10": func(c *child) { c.N = 10 }})
		}, true},
		"not a usage error": {func(tb testing.TB) { RefusedUsage(tb, child{N: 3}, plain, zero) }, true},
		"usage error, accepted": {func(tb testing.TB) {
			RefusedUsage(tb, child{N: 3}, usage, map[string]func(*child){"n 5": func(c *child) { c.N = 5 }})
		}, true},
	} {
		if got := fails(t, tc.check); got != tc.fail {
			t.Errorf("%s: failed %v, want %v", name, got, tc.fail)
		}
	}
}
