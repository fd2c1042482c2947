package asynqchaos

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/internal/redistest"
	"github.com/durasim/durasim/riverchaos"
	"github.com/durasim/durasim/targetsim"
)

// ChildConfig is one child process of a run: one asynq Server.
type ChildConfig struct {
	Redis, DB   string
	ID          int
	Incarnation int
	Design      targetsim.Design
	Kill        crash.Assignment // where it SIGKILLs itself; the zero value never
	History     string           // path; "" keeps no history
	Seed        uint64
	Concurrency int
	RetryDelay  time.Duration
	Work        time.Duration
}

// ShutdownTimeout is the servers' Config.ShutdownTimeout: far above a
// handler's longest run, so that a stopped server's handlers all end
// (asynq re-queues the tasks of those that do not, giving their attempt
// back, a rule the checks are not told: it never fires here).
const ShutdownTimeout = 20 * time.Second

// ProcName is a child's name in histories and reports: w3.2 is slot 3's
// third incarnation (the first is w3).
func ProcName(id, inc int) string { return crash.ProcName("w", id, inc) }

// Flags defines the child's flags on fs, parsed into c. -redis and -db
// default to $DURASIM_REDIS_ADDR and $DURASIM_PG_URL: the orchestrator
// passes them by environment, so that no password shows in ps.
func (c *ChildConfig) Flags(fs *flag.FlagSet) {
	d := DefaultConfig()
	*c = ChildConfig{Design: d.Design, Seed: 1, Concurrency: d.Concurrency, RetryDelay: d.RetryDelay, Work: d.Work}
	fs.StringVar(&c.Redis, "redis", os.Getenv(redistest.EnvAddr), "redis-server's address: a Unix socket's path or host:port (default $"+redistest.EnvAddr+")")
	fs.StringVar(&c.DB, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL of the handlers' database (default $DURASIM_PG_URL)")
	fs.IntVar(&c.ID, "id", 0, "the process's slot")
	fs.IntVar(&c.Incarnation, "incarnation", 0, "how many times the slot was started before")
	fs.Func("design", "handler design: "+DesignNames()+" (default "+d.Design.String()+")", func(s string) error {
		var err error
		c.Design, err = targetsim.LookupDesign(s)
		return err
	})
	c.Kill.Flags(fs) // -kill-at after_fetch, after_effect, after_commit; -kill-nth counts every handler's crossings
	fs.StringVar(&c.History, "history", "", "file the process appends its history to (one JSON line per operation)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the work times")
	fs.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "asynq's Config.Concurrency: tasks worked at once")
	fs.DurationVar(&c.RetryDelay, "retry-delay", c.RetryDelay, "the server's RetryDelayFunc: this delay after every error")
	fs.DurationVar(&c.Work, "work", c.Work, "the handler's work per task, ±50%")
}

// Args is the command line Flags parses back into c, but -redis and -db.
func (c ChildConfig) Args() []string {
	args := []string{"-id", strconv.Itoa(c.ID), "-incarnation", strconv.Itoa(c.Incarnation), "-design", c.Design.String(),
		"-seed", strconv.FormatUint(c.Seed, 10), "-concurrency", strconv.Itoa(c.Concurrency), "-retry-delay", c.RetryDelay.String(),
		"-work", c.Work.String()}
	if c.History != "" {
		args = append(args, "-history", c.History)
	}
	return append(args, c.Kill.Args()...)
}

// Validate reports the first problem with c as a one-line error.
func (c ChildConfig) Validate() error {
	switch {
	case c.Redis == "":
		return errors.New("no redis-server: give -redis or set " + redistest.EnvAddr)
	case c.DB == "":
		return errors.New("no database: give -db or set DURASIM_PG_URL")
	case c.ID < 0 || c.Incarnation < 0:
		return errors.New("-id and -incarnation must be >= 0")
	case c.Concurrency < 1 || c.Concurrency > MaxConcurrency:
		return fmt.Errorf("-concurrency must be 1 to %d", MaxConcurrency)
	case c.RetryDelay <= 0 || c.Work <= 0:
		return errors.New("-retry-delay and -work must be positive")
	}
	for _, d := range Designs() {
		if d == c.Design {
			return c.Kill.Check(PointsOf(c.Design), nil)
		}
	}
	return fmt.Errorf("-design %s cannot run on asynq (want one of %s)", c.Design, DesignNames())
}

// Run is RunChild(ctx, c).
func (c ChildConfig) Run(ctx context.Context) error { return RunChild(ctx, c) }

// redisOpt is asynq's connection to addr.
func redisOpt(addr string) asynq.RedisClientOpt {
	return asynq.RedisClientOpt{Network: redistest.Network(addr), Addr: addr}
}

// RunChild runs one asynq Server on the run's queue, its handler of c's
// design, until SIGTERM or SIGINT (then Shutdown: it waits for its
// handlers, and returns nil), an error, or its kill point.
func RunChild(ctx context.Context, c ChildConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	proc := ProcName(c.ID, c.Incarnation)
	zone, _ := time.Now().Zone()
	start := line(OpStart, 0, 0)
	start.Point, start.Nth, start.T0, start.Zone = c.Kill.At.String(), c.Kill.Nth, stamp(), zone
	ctx, hist, end, err := crash.Begin(ctx, c.History, proc, "durasim asynq-worker", start)
	if err != nil {
		return err
	}
	defer end()
	kill := &Killer{Assignment: c.Kill, Hist: hist}
	defer kill.Disarm()
	pool, err := openPool(ctx, c.DB, "durasim-"+proc, int32(c.Concurrency+2))
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer pool.Close()
	h := &handler{pool: pool, design: c.Design, name: proc, hist: hist, kill: kill, work: c.Work,
		rng: rand.New(rand.NewPCG(c.Seed, uint64(c.ID)<<32|uint64(c.Incarnation)))}
	delay := c.RetryDelay
	srv := asynq.NewServer(redisOpt(c.Redis), asynq.Config{
		Concurrency:              c.Concurrency,
		Queues:                   map[string]int{Queue: 1},
		RetryDelayFunc:           func(int, error, *asynq.Task) time.Duration { return delay },
		LogLevel:                 asynq.WarnLevel,
		ShutdownTimeout:          ShutdownTimeout,
		DelayedTaskCheckInterval: time.Second,
	})
	mux := asynq.NewServeMux()
	mux.Handle(TaskType, h)
	if err := srv.Start(mux); err != nil {
		return err
	}
	<-ctx.Done()
	srv.Shutdown()
	return nil
}

// entries unwraps lines for riverchaos.ToOps.
func entries(lines []Entry) []riverchaos.Entry {
	out := make([]riverchaos.Entry, len(lines))
	for i, l := range lines {
		out[i] = l.Entry
	}
	return out
}
