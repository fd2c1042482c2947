package crash

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/durasim/durasim/boundary"
)

// Settings are the parts of a run's configuration every workload has,
// each a flag of `durasim chaos`.
type Settings struct {
	Kills      int           // SIGKILLs to land at kill points (and at least one at each point, when Kills is not below their number)
	Seed       uint64        // seeds the kill-point hand-out (timing is real: runs differ anyway)
	PauseEvery time.Duration // how often the kill phase asks the workload for a child to freeze; 0 never
	// Reach bounds how long a child may live, awake, without reaching
	// its kill point: past it the child is stopped and the run ends,
	// naming the point (it cannot be reached, or not often enough).
	Reach   time.Duration
	Timeout time.Duration // the whole run
	Drain   time.Duration // the drain after the kill phase
	Dir     string        // histories and logs; "" a temporary directory, removed after a passing run
	Exe     string        // the binary the children run; "" this one
	Log     io.Writer     // progress lines; nil none
}

// DefaultReach is Settings.Reach's default: far above any point's wait
// in a run that works (a rare point, the operator's, is crossed a few
// times a second), far below a run's timeout.
const DefaultReach = time.Minute

// Check reports the first bad setting as a one-line *UsageError.
func (s Settings) Check() error {
	switch {
	case s.Kills < 0:
		return Usage("-kills must be >= 0 (got %d)", s.Kills)
	case s.Timeout <= 0 || s.Drain <= 0 || s.Reach <= 0:
		return Usage("-timeout, -drain and -reach must be > 0")
	case s.PauseEvery < 0:
		return Usage("-pause-every must be >= 0 (got %v)", s.PauseEvery)
	}
	return nil
}

// Role is one kind of child a workload runs: a worker, a relay, River's
// client.
type Role struct {
	Name   string // as the workload's children are told it
	Prefix string // of its children's names: w → w3, w3.1 (ProcName)
	Slots  int    // children at once, in slots 0 to Slots-1
	Steady int    // slots 0 to Steady-1 are never given a kill point
	// Points are where its children can be killed.
	Points boundary.Set
	// Stmts is the number of statement boundaries of each inside point
	// (between two statements of one operation); other points are absent.
	Stmts map[boundary.Boundary]int
	// MaxNth: a point handed out once every point had its kill, or with
	// Kills below their number, dies at one of its first MaxNth
	// crossings (0: 3). A role that crosses its points many times a
	// second takes a larger one, so that it does not take most kills.
	MaxNth int
}

func (r Role) maxNth() int {
	if r.MaxNth < 1 {
		return 3
	}
	return r.MaxNth
}

// killable reports whether some slot of r gets kill points.
func (r Role) killable() bool { return r.Slots > r.Steady && len(r.Points.List()) > 0 }

// Config is a run of the supervisor: the settings and what the workload
// declares.
type Config struct {
	Settings
	Name   string // the workload, in log lines and the temporary directory's name
	Stream uint64 // the hand-out's random stream, with Seed
	Roles  []Role
	Env    []string      // added to each child's environment (a URL kept out of argv, so out of ps)
	Tick   time.Duration // how often Workload.Tick and Workload.Drained run (0: 50 ms)
	// DrainDelay is a wait between the kill phase and the drain (River's:
	// until the jobs killed last are past RescueStuckJobsAfter).
	DrainDelay time.Duration
	StopWait   time.Duration // how long a stopped child may take before its SIGKILL, a hard stop (0: 30 s)
}

// DefaultStopWait is Config.StopWait's default.
const DefaultStopWait = 30 * time.Second

func (c Config) tick() time.Duration {
	if c.Tick <= 0 {
		return 50 * time.Millisecond
	}
	return c.Tick
}

func (c Config) stopWait() time.Duration {
	if c.StopWait <= 0 {
		return DefaultStopWait
	}
	return c.StopWait
}

// Child is one process of a run, as the workload sees it.
type Child struct {
	Role    string
	Slot    int
	Inc     int        // incarnation: how many times the slot was started before, over both generations
	Name    string     // ProcName(role's prefix, slot, inc)
	Killing bool       // of the killing generation (else the drain's)
	Kill    Assignment // its kill point; the zero value: none
	Frozen  bool       // (in Workload.Freeze's list) SIGSTOPped now
	History string     // its history file
	Log     string     // its stdout and stderr
}

// Workload is a system under the supervisor: what its children run and
// what happens around them. The supervisor calls its methods from
// several goroutines at once.
type Workload interface {
	// Args is child c's command line, after the binary.
	Args(c Child) []string
	// Tick runs every Config.Tick of the kill phase: keep work coming,
	// note what the system does. An error ends the run.
	Tick(ctx context.Context) error
	// Drained runs every Config.Tick of the drain: true ends it.
	Drained(ctx context.Context) (bool, error)
	// Ended is told each child's end, before the supervisor classifies it.
	Ended(c Child)
	// Freeze runs every Settings.PauseEvery of the kill phase with the
	// children running (those frozen marked so); it names one that is
	// not frozen to freeze, and how it thaws, or returns nil.
	Freeze(ctx context.Context, running []Child) *Freeze
	// Goal reports whether the workload's own goals for the kill phase
	// are met (the supervisor's: its kills), and its progress for the log.
	Goal() (met bool, progress string)
}

// Freeze is one SIGSTOP: the child, and when its SIGCONT comes: as soon
// as Thaw says so, after Max at the latest, or when its generation
// stops.
type Freeze struct {
	Child string        // a running child's Name
	Max   time.Duration // thawed after this long at the latest (ThawMax)
	Poll  time.Duration // how often Thaw is asked (0: 25 ms)
	// Thaw says whether to thaw now, and why (its history's word); nil:
	// at Max.
	Thaw func(ctx context.Context) (why string, now bool)
	// Frozen runs once the child is stopped; Thawing just before its
	// SIGCONT, with why: Thaw's reason, ThawMax or ThawStopping. Either
	// may be nil.
	Frozen  func(ctx context.Context)
	Thawing func(why string)
}

// The reasons of a thaw that are the supervisor's.
const (
	ThawMax      = "max_freeze" // Freeze.Max ran out
	ThawStopping = "stopping"   // the generation stops
)

// UsageError is bad input: a flag out of range, a server that does not
// connect, a -dir that holds histories. The command exits 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage is a *UsageError with a formatted message.
func Usage(format string, args ...any) error { return &UsageError{fmt.Errorf(format, args...)} }
