package crash

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
)

// fakeEnv, set in a child's environment, makes the test binary a fake
// child (fakeChild) instead of running the tests: the supervisor is
// tested on real processes and real signals, without a database.
const fakeEnv = "DURASIM_CRASH_FAKE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		os.Exit(fakeChild(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeLine is the fake child's history line: a Mark's fields and one of
// its own.
type fakeLine struct {
	Op    string `json:"op"`
	Proc  string `json:"proc,omitempty"`
	Point string `json:"point,omitempty"`
	Stmt  int    `json:"stmt,omitempty"`
	Round int    `json:"round,omitempty"`
	T0    int64  `json:"t0,omitempty"`
	T1    int64  `json:"t1,omitempty"`
}

func (l fakeLine) Stamped(proc string) fakeLine { l.Proc = proc; return l }

func (l fakeLine) Marked(m Mark) fakeLine {
	l.Op, l.Point, l.Stmt, l.T0, l.T1 = m.Op, m.Point, m.Stmt, m.T0, m.T1
	return l
}

// The fake system: a worker crosses after_lease, then runs a commit of
// -stmts statements (inside_commit_after_stmt between each two), then
// crosses after_ack; a relay crosses relay_after_claim. A round every
// 2 ms, each with a line.
var (
	fakeWorker = boundary.NewSet("fake worker", boundary.AfterLease, boundary.InsideCommitAfterStmt, boundary.AfterAck)
	fakeRelay  = boundary.NewSet("fake relay", boundary.RelayAfterClaim)
	fakeStmts  = map[boundary.Boundary]int{boundary.InsideCommitAfterStmt: 2}
	// fakeAny is every point a fake child may be told, crossed or not.
	fakeAny = boundary.NewSet("fake", append(fakeWorker.List(), boundary.RelayAfterClaim, boundary.RelayAfterPublishBeforeMark)...)
)

// fakeChild is a child of the fake system. -mode: "work" crosses its
// points until SIGTERM; "deaf" also ignores SIGTERM; "die" exits 1
// before its first round.
func fakeChild(args []string) int {
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	var kill Assignment
	kill.Flags(fs)
	hist := fs.String("history", "", "")
	name := fs.String("name", "", "")
	role := fs.String("role", "worker", "")
	mode := fs.String("mode", "work", "")
	stmts := fs.Int("stmts", 3, "statements of the commit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	set := map[string]boundary.Set{"worker": fakeWorker, "relay": fakeRelay}[*role]
	if err := kill.Check(fakeAny, fakeStmts); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 2
	}
	ctx, h, end, err := Begin(context.Background(), *hist, *name, "fake", fakeLine{Op: "start", Point: kill.At.String()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	defer end()
	if *mode == "deaf" {
		signal.Ignore(syscall.SIGTERM)
	}
	k := &Killer[fakeLine]{Assignment: kill, Hist: h}
	defer k.Disarm()
	for round := 1; ; round++ {
		if *mode != "deaf" && ctx.Err() != nil {
			return 0
		}
		if *mode == "die" {
			fmt.Fprintln(os.Stderr, "fake: boom")
			return 1
		}
		t := time.Now().UnixNano()
		e := fakeLine{Op: "round", Round: round, T0: t, T1: t}
		h.Write(e)
		for _, p := range set.List() {
			if p == boundary.InsideCommitAfterStmt {
				for n := 1; n < *stmts; n++ {
					k.CrossAt(p, n, e)
				}
				k.Through(p, max(*stmts-1, 0))
				continue
			}
			k.Cross(p, e)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// fakeSystem is the fake children's workload: what each is told, and
// what the supervisor told the workload.
type fakeSystem struct {
	mode   func(Child) string // each child's -mode (nil: work)
	stmts  int                // each worker's commit statements (0: 3)
	freeze func(running []Child) *Freeze
	goal   func() bool // nil: met

	slots int // the drain generation's children (runFake sets it from the roles)

	mu    sync.Mutex
	ended []Child
	drain []string // the drain's children's histories
}

func (f *fakeSystem) Args(c Child) []string {
	if !c.Killing {
		f.mu.Lock()
		f.drain = append(f.drain, c.History)
		f.mu.Unlock()
	}
	mode, stmts := "work", 3
	if f.mode != nil {
		mode = f.mode(c)
	}
	if f.stmts > 0 {
		stmts = f.stmts
	}
	return append([]string{"-history", c.History, "-name", c.Name, "-role", c.Role, "-mode", mode, "-stmts", strconv.Itoa(stmts)},
		c.Kill.Args()...)
}

func (f *fakeSystem) Tick(context.Context) error { return nil }

// Drained: once every one of the drain's children has started and run a
// round (a stop before it would find it not yet listening; its slots
// start on goroutines of their own, so the last may not have started).
func (f *fakeSystem) Drained(context.Context) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.drain) < f.slots {
		return false, nil
	}
	for _, h := range f.drain {
		if !ranARound(Child{History: h}) {
			return false, nil
		}
	}
	return len(f.drain) > 0, nil
}

func (f *fakeSystem) Ended(c Child) { f.mu.Lock(); f.ended = append(f.ended, c); f.mu.Unlock() }

func (f *fakeSystem) Freeze(_ context.Context, running []Child) *Freeze {
	if f.freeze == nil {
		return nil
	}
	return f.freeze(running)
}

func (f *fakeSystem) Goal() (bool, string) {
	if f.goal == nil {
		return true, ""
	}
	return f.goal(), ", fake goal"
}

// fakeConfig is a supervisor of two fake workers and a fake relay
// (MaxNth 5), the fake binary being this test binary.
func fakeConfig(t *testing.T, kills int) Config {
	t.Helper()
	return Config{
		Settings: Settings{Kills: kills, Seed: 7, Reach: 20 * time.Second, Timeout: 60 * time.Second, Drain: 20 * time.Second,
			Dir: t.TempDir(), Exe: os.Args[0]},
		Name: "fake", Stream: 1, Env: []string{fakeEnv + "=1"}, Tick: 10 * time.Millisecond,
		Roles: []Role{
			{Name: "worker", Prefix: "w", Slots: 2, Points: fakeWorker, Stmts: fakeStmts},
			{Name: "relay", Prefix: "relay", Slots: 1, Points: fakeRelay, MaxNth: 5},
		},
	}
}

func runFake(t *testing.T, cfg Config, f *fakeSystem) (Result, error) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cfg.Roles {
		f.slots += r.Slots
	}
	return s.Run(context.Background(), f)
}

// oneLine fails the test unless err is a one-line error containing each
// of want.
func oneLine(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one with %q", want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error of more than one line: %q", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		t.Errorf("a run's failure is a UsageError: %v", err)
	}
}
