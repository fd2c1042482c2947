package riverinproc

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/internal/bubble"
	"github.com/durasim/durasim/riverchaos"
	"github.com/durasim/durasim/target/effectsql"
	"github.com/durasim/durasim/target/rivertarget"
)

// bubbleStart is what the bubble's clock reads when a run starts.
var bubbleStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// tick is how often the orchestrator looks (River's time).
const tick = 100 * time.Millisecond

// RunSeed runs seed of c in a bubble of r and checks it. The error is a
// run that could not finish (the database, River refusing its config).
func RunSeed(r *bubble.Runner, c Config, seed uint64) (*workload.Report, error) {
	o, err := runSeed(r, c, seed)
	if o == nil {
		return nil, err
	}
	return o.rep, err
}

// outcome is a seed's run: its report, and the histories it was checked
// on (every client's lines, each killed one's cut at its kill), which
// the shrinker reads.
type outcome struct {
	rep   *workload.Report
	lines []workload.Entry
}

func runSeed(r *bubble.Runner, c Config, seed uint64) (*outcome, error) {
	dir, err := os.MkdirTemp("", "durasim-riverinproc-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var o *outcome
	var rerr error
	real0 := time.Now()
	if err := r.At(bubbleStart, func() { o, rerr = runIn(c, seed, filepath.Join(dir, "river.db")) }); err != nil {
		return nil, err
	}
	if o != nil {
		o.rep.Elapsed = time.Since(real0)
	}
	return o, rerr
}

// inc is one incarnation of a slot: one River client on its own gated
// connections.
type inc struct {
	slot, n int
	name    string
	ctl     *ctl
	db      *sql.DB
	client  *river.Client[*sql.Tx]
	hist    *workload.History
	mu      sync.Mutex
	lines   []workload.Entry // its history as of its kill: nothing after it counts
	killed  bool
}

func (i *inc) entries() []workload.Entry {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.killed {
		return i.lines
	}
	return i.hist.Entries()
}

type freeze struct {
	i     *inc
	h     workload.Holding
	since time.Time
}

type run struct {
	c      Config
	seed   uint64
	dsn    string
	lock   dbLock
	rng    *rand.Rand
	admin  *sql.DB
	exec   riverdriver.Executor
	client *river.Client[*sql.Tx] // inserts only, never started
	hist   *workload.History
	logger *slog.Logger

	slots    []*inc
	all      []*inc
	kills    chan *inc
	stops    sync.WaitGroup
	handed   int // kill points handed out
	points   []boundary.Boundary
	landed   map[boundary.Boundary]int
	restarts int
	docs     int
	inserts  int
	skipped  int
	killing  bool
	frozen   []*freeze
	pauses   int
	takeover int
	maxFrz   int
	stopFrz  int
	phases   phases
}

func runIn(c Config, seed uint64, path string) (*outcome, error) {
	ctx := context.Background()
	start := time.Now()
	r := &run{c: c, seed: seed, lock: make(dbLock, 1), rng: rand.New(rand.NewPCG(seed, 0x1b40c)),
		dsn:    "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		hist:   &workload.History{Proc: "client"},
		logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		kills:  make(chan *inc, 64), landed: map[boundary.Boundary]int{}, killing: true}
	r.points = workload.Points("River", c.Design).List()
	r.admin = openDB(r.dsn, &ctl{}, r.lock, 2)
	defer r.admin.Close()
	drv := riversqlite.New(r.admin)
	r.exec = drv.GetExecutor()
	m, err := rivermigrate.New(drv, &rivermigrate.Config{Logger: r.logger})
	if err != nil {
		return nil, err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("rivermigrate: %w", err)
	}
	for _, q := range effectsql.Schema("INTEGER PRIMARY KEY AUTOINCREMENT") {
		if _, err := r.admin.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	if r.client, err = river.NewClient(drv, &river.Config{ID: "client", SkipUnknownJobCheck: true, Logger: r.logger, Test: river.TestConfig{Time: clock{}}}); err != nil {
		return nil, err
	}
	for i := 1; i <= c.Jobs; i++ {
		if err := r.insert(ctx, i); err != nil {
			return nil, err
		}
		if i%5 == 0 {
			if err := r.insert(ctx, i); err != nil {
				return nil, err
			}
		}
	}
	r.slots = make([]*inc, c.Workers)
	for s := range c.Workers {
		if err := r.start(ctx, s, 0); err != nil {
			r.stopAll()
			return nil, err
		}
	}
	err = r.loop(ctx, start)
	killPhase, drainPhase, drained := r.phases.kill, r.phases.drain, r.phases.drained
	r.stopAll()
	if err != nil {
		return nil, err
	}
	snap, err := r.snapshot(ctx, start)
	if err != nil {
		return nil, err
	}
	lines := r.hist.Entries()
	for _, i := range r.all {
		lines = append(lines, i.entries()...)
	}
	rep := &workload.Report{Lib: "River", Design: c.Design, Workers: c.Workers, Steady: c.Steady, Concurrency: c.Concurrency, Seed: seed,
		Target: c.Kills, Points: r.points, Kills: r.landed, Restarts: r.restarts, Pauses: r.pauses, Takeovers: r.takeover,
		MaxFreezes: r.maxFrz, StopFreezes: r.stopFrz, Inserts: r.inserts, Skipped: r.skipped, Unique: true,
		KillPhase: killPhase, DrainPhase: drainPhase, DrainLimit: c.Drain, Drained: drained}
	rep.Check(lines, snap, start.UnixNano(), riverchaos.Feed(c.Design))
	rep.Header = fmt.Sprintf("river in-process: River %s's started clients (riversqlite on one SQLite file) in one testing/synctest bubble, design %s (%s), %d clients (%d never killed) × %d workers, seed %d",
		rivertarget.Version(), c.Design, c.Design.What(), c.Workers, c.Steady, c.Concurrency, seed)
	rep.StateFrom = "the database (River's driver, JobGetByIDMany)"
	rep.NotChecked = "the rescuer's and scheduler's writes are not in the histories"
	rep.Notes = append(rep.Notes, fmt.Sprintf("River's time: kill phase %v, drain %v (virtual; the bubble's clock)", killPhase, drainPhase))
	return &outcome{rep: rep, lines: lines}, nil
}

// phases is what loop measured.
type phases struct {
	kill, drain time.Duration
	drained     bool
}

// insert inserts document i through River's client and writes the
// client's line.
func (r *run) insert(ctx context.Context, i int) error {
	a := workload.DocOf(i)
	t0 := workload.Stamp()
	res, err := r.client.Insert(ctx, a, riverchaos.InsertOpts(r.c.MaxAttempts))
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	e := workload.Entry{Op: workload.OpInsert, Job: res.Job.ID, Unique: true, Skipped: res.UniqueSkippedAsDuplicate, Tenant: a.Tenant,
		Doc: a.Doc, Version: a.Version, Max: r.c.MaxAttempts, T0: t0, T1: workload.Stamp()}
	r.hist.Write(e)
	r.docs = max(r.docs, i)
	r.inserts++
	if e.Skipped {
		r.skipped++
	}
	return nil
}

// handout is the kill point of slot's next incarnation: none for a
// steady slot, after the kill phase or once Kills are handed out; the
// first ones go to every point once, in an order the seed picks.
func (r *run) handout(slot int) crash.Assignment {
	if slot < r.c.Steady || !r.killing || r.handed >= r.c.Kills {
		return crash.Assignment{}
	}
	var p boundary.Boundary
	if r.handed < len(r.points) {
		if r.handed == 0 {
			r.rng.Shuffle(len(r.points), func(a, b int) { r.points[a], r.points[b] = r.points[b], r.points[a] })
		}
		p = r.points[r.handed]
	} else {
		p = r.points[r.rng.IntN(len(r.points))]
	}
	r.handed++
	return crash.Assignment{At: p, Nth: 1 + r.rng.IntN(2)}
}

// start starts incarnation n of slot: a River client on connections of
// its own.
func (r *run) start(ctx context.Context, slot, n int) error {
	i := &inc{slot: slot, n: n, name: workload.ProcName(slot, n), ctl: &ctl{}}
	i.db = openDB(r.dsn, i.ctl, r.lock, r.c.Concurrency+4)
	i.hist = &workload.History{Proc: i.name}
	a := r.handout(slot)
	i.hist.Write(workload.Entry{Op: workload.OpStart, Point: a.At.String(), Nth: a.Nth, Zone: "UTC", T0: workload.Stamp()})
	kill := &workload.Killer{Assignment: a, Hist: i.hist, Kill: func(boundary.Boundary) {
		i.mu.Lock()
		i.lines, i.killed = i.hist.Entries(), true
		i.mu.Unlock()
		i.ctl.kill()
		r.kills <- i
	}}
	h := (&workload.Handler{Store: workload.SQL{DB: i.db}, Design: r.c.Design, Name: i.name, Hist: i.hist, Kill: kill, Work: r.c.Work,
		Complete: completeTx}).Seeded(r.seed, slot, n)
	workers := river.NewWorkers()
	river.AddWorker(workers, &docWorker{h: h})
	rc := &river.Config{ID: i.name, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: r.c.Concurrency}},
		Workers: workers, MaxAttempts: r.c.MaxAttempts, RescueStuckJobsAfter: r.c.RescueAfter, JobTimeout: r.c.JobTimeout, Logger: r.logger,
		Test: river.TestConfig{Time: clock{}}}
	if a.At != boundary.None {
		riverchaos.DisableLeaderElection(rc) // as riverchaos: a client about to die never leads
	}
	client, err := river.NewClient(riversqlite.New(i.db), rc)
	if err != nil {
		_ = i.db.Close()
		return err
	}
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		_ = i.db.Close()
		return err
	}
	i.client = client
	r.slots[slot] = i
	r.all = append(r.all, i)
	return nil
}

// stop stops i's client (a killed one is cancelled: its calls fail) and
// closes its connections, in a goroutine of its own.
func (r *run) stop(i *inc, cancel bool) {
	r.stops.Add(1)
	go func() {
		defer r.stops.Done()
		ctx, done := context.WithTimeout(context.Background(), 2*time.Minute)
		defer done()
		if cancel || i.client.Stop(ctx) != nil {
			_ = i.client.StopAndCancel(ctx)
		}
		_ = i.db.Close()
	}()
}

func (r *run) stopAll() {
	for _, f := range r.frozen {
		f.i.ctl.thaw()
	}
	for _, i := range r.slots {
		if i != nil && !i.ctl.killed() {
			r.stop(i, false)
		}
	}
	r.stops.Wait()
}

// clock is River's time generator (Config.Test.Time): the bubble's
// clock, given to River's SQL too. River's Go code reads the bubble's
// time.Now by itself; without a generator, River leaves "now" to the
// database, and SQLite's datetime('now') is the machine's real clock, so
// a job's attempted_at would be months from the rescuer's virtual
// horizon and never look stuck.
type clock struct{}

func (clock) Now() time.Time { return time.Now() }
func (clock) NowOrNil() *time.Time {
	now := time.Now()
	return &now
}

var _ rivertype.TimeGenerator = clock{}
