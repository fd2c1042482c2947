package chaos

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Config is a chaos run.
type Config struct {
	DB          string // PostgreSQL URL
	Workers     int
	Relays      int
	Consumers   int    // consumer processes, all reading the one broker
	Operator    bool   // run the operator process (redrive, reprocess, resubmissions, conflicts)
	Kills       int    // SIGKILLs to land before draining (and at least one per kill point, when Kills is not below their number)
	Seed        uint64 // seeds the choice of kill points (timing is real, so runs differ anyway)
	Jobs        int    // jobs enqueued up front; more are fed while kills remain
	Lease       time.Duration
	Work        time.Duration // simulated work per stage
	SlowWork    time.Duration // work per stage of ".slow" jobs (0: 3/5 of Lease)
	MaxAttempts int           // attempt ceiling, but FewAttempts for ".few" jobs
	Timeout     time.Duration // the whole run
	Drain       time.Duration // the drain after the last kill
	PauseEvery  time.Duration // SIGSTOP a random worker this often (a zombie); 0 never
	Freeze      time.Duration // how long, on average (±25%); 0: three leases. Must exceed 4/3 of Lease
	Dir         string        // history files; "" a temporary directory, removed after a passing run
	// AnyPaths: a run whose workload missed a path through the store does
	// not fail for it (a short run, such as a mutation killer's, may miss
	// a rare one by chance); the paths are still counted.
	AnyPaths bool
	Exe      string    // the durasim binary; "" this one
	Log      io.Writer // progress lines; nil none
}

// DefaultConfig is the chaos command's defaults.
func DefaultConfig() Config {
	return Config{Workers: 8, Relays: 2, Consumers: 2, Operator: true, Kills: 500, Seed: 1, Jobs: 200,
		Lease: 500 * time.Millisecond, Work: 2 * time.Millisecond, MaxAttempts: 10,
		PauseEvery: 300 * time.Millisecond, Timeout: 10 * time.Minute, Drain: 2 * time.Minute}
}

// UsageError is bad input: a flag out of range, a database that does not
// connect or holds a schema of another version. The command exits 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error { return &UsageError{fmt.Errorf(format, args...)} }

func (c Config) validate() error {
	switch {
	case c.DB == "":
		return usage("no database: give -db or set DURASIM_PG_URL")
	case c.Workers < 1:
		return usage("-workers must be >= 1 (got %d)", c.Workers)
	case c.Relays < 1:
		return usage("-relays must be >= 1 (got %d)", c.Relays)
	case c.Kills < 0:
		return usage("-kills must be >= 0 (got %d)", c.Kills)
	case c.Consumers < 1:
		return usage("-consumers must be >= 1 (got %d)", c.Consumers)
	case c.Workers+c.Relays+c.Consumers > 63:
		return usage("-workers, -relays and -consumers must add up to at most 63 (each is a process with its own connection)")
	case c.Jobs < 1:
		return usage("-jobs must be >= 1 (got %d)", c.Jobs)
	case c.Lease <= 0 || c.Work < 0 || c.SlowWork < 0 || c.Timeout <= 0 || c.Drain <= 0 || c.PauseEvery < 0 || c.Freeze < 0:
		return usage("-lease, -timeout and -drain must be > 0, -work, -slow-work, -pause-every and -freeze >= 0")
	case c.PauseEvery > 0 && c.freeze()*3/4 <= c.Lease:
		return usage("-freeze %v must be above 4/3 of -lease %v: a shorter freeze can end before the lease does, and makes no zombie", c.freeze(), c.Lease)
	case c.MaxAttempts < FewAttempts+1:
		return usage("-max-attempts must be >= %d (the \".few\" jobs have %d)", FewAttempts+1, FewAttempts)
	}
	return nil
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

// Run runs a chaos campaign and checks it. The error is a *UsageError for
// bad input, another error when the run could not finish (a process died
// of something else than its kill point, the run's timeout); a finished
// run returns its report, whose OK says whether every invariant held. A
// drain that does not end in time is a finished run: its report says why
// (a liveness violation).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	store, err := sqlstore.Open(octx, sqlstore.Postgres, cfg.DB)
	cancel()
	if err != nil {
		return nil, &UsageError{err}
	}
	defer store.Close()
	if err := store.Reset(ctx); err != nil {
		return nil, err
	}
	o := &orch{cfg: cfg, store: store, rng: rand.New(rand.NewPCG(cfg.Seed, 0x0c4a05)),
		kills: map[Point]int{}, stmts: map[Point]map[int]int{}, assigned: map[Point]int{}, inc: map[string]int{},
		cursors: map[int]int64{}}
	if o.exe = cfg.Exe; o.exe == "" {
		if o.exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if o.dir = cfg.Dir; o.dir == "" {
		if o.dir, err = os.MkdirTemp("", "durasim-chaos-*"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return nil, err
	} else if old, _ := filepath.Glob(filepath.Join(o.dir, "*.jsonl")); len(old) > 0 {
		return nil, usage("-dir %s already holds histories (%s): give an empty directory", o.dir, filepath.Base(old[0]))
	}
	rctx, rcancel := context.WithTimeout(ctx, cfg.Timeout)
	defer rcancel()
	rep, err := o.run(rctx)
	if rep != nil {
		rep.Elapsed = time.Since(start)
		rep.Dir = o.dir
	}
	if cfg.Dir == "" && err == nil && rep.OK() {
		os.RemoveAll(o.dir)
		rep.Dir = ""
	}
	return rep, err
}

type orch struct {
	cfg   Config
	store *sqlstore.Store
	exe   string
	dir   string

	mu       sync.Mutex
	rng      *rand.Rand
	kills    map[Point]int
	stmts    map[Point]map[int]int // inside points: kills per statement boundary
	assigned map[Point]int         // live processes waiting to die at each point
	total    int
	restarts int
	killing  bool
	reached  chan struct{} // closed when total reaches cfg.Kills
	failure  error
	cursors  map[int]int64 // each consumer slot's last recorded broker message
	keys     []string
	inc      map[string]int // next incarnation of each slot
	pauses   int
}

// gen is one generation of processes: the killing one, then the clean one
// that drains.
type gen struct {
	kills    bool
	mu       sync.Mutex
	stopping bool
	running  map[*exec.Cmd]string // → role
	names    map[*exec.Cmd]string // → process name
	wg       sync.WaitGroup
}

func (o *orch) logf(format string, args ...any) {
	if o.cfg.Log != nil {
		fmt.Fprintf(o.cfg.Log, "chaos: "+format+"\n", args...)
	}
}

func (o *orch) run(ctx context.Context) (*Report, error) {
	conn, err := o.store.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := o.enqueue(ctx, conn, o.cfg.Jobs); err != nil {
		return nil, err
	}
	t1 := time.Now()
	if err := o.killPhase(ctx, conn); err != nil {
		return nil, err
	}
	killPhase := time.Since(t1)
	o.logf("%d kills in %v; draining", o.totalKills(), killPhase.Round(time.Millisecond))

	t2 := time.Now()
	drained, err := o.drain(ctx)
	if err != nil {
		return nil, err
	}
	drain := time.Since(t2)
	if !drained {
		o.logf("not drained after %v: checking what is left", o.cfg.Drain)
	}

	// The checks read the final state once every process is gone.
	st, err := o.store.State(ctx)
	if err != nil {
		return nil, err
	}
	hist, err := readHistories(o.dir)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	rep := &Report{Workers: o.cfg.Workers, Relays: o.cfg.Relays, Consumers: o.cfg.Consumers, Operator: o.cfg.Operator,
		Seed: o.cfg.Seed, Target: o.cfg.Kills, AnyPaths: o.cfg.AnyPaths, Kills: o.kills, KillStmts: o.stmts, Restarts: o.restarts, Pauses: o.pauses,
		KillPhase: killPhase, DrainPhase: drain, DrainLimit: o.cfg.Drain, Drained: drained, Cursors: map[string]int64{}}
	for i, c := range o.cursors {
		rep.Cursors[ProcName(RoleConsumer, i, 0)] = c
	}
	keys := o.keys
	o.mu.Unlock()
	check(rep, st, hist, keys)
	return rep, nil
}

// killPhase runs processes with kill points, restarted after each kill,
// fed with jobs and frozen now and then, until enough kills have landed.
func (o *orch) killPhase(ctx context.Context, conn *sqlstore.Conn) error {
	o.killing = o.cfg.Kills > 0
	o.reached = make(chan struct{})
	if !o.killing {
		return nil
	}
	g := o.start(ctx, true)
	defer o.stop(g)
	feed := time.NewTicker(50 * time.Millisecond)
	defer feed.Stop()
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
			return fmt.Errorf("timed out after %v with %d of %d kills", o.cfg.Timeout, o.totalKills(), o.cfg.Kills)
		case <-progress.C:
			o.logf("%d/%d kills", o.totalKills(), o.cfg.Kills)
		case <-pause:
			o.pause(ctx, g)
		case <-feed.C:
			if err := o.failed(); err != nil {
				return err
			}
			if err := o.feed(ctx, conn); err != nil {
				return err
			}
		}
	}
}

// drain restarts everything without kill points until every job is
// terminal, every row published, every event applied and (with the
// operator) nothing left for the operator; false when Drain ran out
// first (the checks then say what was left).
func (o *orch) drain(ctx context.Context) (bool, error) {
	g := o.start(ctx, false)
	defer o.stop(g)
	dctx, cancel := context.WithTimeout(ctx, o.cfg.Drain)
	defer cancel()
	read := DBReader{o.store.DB()}
	for {
		if err := o.failed(); err != nil {
			return false, err
		}
		b, err := o.store.Backlog(dctx)
		done := err == nil && b.Drained()
		if done && o.cfg.Operator {
			var rd, rp, au int
			rd, rp, au, err = read.OperatorWork(dctx)
			done = err == nil && rd+rp+au == 0
		}
		if done {
			o.stop(g)
			return true, o.failed()
		}
		if dctx.Err() != nil {
			if ctx.Err() != nil {
				return false, fmt.Errorf("timed out after %v while draining", o.cfg.Timeout)
			}
			return false, nil
		}
		if err != nil {
			return false, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (o *orch) totalKills() int { o.mu.Lock(); defer o.mu.Unlock(); return o.total }

func (o *orch) failed() error { o.mu.Lock(); defer o.mu.Unlock(); return o.failure }

func (o *orch) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failure == nil {
		o.failure = err
	}
}

// enqueue adds n jobs of the mix (MixTraits): poison, flaky, slow, with
// few attempts, with a short or an almost passed deadline.
func (o *orch) enqueue(ctx context.Context, c *sqlstore.Conn, n int) error {
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
		if _, _, err := c.Enqueue(ctx, j); err != nil {
			return fmt.Errorf("enqueue: %w", err)
		}
	}
	return nil
}

// feed keeps a backlog while kills remain, so that every kill point keeps
// being reached (after_dlq_write needs poison jobs to keep coming). The
// backlog is kept short: a job whose holder is frozen is taken over
// (making a zombie) only once the jobs ahead of it are leased.
func (o *orch) feed(ctx context.Context, c *sqlstore.Conn) error {
	b, err := o.store.Backlog(ctx)
	if err != nil {
		return err
	}
	if want := 2*o.cfg.Workers + 4; b.Live < want {
		return o.enqueue(ctx, c, want-b.Live)
	}
	return nil
}

// choose picks a kill point of role for a new process: a point no kill has
// reached yet and no live process is waiting at, if any, to die at its
// first crossing, so that every point is covered early (a rare point such
// as after_dlq_write, crossed once per dead job, otherwise could wait past
// the kill phase); else any point of the role. An inside point gets a
// statement boundary at random.
func (o *orch) choose(role string) (p Point, nth, stmt int) {
	pts := PointsOf(role)
	var fresh []Point
	for _, p := range pts {
		if o.kills[p] == 0 && o.assigned[p] == 0 {
			fresh = append(fresh, p)
		}
	}
	nth = 1
	switch {
	case len(fresh) > 0:
		p = fresh[o.rng.IntN(len(fresh))]
	case role == RoleRelay || role == RoleConsumer:
		// Relays and consumers cross their points many times a second;
		// a longer life keeps them from taking most of the kills.
		p, nth = pts[o.rng.IntN(len(pts))], 1+o.rng.IntN(12)
	default:
		p, nth = pts[o.rng.IntN(len(pts))], 1+o.rng.IntN(3)
	}
	if b := Boundaries(p); b > 0 {
		stmt = 1 + o.rng.IntN(b)
	}
	o.assigned[p]++
	return p, nth, stmt
}

func (o *orch) start(ctx context.Context, kills bool) *gen {
	g := &gen{kills: kills, running: map[*exec.Cmd]string{}, names: map[*exec.Cmd]string{}}
	slot := func(role string, id int) {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			o.slot(ctx, g, role, id)
		}()
	}
	for i := range o.cfg.Workers {
		slot(RoleWorker, i)
	}
	for i := range o.cfg.Relays {
		slot(RoleRelay, i)
	}
	for i := range o.cfg.Consumers {
		slot(RoleConsumer, i)
	}
	if o.cfg.Operator {
		slot(RoleOperator, 0)
	}
	return g
}

// stop asks every process of g to stop (SIGTERM: it finishes the store
// call in flight and writes its line, then exits) and waits for them.
// Stopping twice is harmless.
func (o *orch) stop(g *gen) {
	g.mu.Lock()
	g.stopping = true
	for c := range g.running {
		c.Process.Signal(syscall.SIGTERM)
		c.Process.Signal(syscall.SIGCONT) // a paused one must run to see it
	}
	g.mu.Unlock()
	g.wg.Wait()
}

// slot runs one process after another in a role's slot.
func (o *orch) slot(ctx context.Context, g *gen, role string, id int) {
	for {
		o.mu.Lock()
		if o.failure != nil || ctx.Err() != nil || (g.kills && !o.killing) {
			o.mu.Unlock()
			return
		}
		var point Point
		var nth, stmt int
		if g.kills {
			point, nth, stmt = o.choose(role)
		}
		cursor := o.cursors[id]
		inc := o.inc[role+strconv.Itoa(id)]
		o.inc[role+strconv.Itoa(id)]++ // incarnations count across generations
		o.mu.Unlock()
		g.mu.Lock()
		if g.stopping {
			g.mu.Unlock()
			o.unassign(point)
			return
		}
		proc := ProcName(role, id, inc)
		path := filepath.Join(o.dir, proc+".jsonl")
		args := []string{"worker", "-role", role, "-id", strconv.Itoa(id), "-incarnation", strconv.Itoa(inc),
			"-history", path, "-seed", strconv.FormatUint(o.cfg.Seed, 10),
			"-lease", o.cfg.Lease.String(), "-work", o.cfg.Work.String(), "-slow-work", o.cfg.slowWork().String()}
		if role == RoleConsumer {
			args = append(args, "-cursor", strconv.FormatInt(cursor, 10))
		}
		if point != "" {
			args = append(args, "-kill-at", string(point), "-kill-nth", strconv.Itoa(nth))
			if stmt > 0 {
				args = append(args, "-kill-stmt", strconv.Itoa(stmt))
			}
		}
		cmd := exec.Command(o.exe, args...)
		// The URL goes by environment, not argv: no password in ps.
		cmd.Env = append(os.Environ(), "DURASIM_PG_URL="+o.cfg.DB)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		setPdeathsig(cmd)
		if err := cmd.Start(); err != nil {
			g.mu.Unlock()
			o.fail(fmt.Errorf("starting %s: %v", proc, err))
			return
		}
		g.running[cmd], g.names[cmd] = role, proc
		g.mu.Unlock()
		werr := cmd.Wait()
		g.mu.Lock()
		delete(g.running, cmd)
		delete(g.names, cmd)
		stopping := g.stopping
		g.mu.Unlock()

		entries, _ := ReadHistory(path)
		var last Entry
		if len(entries) > 0 {
			last = entries[len(entries)-1]
		}
		if role == RoleConsumer {
			o.mu.Lock()
			for _, e := range entries {
				if e.Op == OpApply && e.Msg > o.cursors[id] {
					o.cursors[id] = e.Msg
				}
			}
			o.mu.Unlock()
		}
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		switch {
		case point != "" && ws.Signaled() && ws.Signal() == syscall.SIGKILL && last.Op == OpKill && last.Point == string(point):
			o.mu.Lock()
			o.kills[point]++
			if stmt > 0 {
				if o.stmts[point] == nil {
					o.stmts[point] = map[int]int{}
				}
				o.stmts[point][last.Stmt]++
			}
			o.assigned[point]--
			o.total++
			o.restarts++
			if o.killing && o.total >= o.cfg.Kills && o.everyPointKilled() {
				o.killing = false
				close(o.reached)
			}
			o.mu.Unlock()
		case stopping && (werr == nil || ws.Signaled() && ws.Signal() == syscall.SIGTERM):
			o.unassign(point)
			return
		default:
			o.unassign(point)
			msg := bytes.TrimSpace(stderr.Bytes())
			if len(msg) > 400 {
				msg = msg[len(msg)-400:]
			}
			o.fail(fmt.Errorf("%s died outside its kill point (%v): %s", proc, cmd.ProcessState, msg))
			return
		}
	}
}

// pause freezes a worker (SIGSTOP) for about Freeze (75% to 125% of it),
// longer than a lease, as a long GC pause or a stalled VM would: its lease
// expires, another worker takes the job under a higher fence, and when it
// wakes up its writes must be refused. The worker is one holding a lease
// (the jobs table names holders) when there is one, so that most freezes
// make a zombie. The kill phase's end thaws it (stop sends SIGCONT).
func (o *orch) pause(ctx context.Context, g *gen) {
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
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return
	}
	var all, holding []*exec.Cmd
	for c, role := range g.running {
		if role == RoleWorker {
			all = append(all, c)
			if holders[g.names[c]] {
				holding = append(holding, c)
			}
		}
	}
	if len(holding) > 0 {
		all = holding
	}
	if len(all) == 0 {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Process.Pid < all[j].Process.Pid })
	o.mu.Lock()
	c := all[o.rng.IntN(len(all))]
	d := o.cfg.freeze()*3/4 + time.Duration(o.rng.Int64N(int64(o.cfg.freeze()/2)+1))
	o.pauses++
	o.mu.Unlock()
	if c.Process.Signal(syscall.SIGSTOP) != nil {
		return
	}
	time.AfterFunc(d, func() { c.Process.Signal(syscall.SIGCONT) })
}

// everyPointKilled reports whether each kill point of the run's roles has
// had a kill, or -kills is below their number (then any -kills kills
// end the phase). The kill phase lasts until it does: a rare point (the
// operator's, crossed once per dead job) must not be left out because
// the frequent ones reached -kills first. o.mu is held.
func (o *orch) everyPointKilled() bool {
	pts := o.points()
	if o.cfg.Kills < len(pts) {
		return true
	}
	for _, p := range pts {
		if o.kills[p] == 0 {
			return false
		}
	}
	return true
}

// points lists the kill points of the run's roles.
func (o *orch) points() []Point {
	var pts []Point
	for _, r := range Roles() {
		if r != RoleOperator || o.cfg.Operator {
			pts = append(pts, PointsOf(r)...)
		}
	}
	return pts
}

func (o *orch) unassign(p Point) {
	if p == "" {
		return
	}
	o.mu.Lock()
	o.assigned[p]--
	o.mu.Unlock()
}

// readHistories reads every history file of a run.
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
