package asynqchaos

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/hibiken/asynq"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/internal/redistest"
)

// ChildConfig is one child process of a run: one asynq Server.
type ChildConfig struct {
	workload.Child
	Redis, DB  string
	RetryDelay time.Duration
}

// ShutdownTimeout is the servers' Config.ShutdownTimeout: far above a
// handler's longest run, so that a stopped server's handlers all end
// (asynq re-queues the tasks of those that do not, giving their attempt
// back, a rule the checks are not told: it never fires here).
const ShutdownTimeout = 20 * time.Second

// Flags defines the child's flags on fs, parsed into c. -redis and -db
// default to $DURASIM_REDIS_ADDR and $DURASIM_PG_URL: the orchestrator
// passes them by environment, so that no password shows in ps.
func (c *ChildConfig) Flags(fs *flag.FlagSet) {
	d := DefaultConfig()
	c.Child.Flags(fs, d.Config)
	c.RetryDelay = d.RetryDelay
	fs.StringVar(&c.Redis, "redis", os.Getenv(redistest.EnvAddr), "redis-server's address: a Unix socket's path or host:port (default $"+redistest.EnvAddr+")")
	fs.StringVar(&c.DB, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL of the handlers' database (default $DURASIM_PG_URL)")
	fs.DurationVar(&c.RetryDelay, "retry-delay", c.RetryDelay, "the server's RetryDelayFunc: this delay after every error")
}

// Args is the command line Flags parses back into c, but -redis and -db.
func (c ChildConfig) Args() []string {
	return append(c.Child.Args(), "-retry-delay", c.RetryDelay.String())
}

// Validate reports the first problem with c as a one-line error.
func (c ChildConfig) Validate() error {
	switch {
	case c.Redis == "":
		return errors.New("no redis-server: give -redis or set " + redistest.EnvAddr)
	case c.DB == "":
		return errors.New("no database: give -db or set DURASIM_PG_URL")
	case c.RetryDelay <= 0:
		return errors.New("-retry-delay must be positive")
	}
	return c.Child.Validate("asynq", Designs())
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
	ctx, hist, kill, end, err := c.Begin(ctx, "durasim asynq-worker")
	if err != nil {
		return err
	}
	defer end()
	pool, err := workload.OpenPool(ctx, c.DB, "durasim-"+c.Name(), int32(c.Concurrency+2))
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer pool.Close()
	h := &handler{(&workload.Handler{Store: workload.PG{Pool: pool}, Design: c.Design, Name: c.Name(), Hist: hist, Kill: kill, Work: c.Work}).
		Seeded(c.Seed, c.ID, c.Incarnation)}
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

// handler is the asynq handler of the document type: the workload's
// handler of the run's design. Returning nil is asynq's ack; an error
// retries the task.
type handler struct{ h *workload.Handler }

// ProcessTask hands the task to the workload's handler, at attempt
// Retried+1 (asynq counts retries).
func (h *handler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	id, _ := asynq.GetTaskID(ctx)
	retried, _ := asynq.GetRetryCount(ctx)
	job, err := jobOfID(id)
	if err != nil {
		return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
	}
	var a workload.DocArgs
	if err := json.Unmarshal(t.Payload(), &a); err != nil {
		return fmt.Errorf("task %s: payload: %v: %w", id, err, asynq.SkipRetry)
	}
	return h.h.Handle(ctx, workload.Job{ID: job, Attempt: retried + 1, Args: a})
}
