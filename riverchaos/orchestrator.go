package riverchaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/durasim/durasim/crash"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// Run runs a River chaos campaign on package crash's supervisor and
// checks it. The error is a *UsageError for bad input, another error when
// the run could not finish (a child died of something else than its kill
// point, a point was not reached within -reach, the run's timeout); a
// finished run returns its report, whose OK says whether every check
// held. A drain that does not end in time is a finished run:
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
		return nil, &UsageError{Err: err}
	}
	defer pool.Close()
	sup, err := crash.New(crash.Config{Settings: cfg.Settings, Name: "riverchaos", Stream: 0x71fe4, Roles: cfg.roles(),
		Env:  []string{"DURASIM_PG_URL=" + cfg.DB}, // the URL by environment, not argv: no password in ps
		Tick: 100 * time.Millisecond, DrainDelay: cfg.RescueAfter, StopWait: stopWait})
	if err != nil {
		return nil, err
	}
	o, err := newOrch(cfg, pool, sup.Dir(), start)
	if err != nil {
		return nil, err
	}
	defer o.hist.Close()
	return o.run(ctx, sup)
}

// stopWait is how long a stop waits for its children (each stops River's
// client, waiting for its jobs, which end by their JobTimeout at the
// latest) before it SIGKILLs the rest: a hard stop.
const stopWait = 30 * time.Second

// roles: one River client per slot, the first Steady never killed.
func (c Config) roles() []crash.Role {
	return []crash.Role{{Name: "river-worker", Prefix: "w", Slots: c.Workers, Steady: c.Steady, Points: PointsOf(c.Design)}}
}

// orch is River's workload on the supervisor: it inserts the documents
// (through an insert-only River client, never started, never a leader),
// tells each child its flags, picks the children to freeze and when to
// thaw them, and notes River's leaders.
type orch struct {
	cfg    Config
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	dir    string
	hist   *History
	start  time.Time

	mu        sync.Mutex
	rng       *rand.Rand
	docs      int // documents inserted so far: docOf(1) to docOf(docs)
	inserts   int
	skipped   int
	takeovers int
	// maxFreezes ended at MaxFreeze; lockFreezes froze a child inside
	// JobCompleteTx's transaction (its job's row locked).
	maxFreezes, lockFreezes int
	stopFreezes             int // thawed when their generation stopped
	freezing                int
	leaders                 []string // each leadership term's client, in order
}

func newOrch(cfg Config, pool *pgxpool.Pool, dir string, start time.Time) (*orch, error) {
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{ID: "orchestrator", SkipUnknownJobCheck: true}) // never started: it only inserts
	if err != nil {
		return nil, err
	}
	o := &orch{cfg: cfg, pool: pool, client: client, dir: dir, start: start, rng: rand.New(rand.NewPCG(cfg.Seed, 0x71fe5))}
	o.hist, err = OpenHistory(filepath.Join(dir, "client.jsonl"), "client")
	return o, err
}

// run inserts the first documents, runs the supervisor, and checks what
// it left; a passing run's temporary directory is removed.
func (o *orch) run(ctx context.Context, sup *crash.Supervisor) (*Report, error) {
	if err := o.insertInitial(ctx); err != nil {
		return nil, err
	}
	res, err := sup.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	lines, err := crash.ReadHistories[Entry](o.dir)
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
		Target: o.cfg.Kills, Points: PointsOf(o.cfg.Design).List(), Kills: res.Kills, Restarts: res.Restarts, HardStops: res.HardStops,
		Pauses: res.Freezes, Takeovers: o.takeovers, MaxFreezes: o.maxFreezes, StopFreezes: o.stopFreezes, LockFreezes: o.lockFreezes,
		Inserts: o.inserts, Skipped: o.skipped, Leaders: o.leaders,
		KillPhase: res.KillPhase, DrainPhase: res.DrainPhase, DrainLimit: o.cfg.Drain, Drained: res.Drained}
	check(rep, lines, snap, o.start.UnixNano())
	rep.Elapsed, rep.Dir = time.Since(o.start), sup.Finish(rep.OK())
	return rep, nil
}

// Args is a child's command line: `durasim river-worker` with its flags.
// Children given kill points stay out of River's leader election unless
// -killed-lead.
func (o *orch) Args(c crash.Child) []string {
	cc := ChildConfig{ID: c.Slot, Incarnation: c.Inc, Design: o.cfg.Design, History: c.History, Kill: c.Kill,
		NoLead: c.Killing && c.Slot >= o.cfg.Steady && !o.cfg.KilledLead,
		Seed:   o.cfg.Seed, MaxWorkers: o.cfg.MaxWorkers, MaxAttempts: o.cfg.MaxAttempts, RescueAfter: o.cfg.RescueAfter,
		JobTimeout: o.cfg.JobTimeout, RetryCap: o.cfg.RetryCap, Work: o.cfg.Work}
	return append(append([]string(nil), o.cfg.exeArgs()...), cc.Args()...)
}

// Ended: River's children leave nothing to carry to the next.
func (o *orch) Ended(crash.Child) {}

// Goal: -zombies freezes ended in a takeover.
func (o *orch) Goal() (bool, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.takeovers >= o.cfg.Zombies, fmt.Sprintf(", %d/%d takeovers, %d frozen", o.takeovers, o.cfg.Zombies, o.freezing)
}

// Tick keeps documents coming and notes River's leader.
func (o *orch) Tick(ctx context.Context) error {
	if err := o.feed(ctx); err != nil {
		return err
	}
	o.pollLeader(ctx)
	return nil
}

// Drained: every job finished (and River's leader noted).
func (o *orch) Drained(ctx context.Context) (bool, error) {
	var live int
	err := o.pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'discarded', 'cancelled')").Scan(&live)
	o.pollLeader(ctx)
	return err == nil && live == 0, err
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
