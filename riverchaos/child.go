package riverchaos

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"reflect"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/durasim/durasim/crash/workload"
)

// ChildConfig is one child process of a run: one River client.
type ChildConfig struct {
	workload.Child
	DB string
	// NoLead is River's LeaderElectionDisabled: the client works jobs but
	// never leads, so River's maintenance runs on the others.
	NoLead      bool
	MaxAttempts int
	RescueAfter time.Duration
	JobTimeout  time.Duration
	RetryCap    time.Duration
}

// ProcName is a child's name in histories, reports and River's
// attempted_by (its client ID): w3.2 is slot 3's third incarnation (the
// first is w3).
func ProcName(id, inc int) string { return workload.ProcName(id, inc) }

// Flags defines the child's flags on fs, parsed into c. -db's default is
// $DURASIM_PG_URL: the orchestrator passes the URL by environment, so
// that no password shows in ps.
func (c *ChildConfig) Flags(fs *flag.FlagSet) {
	d := DefaultConfig()
	c.Child.Flags(fs, d.Config) // -concurrency is River's MaxWorkers
	c.MaxAttempts, c.RescueAfter, c.JobTimeout, c.RetryCap = d.MaxAttempts, d.RescueAfter, d.JobTimeout, d.RetryCap
	fs.StringVar(&c.DB, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL (default $DURASIM_PG_URL)")
	fs.BoolVar(&c.NoLead, "no-lead", false, "River's LeaderElectionDisabled: never lead (River's maintenance runs on the other clients)")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "River's MaxAttempts (the inserts give their own)")
	fs.DurationVar(&c.RescueAfter, "rescue-after", c.RescueAfter, "River's RescueStuckJobsAfter")
	fs.DurationVar(&c.JobTimeout, "job-timeout", c.JobTimeout, "River's JobTimeout")
	fs.DurationVar(&c.RetryCap, "retry-cap", c.RetryCap, "cap of River's default retry policy")
}

// Args is the command line Flags parses back into c, but -db.
func (c ChildConfig) Args() []string {
	args := append(c.Child.Args(), "-max-attempts", itoa(c.MaxAttempts), "-rescue-after", c.RescueAfter.String(),
		"-job-timeout", c.JobTimeout.String(), "-retry-cap", c.RetryCap.String())
	if c.NoLead {
		args = append(args, "-no-lead")
	}
	return args
}

// Validate reports the first problem with c as a one-line error.
func (c ChildConfig) Validate() error {
	switch {
	case c.DB == "":
		return errors.New("no database: give -db or set DURASIM_PG_URL")
	case c.MaxAttempts < 1:
		return errors.New("-max-attempts must be >= 1")
	case c.JobTimeout <= 0 || c.RescueAfter <= c.JobTimeout || c.RetryCap <= 0:
		return errors.New("-job-timeout must be positive and below -rescue-after; -retry-cap positive")
	}
	return c.Child.Validate("River", Designs())
}

// Run is RunChild(ctx, c).
func (c ChildConfig) Run(ctx context.Context) error { return RunChild(ctx, c) }

// RunChild runs one River client, its workers working the document kind
// with c's handler design, until SIGTERM or SIGINT (then it stops the
// client, waiting for its jobs, and returns nil), an error, or its kill
// point.
func RunChild(ctx context.Context, c ChildConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	proc := c.Name()
	ctx, hist, kill, end, err := c.Begin(ctx, "durasim river-worker")
	if err != nil {
		return err
	}
	defer end()
	pool, err := workload.OpenPool(ctx, c.DB, "durasim-"+proc, int32(c.Concurrency+4))
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer pool.Close()
	w := &docWorker{h: (&workload.Handler{Store: workload.PG{Pool: pool}, Design: c.Design, Name: proc, Hist: hist, Kill: kill, Work: c.Work,
		Complete: completeTx}).Seeded(c.Seed, c.ID, c.Incarnation)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	rc := &river.Config{
		ID:                   proc,
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: c.Concurrency}},
		Workers:              workers,
		MaxAttempts:          c.MaxAttempts,
		RescueStuckJobsAfter: c.RescueAfter,
		JobTimeout:           c.JobTimeout,
		RetryPolicy:          &cappedRetry{max: c.RetryCap},
		Logger:               slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if c.NoLead {
		disableLeaderElection(rc)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		return err
	}
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-client.Stopped():
		return errors.New("the River client stopped by itself")
	}
	// River's soft stop, with no limit: every handler call is bound to the
	// job's context, so a job ends by its JobTimeout. (A hard stop would
	// cancel the jobs, and River would make them available with their
	// attempt given back, which the checks' feed excludes; the
	// orchestrator SIGKILLs a child that does not stop in time.)
	return client.Stop(context.Background())
}

// disableLeaderElection sets River's Config.LeaderElectionDisabled, which
// River has since v0.48.0; set by name, so that the adapter builds against
// v0.47.0 too (make river-compat), where every client bids for leadership
// and the field is not there to set.
func disableLeaderElection(rc *river.Config) bool {
	f := reflect.ValueOf(rc).Elem().FieldByName("LeaderElectionDisabled")
	if !f.IsValid() || f.Kind() != reflect.Bool {
		return false
	}
	f.SetBool(true)
	return true
}
