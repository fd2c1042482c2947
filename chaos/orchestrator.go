package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Config is a chaos run.
type Config struct {
	crash.Settings        // -kills, -seed, -pause-every (a worker frozen past its lease: a zombie), -reach, -timeout, -drain, -dir
	DB             string // PostgreSQL URL
	Workers        int
	Relays         int
	Consumers      int  // consumer processes, all reading the one broker
	Operator       bool // run the operator process (redrive, reprocess, resubmissions, conflicts)
	Jobs           int  // jobs enqueued up front; more are fed while kills remain
	Lease          time.Duration
	Work           time.Duration // simulated work per stage
	SlowWork       time.Duration // work per stage of ".slow" jobs (0: 3/5 of Lease)
	MaxAttempts    int           // attempt ceiling, but FewAttempts for ".few" jobs
	Freeze         time.Duration // how long, on average (±25%); 0: three leases. Must exceed 4/3 of Lease
	// Ordered: the workers lease FIFO (only the oldest unfinished job), and
	// the store checks hold the leases to that order (invariants.StoreFIFO).
	Ordered bool
	// AnyPaths: a run whose workload missed a path through the store does
	// not fail for it (a short run, such as a mutation killer's, may miss
	// a rare one by chance); the paths are still counted.
	AnyPaths bool
}

// DefaultConfig is the chaos command's defaults.
func DefaultConfig() Config {
	return Config{Settings: crash.Settings{Kills: 500, Seed: 1, PauseEvery: 300 * time.Millisecond, Reach: crash.DefaultReach,
		Timeout: 10 * time.Minute, Drain: 2 * time.Minute},
		Workers: 8, Relays: 2, Consumers: 2, Operator: true, Jobs: 200,
		Lease: 500 * time.Millisecond, Work: 2 * time.Millisecond, MaxAttempts: 10}
}

// UsageError is bad input: a flag out of range, a database that does not
// connect or holds a schema of another version. The command exits 2.
type UsageError = crash.UsageError

var usage = crash.Usage

// Bounds of a run: every job and every kill's history lines are checked
// in memory at the end, and each kill restarts a process (about 40 ms).
const MaxJobs, MaxKills = 100_000, 100_000

// Validate reports the first bad setting as a one-line UsageError.
func (c Config) Validate() error {
	switch {
	case c.DB == "":
		return usage("no database: give -db or set DURASIM_PG_URL")
	case c.Jobs > MaxJobs || c.Kills > MaxKills:
		return usage("-jobs and -kills must be at most %d (got %d and %d)", MaxJobs, c.Jobs, c.Kills)
	case c.Workers < 1:
		return usage("-workers must be >= 1 (got %d)", c.Workers)
	case c.Relays < 1:
		return usage("-relays must be >= 1 (got %d)", c.Relays)
	case c.Consumers < 1:
		return usage("-consumers must be >= 1 (got %d)", c.Consumers)
	case c.Workers+c.Relays+c.Consumers > 63:
		return usage("-workers, -relays and -consumers must add up to at most 63 (each is a process with its own connection)")
	case c.Jobs < 1:
		return usage("-jobs must be >= 1 (got %d)", c.Jobs)
	case c.Lease <= 0 || c.Work < 0 || c.SlowWork < 0 || c.Freeze < 0:
		return usage("-lease must be > 0, -work, -slow-work and -freeze >= 0")
	case c.PauseEvery > 0 && c.freeze()*3/4 <= c.Lease:
		return usage("-freeze %v must be above 4/3 of -lease %v: a shorter freeze can end before the lease does, and makes no zombie", c.freeze(), c.Lease)
	case c.MaxAttempts < FewAttempts+1:
		return usage("-max-attempts must be >= %d (the \".few\" jobs have %d)", FewAttempts+1, FewAttempts)
	}
	return c.Settings.Check()
}

func (c Config) freeze() time.Duration {
	if c.Freeze == 0 {
		return 3 * c.Lease
	}
	return c.Freeze
}

func (c Config) slowWork() time.Duration {
	if c.SlowWork == 0 {
		return c.Lease * 3 / 5
	}
	return c.SlowWork
}

// roles are the run's children: workers, relays, consumers and (with
// Operator) the operator, each role with its kill points; relays and
// consumers cross theirs many times a second, so a point handed out
// again waits up to 12 crossings, not 3, lest they take most kills.
func (c Config) roles() []crash.Role {
	op := 0
	if c.Operator {
		op = 1
	}
	role := func(name, prefix string, slots, maxNth int) crash.Role {
		return crash.Role{Name: name, Prefix: prefix, Slots: slots, Points: PointsOf(name), Stmts: stmts, MaxNth: maxNth}
	}
	return []crash.Role{role(RoleWorker, "w", c.Workers, 3), role(RoleRelay, "relay", c.Relays, 12),
		role(RoleConsumer, "consumer", c.Consumers, 12), role(RoleOperator, "op", op, 3)}
}

// Run runs a chaos campaign on package crash's supervisor and checks it.
// The error is a *UsageError for bad input, another error when the run
// could not finish (a process died of something else than its kill
// point, a point was not reached within -reach, the run's timeout); a
// finished run returns its report, whose OK says whether every invariant
// held. A drain that does not end in time is a finished run: its report
// says why (a liveness violation).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	store, err := sqlstore.Open(octx, sqlstore.Postgres, cfg.DB)
	cancel()
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	defer store.Close()
	if err := store.Reset(ctx); err != nil {
		return nil, err
	}
	sup, err := crash.New(crash.Config{Settings: cfg.Settings, Name: "chaos", Stream: 0x0c4a05, Roles: cfg.roles(),
		Env: []string{"DURASIM_PG_URL=" + cfg.DB}}) // the URL by environment, not argv: no password in ps
	if err != nil {
		return nil, err
	}
	o := &orch{cfg: cfg, store: store, dir: sup.Dir(), rng: rand.New(rand.NewPCG(cfg.Seed, 0x0c4a06)), cursors: map[int]int64{}}
	return o.run(ctx, sup, start)
}

// orch is chaos's workload on the supervisor: it enqueues the jobs, tells
// each child its role's flags, feeds jobs while kills remain, picks the
// workers to freeze, and says when the drain is done.
type orch struct {
	cfg   Config
	store *sqlstore.Store
	conn  *sqlstore.Conn // the orchestrator's own: enqueues
	dir   string

	mu      sync.Mutex
	rng     *rand.Rand    // the freezes
	cursors map[int]int64 // each consumer slot's last recorded broker message
	keys    []string
}

// run enqueues the first jobs, runs the supervisor, and checks what it
// left; a passing run's temporary directory is removed.
func (o *orch) run(ctx context.Context, sup *crash.Supervisor, start time.Time) (*Report, error) {
	conn, err := o.store.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	o.conn = conn
	if err := o.enqueue(ctx, o.cfg.Jobs); err != nil {
		return nil, err
	}
	res, err := sup.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	// The checks read the final state once every process is gone.
	st, err := o.store.State(ctx)
	if err != nil {
		return nil, err
	}
	hist, err := crash.ReadHistories[Entry](o.dir)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	rep := &Report{Workers: o.cfg.Workers, Relays: o.cfg.Relays, Consumers: o.cfg.Consumers, Operator: o.cfg.Operator,
		Seed: o.cfg.Seed, Target: o.cfg.Kills, AnyPaths: o.cfg.AnyPaths, Kills: res.Kills, KillStmts: res.KillStmts,
		Restarts: res.Restarts, HardStops: res.HardStops, Pauses: res.Freezes,
		KillPhase: res.KillPhase, DrainPhase: res.DrainPhase, DrainLimit: o.cfg.Drain, Drained: res.Drained, Cursors: map[string]int64{}}
	for i, c := range o.cursors {
		rep.Cursors[ProcName(RoleConsumer, i, 0)] = c
	}
	keys := o.keys
	o.mu.Unlock()
	check(rep, st, hist, keys, feedFor(o.cfg.Ordered))
	rep.Elapsed, rep.Dir = time.Since(start), sup.Finish(rep.OK())
	return rep, nil
}

// Args is a child's command line: `durasim worker` in its role.
func (o *orch) Args(c crash.Child) []string {
	args := []string{"worker", "-role", c.Role, "-id", strconv.Itoa(c.Slot), "-incarnation", strconv.Itoa(c.Inc),
		"-history", c.History, "-seed", strconv.FormatUint(o.cfg.Seed, 10),
		"-lease", o.cfg.Lease.String(), "-work", o.cfg.Work.String(), "-slow-work", o.cfg.slowWork().String()}
	if c.Role == RoleWorker && o.cfg.Ordered {
		args = append(args, "-ordered")
	}
	if c.Role == RoleConsumer {
		o.mu.Lock()
		args = append(args, "-cursor", strconv.FormatInt(o.cursors[c.Slot], 10))
		o.mu.Unlock()
	}
	return append(args, c.Kill.Args()...)
}

// Ended moves a consumer slot's cursor to the last message its child
// recorded: the next one resumes a few messages before it.
func (o *orch) Ended(c crash.Child) {
	if c.Role != RoleConsumer {
		return
	}
	entries, _ := ReadHistory(c.History)
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range entries {
		if e.Op == OpApply && e.Msg > o.cursors[c.Slot] {
			o.cursors[c.Slot] = e.Msg
		}
	}
}

// Goal: chaos has none beyond the supervisor's kills.
func (o *orch) Goal() (bool, string) { return true, "" }

// Tick keeps a backlog while kills remain, so that every kill point keeps
// being reached (after_dlq_write needs poison jobs to keep coming). The
// backlog is kept short: a job whose holder is frozen is taken over
// (making a zombie) only once the jobs ahead of it are leased.
func (o *orch) Tick(ctx context.Context) error {
	b, err := o.store.Backlog(ctx)
	if err != nil {
		return err
	}
	if want := 2*o.cfg.Workers + 4; b.Live < want {
		return o.enqueue(ctx, want-b.Live)
	}
	return nil
}

// Drained: every job terminal, every row published, every event applied
// and (with the operator) nothing left for the operator.
func (o *orch) Drained(ctx context.Context) (bool, error) {
	b, err := o.store.Backlog(ctx)
	if err != nil || !b.Drained() {
		return false, err
	}
	if !o.cfg.Operator {
		return true, nil
	}
	rd, rp, au, err := DBReader{o.store.DB()}.OperatorWork(ctx)
	return err == nil && rd+rp+au == 0, err
}

// Freeze freezes a worker (SIGSTOP) for about Freeze (75% to 125% of it),
// longer than a lease, as a long GC pause or a stalled VM would: its lease
// expires, another worker takes the job under a higher fence, and when it
// wakes up its writes must be refused. The worker is one holding a lease
// (the jobs table names holders) when there is one, so that most freezes
// make a zombie. The kill phase's end thaws it. The pick is among every
// worker, frozen or not, and a frozen one is left as it is: the frozen
// still hold their leases, and freezing another each time would leave
// too few workers awake to take every path.
func (o *orch) Freeze(ctx context.Context, running []crash.Child) *crash.Freeze {
	holders := map[string]bool{}
	if rows, err := o.store.DB().QueryContext(ctx, "SELECT DISTINCT holder FROM jobs WHERE state = 'leased'"); err == nil {
		for rows.Next() {
			var h string
			if rows.Scan(&h) == nil {
				holders[h] = true
			}
		}
		rows.Close()
	}
	var all, holding []crash.Child
	for _, c := range running {
		if c.Role == RoleWorker {
			all = append(all, c)
			if holders[c.Name] {
				holding = append(holding, c)
			}
		}
	}
	if len(holding) > 0 {
		all = holding
	}
	if len(all) == 0 {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c := all[o.rng.IntN(len(all))]
	d := o.cfg.freeze()*3/4 + time.Duration(o.rng.Int64N(int64(o.cfg.freeze()/2)+1))
	if c.Frozen {
		return nil
	}
	return &crash.Freeze{Child: c.Name, Max: d}
}

// enqueue adds n jobs of the mix (MixTraits): poison, flaky, slow, with
// few attempts, with a short or an almost passed deadline.
func (o *orch) enqueue(ctx context.Context, n int) error {
	now := model.Time(time.Now().UnixNano())
	for range n {
		o.mu.Lock()
		i := len(o.keys) + 1
		tr := MixTraits(i)
		tenant, doc := "t"+strconv.Itoa(i%3), DocName(i, tr)
		key, err := model.BuildIdempotencyKey(tenant, doc, 1)
		if err != nil {
			o.mu.Unlock()
			return err
		}
		o.keys = append(o.keys, key)
		o.mu.Unlock()
		j := sqlstore.NewJob{Tenant: tenant, Document: doc, Version: 1, Key: key, PayloadHash: PayloadOf(doc),
			MaxAttempts: int32(o.cfg.MaxAttempts), Now: now, DeadlineAt: now + model.Time(24*time.Hour)}
		switch {
		case tr.Late:
			j.DeadlineAt = now + model.Time(time.Millisecond)
		case tr.Short:
			j.DeadlineAt = now + model.Time(ShortDeadline*o.cfg.Lease)
		}
		if tr.Few {
			j.MaxAttempts = FewAttempts
		}
		if _, _, err := o.conn.Enqueue(ctx, j); err != nil {
			return fmt.Errorf("enqueue: %w", err)
		}
	}
	return nil
}
