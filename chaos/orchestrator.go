package chaos

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
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
	Kills       int    // SIGKILLs to land before draining
	Seed        uint64 // seeds the choice of kill points (timing is real, so runs differ anyway)
	Jobs        int    // jobs enqueued up front; more are fed while kills remain
	Lease       time.Duration
	Work        time.Duration // simulated work per stage
	MaxAttempts int
	Timeout     time.Duration // the whole run
	Drain       time.Duration // the drain after the last kill
	PauseEvery  time.Duration // SIGSTOP a random worker this often for 1.5 leases (a zombie); 0 never
	Dir         string        // history files; "" a temporary directory, removed after a passing run
	Exe         string        // the durasim binary; "" this one
	Log         io.Writer     // progress lines; nil none
}

// DefaultConfig is the chaos command's defaults.
func DefaultConfig() Config {
	return Config{Workers: 8, Relays: 2, Kills: 500, Seed: 1, Jobs: 200, Lease: 2 * time.Second,
		Work: 2 * time.Millisecond, MaxAttempts: 25, PauseEvery: 2 * time.Second, Timeout: 10 * time.Minute, Drain: 2 * time.Minute}
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
	case c.Workers+c.Relays > 64:
		return usage("-workers plus -relays must be at most 64 (each is a process with its own connection)")
	case c.Jobs < 1:
		return usage("-jobs must be >= 1 (got %d)", c.Jobs)
	case c.Lease <= 0 || c.Work < 0 || c.Timeout <= 0 || c.Drain <= 0 || c.PauseEvery < 0:
		return usage("-lease, -timeout and -drain must be > 0, -work and -pause-every >= 0")
	case c.MaxAttempts < 1:
		return usage("-max-attempts must be >= 1")
	}
	return nil
}

// Run runs a chaos campaign and checks it. The error is a *UsageError for
// bad input, another error when the run could not finish (a process died
// of something else than its kill point, the drain timed out); a finished
// run returns its report, whose OK says whether every invariant held.
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
		kills: map[Point]int{}, assigned: map[Point]int{}, inc: map[string]int{}}
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
	assigned map[Point]int // live processes waiting to die at each point
	total    int
	restarts int
	killing  bool
	reached  chan struct{} // closed when total reaches cfg.Kills
	failure  error
	cursor   int64 // the consumer's last recorded broker message
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
	wg       sync.WaitGroup
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
	logf := func(format string, args ...any) {
		if o.cfg.Log != nil {
			fmt.Fprintf(o.cfg.Log, "chaos: "+format+"\n", args...)
		}
	}

	// Phase 1: processes with kill points, restarted after each kill, fed
	// with jobs, until enough kills have landed.
	t1 := time.Now()
	o.killing = o.cfg.Kills > 0
	o.reached = make(chan struct{})
	if o.killing {
		g := o.start(ctx, true)
		feed := time.NewTicker(50 * time.Millisecond)
		var pause <-chan time.Time
		if o.cfg.PauseEvery > 0 {
			t := time.NewTicker(o.cfg.PauseEvery)
			defer t.Stop()
			pause = t.C
		}
		progress := time.NewTicker(5 * time.Second)
	loop:
		for {
			select {
			case <-o.reached:
				break loop
			case <-ctx.Done():
				o.stop(g)
				return nil, fmt.Errorf("timed out after %v with %d of %d kills", o.cfg.Timeout, o.totalKills(), o.cfg.Kills)
			case <-progress.C:
				logf("%d/%d kills", o.totalKills(), o.cfg.Kills)
			case <-pause:
				o.pause(g)
			case <-feed.C:
				if err := o.failed(); err != nil {
					o.stop(g)
					return nil, err
				}
				if err := o.feed(ctx, conn); err != nil {
					o.stop(g)
					return nil, err
				}
			}
		}
		feed.Stop()
		progress.Stop()
		o.stop(g)
		if err := o.failed(); err != nil {
			return nil, err
		}
	}
	killPhase := time.Since(t1)
	logf("%d kills in %v; draining", o.totalKills(), killPhase.Round(time.Millisecond))

	// Phase 2: everything restarted without kill points, until every job
	// is terminal, every row published and every event applied.
	t2 := time.Now()
	g := o.start(ctx, false)
	dctx, cancel := context.WithTimeout(ctx, o.cfg.Drain)
	defer cancel()
	var left sqlstore.Backlog
	for {
		if err := o.failed(); err != nil {
			o.stop(g)
			return nil, err
		}
		b, err := o.store.Backlog(dctx)
		if err == nil {
			left = b // a read cut short by the deadline must not report zeros
		}
		if err == nil && left.Drained() {
			break
		}
		if dctx.Err() != nil {
			o.stop(g)
			return nil, fmt.Errorf("not drained after %v: %d jobs not terminal, %d outbox rows unpublished, %d events unapplied",
				o.cfg.Drain, left.Live, left.Unpublished, left.Unapplied)
		}
		if err != nil {
			o.stop(g)
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
	o.stop(g)
	if err := o.failed(); err != nil {
		return nil, err
	}
	drain := time.Since(t2)

	// The checks read the final state once every process is gone.
	st, err := o.store.State(ctx)
	if err != nil {
		return nil, err
	}
	x, err := readExtra(ctx, o.store)
	if err != nil {
		return nil, err
	}
	hist, err := readHistories(o.dir)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	rep := &Report{Workers: o.cfg.Workers, Relays: o.cfg.Relays, Seed: o.cfg.Seed, Target: o.cfg.Kills,
		Kills: o.kills, Restarts: o.restarts, Pauses: o.pauses, KillPhase: killPhase, DrainPhase: drain}
	keys := o.keys
	o.mu.Unlock()
	check(rep, st, x, hist, keys)
	return rep, nil
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

// enqueue adds n jobs. Keys mark a tenth poison and a few flaky.
func (o *orch) enqueue(ctx context.Context, c *sqlstore.Conn, n int) error {
	now := model.Time(time.Now().UnixNano())
	for range n {
		o.mu.Lock()
		i := len(o.keys) + 1
		key := JobKey(i, i%10 == 3, map[bool]int{true: 1 + i%2}[i%7 == 5])
		o.keys = append(o.keys, key)
		o.mu.Unlock()
		h := fnv.New64a()
		h.Write([]byte(key))
		_, _, err := c.Enqueue(ctx, sqlstore.NewJob{Tenant: "t" + strconv.Itoa(i%3), Document: key, Version: 1,
			Key: key, PayloadHash: h.Sum64(), MaxAttempts: int32(o.cfg.MaxAttempts), Now: now,
			DeadlineAt: now + model.Time(24*time.Hour)})
		if err != nil {
			return fmt.Errorf("enqueue: %w", err)
		}
	}
	return nil
}

// feed keeps a backlog while kills remain, so that every kill point keeps
// being reached (after_dlq_write needs poison jobs to keep coming).
func (o *orch) feed(ctx context.Context, c *sqlstore.Conn) error {
	b, err := o.store.Backlog(ctx)
	if err != nil {
		return err
	}
	if want := 8*o.cfg.Workers + 32; b.Live < want {
		return o.enqueue(ctx, c, want-b.Live)
	}
	return nil
}

// choose picks a kill point of role for a new process: a point no kill has
// reached yet and no live process is waiting at, if any, to die at its
// first crossing, so that every point is covered early (a rare point such
// as after_dlq_write, crossed once per dead job, otherwise could wait past
// the kill phase); else any point of the role.
func (o *orch) choose(role string) (Point, int) {
	pts := PointsOf(role)
	var fresh []Point
	for _, p := range pts {
		if o.kills[p] == 0 && o.assigned[p] == 0 {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) > 0 {
		p := fresh[o.rng.IntN(len(fresh))]
		o.assigned[p]++
		return p, 1
	}
	p := pts[o.rng.IntN(len(pts))]
	o.assigned[p]++
	if role != RoleWorker {
		// Relays and the consumer cross their points many times a second;
		// a longer life keeps them from taking most of the kills.
		return p, 1 + o.rng.IntN(12)
	}
	return p, 1 + o.rng.IntN(3)
}

func (o *orch) start(ctx context.Context, kills bool) *gen {
	g := &gen{kills: kills, running: map[*exec.Cmd]string{}}
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
	slot(RoleConsumer, 0)
	return g
}

// stop asks every process of g to stop (SIGTERM: it finishes nothing, its
// open transaction rolls back) and waits for them.
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
		var nth int
		if g.kills {
			point, nth = o.choose(role)
		}
		cursor := o.cursor
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
			"-lease", o.cfg.Lease.String(), "-work", o.cfg.Work.String(),
			"-cursor", strconv.FormatInt(cursor, 10)}
		if point != "" {
			args = append(args, "-kill-at", string(point), "-kill-nth", strconv.Itoa(nth))
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
		g.running[cmd] = role
		g.mu.Unlock()
		werr := cmd.Wait()
		g.mu.Lock()
		delete(g.running, cmd)
		stopping := g.stopping
		g.mu.Unlock()

		entries, _ := ReadHistory(path)
		var last Entry
		if len(entries) > 0 {
			last = entries[len(entries)-1]
		}
		o.mu.Lock()
		if role == RoleConsumer {
			for _, e := range entries {
				if e.Op == OpApply && e.Msg > o.cursor {
					o.cursor = e.Msg
				}
			}
		}
		o.mu.Unlock()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		switch {
		case point != "" && ws.Signaled() && ws.Signal() == syscall.SIGKILL && last.Op == OpKill && last.Point == string(point):
			o.mu.Lock()
			o.kills[point]++
			o.assigned[point]--
			o.total++
			o.restarts++
			if o.killing && o.total >= o.cfg.Kills {
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

// pause freezes a random worker (SIGSTOP) for one and a half leases, as a long GC
// pause or a stalled VM would: its lease expires, another worker takes the
// job under a higher fence, and when it wakes up its writes must be
// refused. The kill phase's end thaws it (stop sends SIGCONT).
func (o *orch) pause(g *gen) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return
	}
	var ws []*exec.Cmd
	for c, role := range g.running {
		if role == RoleWorker {
			ws = append(ws, c)
		}
	}
	if len(ws) == 0 {
		return
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].Process.Pid < ws[j].Process.Pid })
	o.mu.Lock()
	c := ws[o.rng.IntN(len(ws))]
	o.pauses++
	o.mu.Unlock()
	if c.Process.Signal(syscall.SIGSTOP) != nil {
		return
	}
	time.AfterFunc(o.cfg.Lease*3/2, func() { c.Process.Signal(syscall.SIGCONT) })
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
