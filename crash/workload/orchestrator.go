package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// Adapter is what a library brings to the workload: its client's calls
// and its state read back. Its child (a worker process of the library's
// own client, its handler a [Handler]) is a command of its own, whose
// flags Args writes.
type Adapter interface {
	// Args is child c's flags, after the child command (the library's,
	// and Child.Args's).
	Args(c crash.Child) []string
	// Insert inserts document i through the library's client; the line
	// it returns carries what the library answered: Job (the seam's job
	// number), Skipped, Unique, Msg. The workload adds the rest.
	Insert(ctx context.Context, i int, a DocArgs) (Entry, error)
	// Available is how many jobs wait to be fetched now: the kill phase
	// keeps a backlog.
	Available(ctx context.Context) (int, error)
	// Live is how many jobs are not finished: the drain ends at none.
	Live(ctx context.Context) (int, error)
	// TakenOver reports whether another child has fetched h's job since
	// h's child (frozen) did.
	TakenOver(ctx context.Context, h Holding) bool
	// Snapshot reads back every job of documents 1 to docs and every
	// effect, with times relative to base.
	Snapshot(ctx context.Context, docs int, base time.Time) (target.Snapshot, error)
	// Describe adds the library's lines and checks to a finished run's
	// report: its Header at least.
	Describe(r *Report)
}

// Ticker is an adapter that notes something of the library's on every
// tick of both phases (River: its leader).
type Ticker interface{ Tick(ctx context.Context) }

// Spec is one library's chaos run.
type Spec struct {
	Config  Config
	Lib     string // the library, in messages: "asynq"
	Name    string // the workload: the supervisor's log lines and temporary directory
	Role    string // the child command: "asynq-worker"
	Stream  uint64 // the kill-point hand-out's random stream; the workload's is Stream+1
	Env     []string
	Adapter Adapter
	Feed    invariants.TargetFeed // what the histories give the checks, and the library's policy
	// Unique: the library refuses a second insert of a document whose
	// job is live, so the feed inserts every fifth document twice (and
	// re-inserts earlier ones) to probe it; a library without unique
	// inserts gets each document once.
	Unique     bool
	DrainDelay time.Duration // between the kill phase and the drain
	StopWait   time.Duration // a stop's wait before its SIGKILL (0: crash's default)
	Poll       time.Duration // how often a freeze asks TakenOver
	Start      time.Time     // the run's time base
}

// Run runs a library's chaos campaign on package crash's supervisor and
// checks it. The error is a *crash.UsageError for bad input, another
// error when the run could not finish (a child died of something else
// than its kill point, a point was not reached within -reach, the run's
// timeout); a finished run returns its report, whose OK says whether
// every check held. A drain that does not end in time is a finished run:
// target-drained names what is left.
func Run(ctx context.Context, s Spec) (*Report, error) {
	sup, err := crash.New(crash.Config{Settings: s.Config.Settings, Name: s.Name, Stream: s.Stream,
		Roles: []crash.Role{{Name: s.Role, Prefix: "w", Slots: s.Config.Workers, Steady: s.Config.Steady, Points: Points(s.Lib, s.Config.Design)}},
		Env:   s.Env, Tick: 100 * time.Millisecond, DrainDelay: s.DrainDelay, StopWait: s.StopWait})
	if err != nil {
		return nil, err
	}
	o := &orch{s: s, dir: sup.Dir(), rng: rand.New(rand.NewPCG(s.Config.Seed, s.Stream+1))}
	if o.hist, err = OpenHistory(filepath.Join(o.dir, "client.jsonl"), "client", "durasim chaos -target "+s.Lib); err != nil {
		return nil, err
	}
	defer o.hist.Close()
	return o.run(ctx, sup)
}

// orch is the workload on the supervisor: it inserts the documents
// through the library's client, tells each child its flags, picks the
// children to freeze and sees when the library handed a frozen child's
// job to another.
type orch struct {
	s    Spec
	dir  string
	hist *History

	mu        sync.Mutex
	rng       *rand.Rand
	docs      int // documents inserted so far: DocOf(1) to DocOf(docs)
	inserts   int
	skipped   int
	takeovers int
	// maxFreezes ended at MaxFreeze, stopFreezes with their generation.
	maxFreezes, stopFreezes int
	freezing                int
}

// run inserts the first documents, runs the supervisor, and checks what
// it left; a passing run's temporary directory is removed.
func (o *orch) run(ctx context.Context, sup *crash.Supervisor) (*Report, error) {
	for i := 1; i <= o.s.Config.Jobs; i++ {
		if err := o.insert(ctx, i); err != nil {
			return nil, err
		}
		if o.s.Unique && i%5 == 0 {
			if err := o.insert(ctx, i); err != nil {
				return nil, err
			}
		}
	}
	res, err := sup.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	lines, err := crash.ReadHistories[Entry](o.dir)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	docs := o.docs
	o.mu.Unlock()
	snap, err := o.s.Adapter.Snapshot(ctx, docs, o.s.Start)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	c := o.s.Config
	rep := &Report{Lib: o.s.Lib, Design: c.Design, Workers: c.Workers, Steady: c.Steady, Concurrency: c.Concurrency, Seed: c.Seed,
		Target: c.Kills, Points: Points(o.s.Lib, c.Design).List(), Kills: res.Kills, Restarts: res.Restarts, HardStops: res.HardStops,
		Pauses: res.Freezes, Takeovers: o.takeovers, MaxFreezes: o.maxFreezes, StopFreezes: o.stopFreezes,
		Inserts: o.inserts, Skipped: o.skipped, Unique: o.s.Unique,
		KillPhase: res.KillPhase, DrainPhase: res.DrainPhase, DrainDelay: o.s.DrainDelay, DrainLimit: c.Drain, Drained: res.Drained}
	o.mu.Unlock()
	rep.check(lines, snap, o.s.Start.UnixNano(), o.s.Feed)
	o.s.Adapter.Describe(rep)
	rep.Elapsed, rep.Dir = time.Since(o.s.Start), sup.Finish(rep.OK())
	return rep, nil
}

// Args is a child's command line: the library's child command with its
// flags.
func (o *orch) Args(c crash.Child) []string {
	args := o.s.Config.ExeArgs
	if args == nil {
		args = []string{o.s.Role}
	}
	return append(append([]string(nil), args...), o.s.Adapter.Args(c)...)
}

// Ended: the children leave nothing to carry to the next.
func (o *orch) Ended(crash.Child) {}

// Goal: -zombies freezes ended in a takeover.
func (o *orch) Goal() (bool, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.takeovers >= o.s.Config.Zombies, fmt.Sprintf(", %d/%d takeovers, %d frozen", o.takeovers, o.s.Config.Zombies, o.freezing)
}

// Tick keeps a backlog of available jobs while the kill phase lasts; for
// a library with unique inserts, a fifth of the time it also inserts an
// earlier document again (refused while its job is live).
func (o *orch) Tick(ctx context.Context) error {
	avail, err := o.s.Adapter.Available(ctx)
	if err != nil {
		return err
	}
	for ; avail < 2*o.s.Config.Workers*o.s.Config.Concurrency; avail++ {
		o.mu.Lock()
		next, again := o.docs+1, 1+o.rng.IntN(o.docs)
		dup := o.rng.IntN(5) == 0 && o.s.Unique
		o.mu.Unlock()
		if err := o.insert(ctx, next); err != nil {
			return err
		}
		if dup {
			if err := o.insert(ctx, again); err != nil {
				return err
			}
		}
	}
	if t, ok := o.s.Adapter.(Ticker); ok {
		t.Tick(ctx)
	}
	return nil
}

// Drained: every job finished.
func (o *orch) Drained(ctx context.Context) (bool, error) {
	live, err := o.s.Adapter.Live(ctx)
	if t, ok := o.s.Adapter.(Ticker); ok {
		t.Tick(ctx)
	}
	return err == nil && live == 0, err
}

// insert inserts document i through the library's client and writes the
// client's history line.
func (o *orch) insert(ctx context.Context, i int) error {
	a := DocOf(i)
	t0 := Stamp()
	e, err := o.s.Adapter.Insert(ctx, i, a)
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	e.Op, e.Tenant, e.Doc, e.Version, e.Max, e.T0, e.T1 = OpInsert, a.Tenant, a.Doc, a.Version, o.s.Config.MaxAttempts, t0, Stamp()
	o.hist.Write(e)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs = max(o.docs, i)
	o.inserts++
	if e.Skipped {
		o.skipped++
	}
	return nil
}
