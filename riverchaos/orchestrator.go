package riverchaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// Run runs a River chaos campaign and checks it. The error is a
// *UsageError for bad input, another error when the run could not finish
// (a child died of something else than its kill point, the run's
// timeout); a finished run returns its report, whose OK says whether
// every check held. A drain that does not end in time is a finished run:
// target-drained names what is left.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	pool, err := openPool(octx, cfg.DB, "durasim-orchestrator", 12)
	if err == nil {
		err = prepare(octx, pool)
	}
	cancel()
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		if ue := (*UsageError)(nil); errors.As(err, &ue) {
			return nil, err
		}
		return nil, &UsageError{err}
	}
	defer pool.Close()
	o, err := newOrch(cfg, pool, start)
	if err != nil {
		return nil, err
	}
	defer o.hist.Close()
	rctx, rcancel := context.WithTimeout(ctx, cfg.Timeout)
	defer rcancel()
	rep, err := o.run(rctx)
	if rep != nil {
		rep.Elapsed, rep.Dir = time.Since(start), o.dir
		if cfg.Dir == "" && err == nil && rep.OK() {
			os.RemoveAll(o.dir)
			rep.Dir = ""
		}
	}
	return rep, err
}

// orch is one run's orchestrator: it inserts the documents (through an
// insert-only River client, never started, never a leader), runs the
// children and freezes them.
type orch struct {
	cfg    Config
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	exe    string
	dir    string
	hist   *History
	start  time.Time

	mu        sync.Mutex
	rng       *rand.Rand
	kills     map[Point]int
	assigned  map[Point]int // live children waiting to die at each point
	total     int
	restarts  int
	hardStops int
	killing   bool
	reached   chan struct{} // closed when the kill phase's goals are met
	failure   error
	inc       map[int]int // next incarnation of each slot
	docs      int         // documents inserted so far: docOf(1) to docOf(docs)
	inserts   int
	skipped   int
	pauses    int
	takeovers int
	// maxFreezes ended at MaxFreeze; lockFreezes froze a child inside
	// JobCompleteTx's transaction (its job's row locked).
	maxFreezes, lockFreezes int
	stopFreezes             int // thawed when their generation stopped
	freezing                int
	leaders                 []string // each leadership term's client, in order
}

func newOrch(cfg Config, pool *pgxpool.Pool, start time.Time) (*orch, error) {
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{ID: "orchestrator", SkipUnknownJobCheck: true}) // never started: it only inserts
	if err != nil {
		return nil, err
	}
	o := &orch{cfg: cfg, pool: pool, client: client, start: start, rng: rand.New(rand.NewPCG(cfg.Seed, 0x71fe4)),
		kills: map[Point]int{}, assigned: map[Point]int{}, inc: map[int]int{}, reached: make(chan struct{})}
	if o.exe = cfg.Exe; o.exe == "" {
		if o.exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if o.dir, err = historyDir(cfg.Dir); err != nil {
		return nil, err
	}
	o.hist, err = OpenHistory(filepath.Join(o.dir, "client.jsonl"), "client")
	return o, err
}

// historyDir is -dir, made if need be and refused if it holds histories,
// or a new temporary directory.
func historyDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "durasim-riverchaos-*")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if old, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(old) > 0 {
		return "", usage("-dir %s already holds histories (%s): give an empty directory", dir, filepath.Base(old[0]))
	}
	return dir, nil
}

func (o *orch) logf(format string, args ...any) {
	if o.cfg.Log != nil {
		fmt.Fprintf(o.cfg.Log, "riverchaos: "+format+"\n", args...)
	}
}

func (o *orch) failed() error { o.mu.Lock(); defer o.mu.Unlock(); return o.failure }

func (o *orch) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failure == nil {
		o.failure = err
	}
}

func (o *orch) run(ctx context.Context) (*Report, error) {
	if err := o.insertInitial(ctx); err != nil {
		return nil, err
	}
	t1 := time.Now()
	if err := o.killPhase(ctx); err != nil {
		return nil, err
	}
	killPhase := time.Since(t1)
	o.mu.Lock()
	o.logf("%d kills, %d SIGSTOPs (%d taken over) in %v; draining", o.total, o.pauses, o.takeovers, killPhase.Round(time.Millisecond))
	o.mu.Unlock()
	t2 := time.Now()
	drained, err := o.drain(ctx)
	if err != nil {
		return nil, err
	}
	drain := time.Since(t2)
	if !drained {
		o.logf("not drained after %v: checking what is left", o.cfg.Drain)
	}
	lines, err := readHistories(o.dir)
	if err != nil {
		return nil, err
	}
	snap, err := snapshot(ctx, o.pool, o.start)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	rep := &Report{Design: o.cfg.Design, Workers: o.cfg.Workers, Steady: o.cfg.Steady, KilledLead: o.cfg.KilledLead, MaxWorkers: o.cfg.MaxWorkers, Seed: o.cfg.Seed,
		Target: o.cfg.Kills, Points: o.cfg.points(), Kills: o.kills, Restarts: o.restarts, HardStops: o.hardStops,
		Pauses: o.pauses, Takeovers: o.takeovers, MaxFreezes: o.maxFreezes, StopFreezes: o.stopFreezes, LockFreezes: o.lockFreezes,
		Inserts: o.inserts, Skipped: o.skipped, Leaders: o.leaders,
		KillPhase: killPhase, DrainPhase: drain, DrainLimit: o.cfg.Drain, Drained: drained}
	check(rep, lines, snap, o.start.UnixNano())
	return rep, nil
}

// insertInitial inserts the first documents; every fifth is inserted
// twice at once (River skips the second as a duplicate).
func (o *orch) insertInitial(ctx context.Context) error {
	for i := 1; i <= o.cfg.Jobs; i++ {
		if err := o.insert(ctx, i); err != nil {
			return err
		}
		if i%5 == 0 {
			if err := o.insert(ctx, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// insert inserts document i through River's client (unique by args) and
// writes the client's history line.
func (o *orch) insert(ctx context.Context, i int) error {
	a := docOf(i)
	t0 := stamp()
	res, err := o.client.Insert(ctx, a, insertOpts(o.cfg.MaxAttempts))
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	o.hist.Write(Entry{Op: OpInsert, Job: res.Job.ID, Tenant: a.Tenant, Doc: a.Doc, Version: a.Version, Max: o.cfg.MaxAttempts,
		Skipped: res.UniqueSkippedAsDuplicate, T0: t0, T1: stamp()})
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs = max(o.docs, i)
	o.inserts++
	if res.UniqueSkippedAsDuplicate {
		o.skipped++
	}
	return nil
}

// feed keeps a backlog of available jobs while the kill phase lasts, a
// fifth of the time also inserting an earlier document again: skipped if
// its job is live or completed, a new job if it was discarded.
func (o *orch) feed(ctx context.Context) error {
	var avail int
	if err := o.pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state = 'available'").Scan(&avail); err != nil {
		return err
	}
	for ; avail < 2*o.cfg.Workers*o.cfg.MaxWorkers; avail++ {
		o.mu.Lock()
		next, again := o.docs+1, 1+o.rng.IntN(o.docs)
		dup := o.rng.IntN(5) == 0
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
	return nil
}

// killPhase runs children with kill points, restarted after each kill,
// fed with documents and frozen now and then, until the goals are met.
func (o *orch) killPhase(ctx context.Context) error {
	o.mu.Lock()
	o.killing = !o.goalsMet()
	o.mu.Unlock()
	if !o.killing {
		return nil
	}
	g := o.startGen(ctx, true)
	defer o.stop(g)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var pause <-chan time.Time
	if o.cfg.PauseEvery > 0 {
		t := time.NewTicker(o.cfg.PauseEvery)
		defer t.Stop()
		pause = t.C
	}
	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	for {
		select {
		case <-o.reached:
			o.stop(g)
			return o.failed()
		case <-ctx.Done():
			o.mu.Lock()
			defer o.mu.Unlock()
			return fmt.Errorf("timed out after %v with %d of %d kills and %d of %d takeovers", o.cfg.Timeout, o.total, o.cfg.Kills, o.takeovers,
				o.cfg.Zombies)
		case <-progress.C:
			o.mu.Lock()
			o.logf("%d/%d kills, %d/%d takeovers, %d frozen", o.total, o.cfg.Kills, o.takeovers, o.cfg.Zombies, o.freezing)
			o.mu.Unlock()
		case <-pause:
			o.pause(ctx, g)
		case <-tick.C:
			if err := o.failed(); err != nil {
				return err
			}
			if err := o.feed(ctx); err != nil {
				return err
			}
			o.pollLeader(ctx)
		}
	}
}

// goalsMet: -kills kills landed, each point had one (when -kills is not
// below their number), and -zombies freezes ended in a takeover. o.mu is
// held.
func (o *orch) goalsMet() bool {
	if o.total < o.cfg.Kills || o.takeovers < o.cfg.Zombies {
		return false
	}
	return o.cfg.Kills < len(o.cfg.points()) || !slices.ContainsFunc(o.cfg.points(), func(p Point) bool { return o.kills[p] == 0 })
}

// reachedIfMet ends the kill phase once its goals are met. o.mu is held.
func (o *orch) reachedIfMet() {
	if o.killing && o.goalsMet() {
		o.killing = false
		close(o.reached)
	}
}

// choose picks the kill point of a new child, or none: a point no kill
// has reached and no live child waits at, if any, at its first crossing,
// so that every point is covered early; else, while kills are still
// wanted, any point, at one of its first three crossings. o.mu is held.
func (o *orch) choose() (Point, int) {
	pts := o.cfg.points()
	var fresh []Point
	for _, p := range pts {
		if o.kills[p] == 0 && o.assigned[p] == 0 {
			fresh = append(fresh, p)
		}
	}
	pending := 0
	for _, n := range o.assigned {
		pending += n
	}
	var p Point
	nth := 1
	switch {
	case len(fresh) > 0 && o.cfg.Kills >= len(pts):
		p = fresh[o.rng.IntN(len(fresh))]
	case o.total+pending < o.cfg.Kills:
		p, nth = pts[o.rng.IntN(len(pts))], 1+o.rng.IntN(3)
	default:
		return PointNone, 0
	}
	o.assigned[p]++
	return p, nth
}

func (o *orch) unassign(p Point) {
	if p == PointNone {
		return
	}
	o.mu.Lock()
	o.assigned[p]--
	o.mu.Unlock()
}

// drain waits until the jobs killed last are past RescueAfter, so that
// the new leader's first rescue pass takes them, then restarts every
// child without a kill point until every job is finished; false when
// Drain ran out first.
func (o *orch) drain(ctx context.Context) (bool, error) {
	select {
	case <-time.After(o.cfg.RescueAfter):
	case <-ctx.Done():
		return false, fmt.Errorf("timed out after %v before draining", o.cfg.Timeout)
	}
	g := o.startGen(ctx, false)
	defer o.stop(g)
	dctx, cancel := context.WithTimeout(ctx, o.cfg.Drain)
	defer cancel()
	for {
		if err := o.failed(); err != nil {
			return false, err
		}
		var live int
		err := o.pool.QueryRow(dctx, "SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'discarded', 'cancelled')").Scan(&live)
		o.pollLeader(dctx)
		switch {
		case err == nil && live == 0:
			o.stop(g)
			return true, o.failed()
		case dctx.Err() != nil && ctx.Err() != nil:
			return false, fmt.Errorf("timed out after %v while draining", o.cfg.Timeout)
		case dctx.Err() != nil:
			return false, nil
		case err != nil:
			return false, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pollLeader notes the leader River's table names now, if it changed.
func (o *orch) pollLeader(ctx context.Context) {
	var id string
	if o.pool.QueryRow(ctx, "SELECT leader_id FROM river_leader").Scan(&id) != nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.leaders); n == 0 || o.leaders[n-1] != id {
		o.leaders = append(o.leaders, id)
	}
}

// readHistories reads every history file of a run, in name order.
func readHistories(dir string) ([]Entry, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var all []Entry
	for _, f := range files {
		es, err := ReadHistory(f)
		if err != nil {
			return nil, err
		}
		all = append(all, es...)
	}
	return all, nil
}
