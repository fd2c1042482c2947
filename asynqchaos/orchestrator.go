package asynqchaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/internal/redistest"
)

// Run runs an asynq chaos campaign on package crash's supervisor and
// checks it. The error is a *UsageError for bad input, another error when
// the run could not finish; a finished run returns its report, whose OK
// says whether every check held. A drain that does not end in time is a
// finished run: target-drained names what is left.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	pool, err := openPool(octx, cfg.DB, "durasim-orchestrator", 8)
	if err == nil {
		err = prepare(octx, pool)
	}
	cancel()
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		return nil, &UsageError{Err: fmt.Errorf("database: %w", err)}
	}
	defer pool.Close()
	o, err := newOrch(cfg, pool, start)
	if err != nil {
		return nil, err
	}
	defer o.close()
	env := []string{"DURASIM_PG_URL=" + cfg.DB, redistest.EnvAddr + "=" + cfg.Redis} // by environment, not argv: no password in ps
	if cfg.TZ != "" {
		env = append(env, "TZ="+cfg.TZ)
	}
	sup, err := crash.New(crash.Config{Settings: cfg.Settings, Name: "asynqchaos", Stream: 0xa5e9, Roles: cfg.roles(), Env: env,
		Tick: 100 * time.Millisecond, DrainDelay: cfg.DrainDelay, StopWait: ShutdownTimeout + 10*time.Second})
	if err != nil {
		return nil, err
	}
	o.dir = sup.Dir()
	if o.hist, err = crash.OpenHistory[Entry](filepath.Join(o.dir, "client.jsonl"), "client", "durasim chaos -target asynq"); err != nil {
		return nil, err
	}
	return o.run(ctx, sup)
}

// roles: one asynq Server per slot, the first Steady never killed.
func (c Config) roles() []crash.Role {
	return []crash.Role{{Name: "asynq-worker", Prefix: "w", Slots: c.Workers, Steady: c.Steady, Points: PointsOf(c.Design)}}
}

// orch is asynq's workload on the supervisor: it enqueues the documents
// (asynq's Client), tells each child its flags, picks the children to
// freeze and sees when asynq handed a frozen child's task to another
// server (asynq's Inspector).
type orch struct {
	cfg    Config
	pool   *pgxpool.Pool
	client *asynq.Client
	insp   *asynq.Inspector
	dir    string
	hist   *History
	start  time.Time

	mu        sync.Mutex
	rng       *rand.Rand
	docs      int
	inserts   int
	skipped   int
	scheduled int
	takeovers int
	// maxFreezes ended at MaxFreeze, stopFreezes with their generation.
	maxFreezes, stopFreezes int
	freezing                int
}

func newOrch(cfg Config, pool *pgxpool.Pool, start time.Time) (*orch, error) {
	o := &orch{cfg: cfg, pool: pool, start: start, rng: rand.New(rand.NewPCG(cfg.Seed, 0xa5ea)),
		client: asynq.NewClient(redisOpt(cfg.Redis)), insp: asynq.NewInspector(redisOpt(cfg.Redis))}
	if err := o.reset(); err != nil {
		o.close()
		return nil, err
	}
	return o, nil
}

func (o *orch) close() {
	o.client.Close()
	o.insp.Close()
	o.hist.Close()
}

// reset refuses a Redis where an asynq server serves the run's queue
// now (emptying it would pull its tasks away), then deletes the queue.
func (o *orch) reset() error {
	if err := redistest.Ping(o.cfg.Redis); err != nil {
		return usage("redis-server at %s: %v", o.cfg.Redis, err)
	}
	servers, err := o.insp.Servers()
	if err != nil {
		return usage("redis-server at %s: %v", o.cfg.Redis, err)
	}
	for _, s := range servers {
		if _, ok := s.Queues[Queue]; ok {
			return usage("an asynq server (%s, pid %d) serves queue %q on %s now: give another -redis", s.Host, s.PID, Queue, o.cfg.Redis)
		}
	}
	qs, err := o.insp.Queues()
	if err != nil {
		return err
	}
	if !slices.Contains(qs, Queue) {
		return nil
	}
	// DeleteQueue leaves the completed tasks (their hashes, so their task
	// IDs stay taken: asynqrepro's TestDeleteQueueKeepsCompletedTasks):
	// they go first.
	if _, err := o.insp.DeleteAllCompletedTasks(Queue); err != nil {
		return fmt.Errorf("emptying queue %q: %w", Queue, err)
	}
	if err := o.insp.DeleteQueue(Queue, true); err != nil {
		if qi, ierr := o.insp.GetQueueInfo(Queue); ierr == nil && qi.Active > 0 {
			return usage("queue %q on %s has %d tasks active (an earlier run's, killed: asynq's recoverer takes them back about a minute after their last heartbeat); wait, or give another -redis", Queue, o.cfg.Redis, qi.Active)
		}
		return fmt.Errorf("emptying queue %q: %w", Queue, err)
	}
	return nil
}

// run enqueues the first documents, runs the supervisor, and checks what
// it left; a passing run's temporary directory is removed.
func (o *orch) run(ctx context.Context, sup *crash.Supervisor) (*Report, error) {
	for i := 1; i <= o.cfg.Jobs; i++ {
		if err := o.insert(i); err != nil {
			return nil, err
		}
		if i%5 == 0 {
			if err := o.insert(i); err != nil {
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
	snap, err := snapshot(ctx, o.insp, o.pool, docs, o.start)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	rep := &Report{Config: o.cfg, Points: PointsOf(o.cfg.Design).List(), Kills: res.Kills, Restarts: res.Restarts, HardStops: res.HardStops,
		Pauses: res.Freezes, Takeovers: o.takeovers, MaxFreezes: o.maxFreezes, StopFreezes: o.stopFreezes,
		Inserts: o.inserts, Skipped: o.skipped, Scheduled: o.scheduled,
		KillPhase: res.KillPhase, DrainPhase: res.DrainPhase, Drained: res.Drained}
	check(rep, lines, snap, o.start.UnixNano())
	rep.Elapsed, rep.Dir = time.Since(o.start), sup.Finish(rep.OK())
	return rep, nil
}

// Args is a child's command line: `durasim asynq-worker` with its flags.
func (o *orch) Args(c crash.Child) []string {
	cc := ChildConfig{ID: c.Slot, Incarnation: c.Inc, Design: o.cfg.Design, History: c.History, Kill: c.Kill, Seed: o.cfg.Seed,
		Concurrency: o.cfg.Concurrency, RetryDelay: o.cfg.RetryDelay, Work: o.cfg.Work}
	return append(append([]string(nil), o.cfg.exeArgs()...), cc.Args()...)
}

// Ended: asynq's children leave nothing to carry to the next.
func (o *orch) Ended(crash.Child) {}

// Goal: -zombies freezes ended in a takeover.
func (o *orch) Goal() (bool, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.takeovers >= o.cfg.Zombies, fmt.Sprintf(", %d/%d takeovers, %d frozen", o.takeovers, o.cfg.Zombies, o.freezing)
}

// Tick keeps a backlog of pending tasks while the kill phase lasts, a
// fifth of the time also enqueueing an earlier document again (refused
// while its task exists).
func (o *orch) Tick(context.Context) error {
	qi, err := o.insp.GetQueueInfo(Queue)
	if err != nil {
		return err
	}
	for avail := qi.Pending; avail < 2*o.cfg.Workers*o.cfg.Concurrency; avail++ {
		o.mu.Lock()
		next, again := o.docs+1, 1+o.rng.IntN(o.docs)
		dup := o.rng.IntN(5) == 0
		o.mu.Unlock()
		if err := o.insert(next); err != nil {
			return err
		}
		if dup {
			if err := o.insert(again); err != nil {
				return err
			}
		}
	}
	return nil
}

// Drained: no task is left pending, scheduled, active, in retry or
// being aggregated.
func (o *orch) Drained(context.Context) (bool, error) {
	qi, err := o.insp.GetQueueInfo(Queue)
	if err != nil {
		return false, err
	}
	return qi.Pending+qi.Active+qi.Scheduled+qi.Retry+qi.Aggregating == 0, nil
}

// insert enqueues document i with its task ID through asynq's Client and
// writes the client's history line; asynq refusing the ID as taken is a
// skipped insert. Every fourth document is scheduled ScheduleIn ahead by
// a clock ClientSkew off the servers'.
func (o *orch) insert(i int) error {
	a := docOf(i)
	payload, err := json.Marshal(a)
	if err != nil {
		return err
	}
	opts := []asynq.Option{asynq.TaskID(TaskID(i)), asynq.Queue(Queue), asynq.MaxRetry(o.cfg.MaxAttempts - 1),
		asynq.Timeout(o.cfg.JobTimeout), asynq.Retention(24 * time.Hour)}
	sched := i%4 == 0
	if sched {
		opts = append(opts, asynq.ProcessAt(time.Now().Add(o.cfg.ClientSkew+o.cfg.ScheduleIn)))
	}
	t0 := stamp()
	_, err = o.client.Enqueue(asynq.NewTask(TaskType, payload), opts...)
	skipped := errors.Is(err, asynq.ErrTaskIDConflict)
	if err != nil && !skipped {
		return fmt.Errorf("enqueue: %w", err)
	}
	e := line(OpInsert, int64(i), 0)
	e.Tenant, e.Doc, e.Version, e.Max, e.Skipped, e.T0, e.T1 = a.Tenant, a.Doc, a.Version, o.cfg.MaxAttempts, skipped, t0, stamp()
	o.hist.Write(e)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs = max(o.docs, i)
	o.inserts++
	if skipped {
		o.skipped++
	} else if sched {
		o.scheduled++
	}
	return nil
}
