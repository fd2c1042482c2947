package riverchaos

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/targetsim"
)

// ChildConfig is one child process of a run: one River client.
type ChildConfig struct {
	DB          string
	ID          int
	Incarnation int
	Design      targetsim.Design
	Kill        crash.Assignment // where it SIGKILLs itself; the zero value never
	// NoLead is River's LeaderElectionDisabled: the client works jobs but
	// never leads, so River's maintenance runs on the others.
	NoLead      bool
	History     string // path; "" keeps no history
	Seed        uint64
	MaxWorkers  int
	MaxAttempts int
	RescueAfter time.Duration
	JobTimeout  time.Duration
	RetryCap    time.Duration
	Work        time.Duration
}

// ProcName is a child's name in histories, reports and River's
// attempted_by (its client ID): w3.2 is slot 3's third incarnation (the
// first is w3).
func ProcName(id, inc int) string { return crash.ProcName("w", id, inc) }

// Flags defines the child's flags on fs, parsed into c. -db's default is
// $DURASIM_PG_URL: the orchestrator passes the URL by environment, so
// that no password shows in ps.
func (c *ChildConfig) Flags(fs *flag.FlagSet) {
	d := DefaultConfig()
	*c = ChildConfig{Design: d.Design, Seed: 1, MaxWorkers: d.MaxWorkers, MaxAttempts: d.MaxAttempts, RescueAfter: d.RescueAfter,
		JobTimeout: d.JobTimeout, RetryCap: d.RetryCap, Work: d.Work}
	fs.StringVar(&c.DB, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL (default $DURASIM_PG_URL)")
	fs.IntVar(&c.ID, "id", 0, "the process's slot")
	fs.IntVar(&c.Incarnation, "incarnation", 0, "how many times the slot was started before")
	fs.Func("design", "handler design: "+DesignNames()+" (default "+d.Design.String()+")", func(s string) error {
		var err error
		c.Design, err = targetsim.LookupDesign(s)
		return err
	})
	c.Kill.Flags(fs) // -kill-at after_fetch, after_effect, before_commit, after_commit; -kill-nth counts every handler's crossings
	fs.BoolVar(&c.NoLead, "no-lead", false, "River's LeaderElectionDisabled: never lead (River's maintenance runs on the other clients)")
	fs.StringVar(&c.History, "history", "", "file the process appends its history to (one JSON line per operation)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the work times")
	fs.IntVar(&c.MaxWorkers, "max-workers", c.MaxWorkers, "River's MaxWorkers: jobs worked at once")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "River's MaxAttempts (the inserts give their own)")
	fs.DurationVar(&c.RescueAfter, "rescue-after", c.RescueAfter, "River's RescueStuckJobsAfter")
	fs.DurationVar(&c.JobTimeout, "job-timeout", c.JobTimeout, "River's JobTimeout")
	fs.DurationVar(&c.RetryCap, "retry-cap", c.RetryCap, "cap of River's default retry policy")
	fs.DurationVar(&c.Work, "work", c.Work, "the handler's work per job, ±50%")
}

// Args is the command line Flags parses back into c, but -db.
func (c ChildConfig) Args() []string {
	args := []string{"-id", strconv.Itoa(c.ID), "-incarnation", strconv.Itoa(c.Incarnation), "-design", c.Design.String(),
		"-seed", strconv.FormatUint(c.Seed, 10), "-max-workers", strconv.Itoa(c.MaxWorkers), "-max-attempts", strconv.Itoa(c.MaxAttempts),
		"-rescue-after", c.RescueAfter.String(), "-job-timeout", c.JobTimeout.String(), "-retry-cap", c.RetryCap.String(),
		"-work", c.Work.String()}
	if c.History != "" {
		args = append(args, "-history", c.History)
	}
	args = append(args, c.Kill.Args()...)
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
	case c.ID < 0 || c.Incarnation < 0:
		return errors.New("-id and -incarnation must be >= 0")
	case c.MaxWorkers < 1 || c.MaxWorkers > MaxMaxWorkers || c.MaxAttempts < 1:
		return fmt.Errorf("-max-workers must be 1 to %d and -max-attempts >= 1", MaxMaxWorkers)
	case c.JobTimeout <= 0 || c.RescueAfter <= c.JobTimeout || c.RetryCap <= 0 || c.Work <= 0:
		return errors.New("-job-timeout must be positive and below -rescue-after; -retry-cap and -work positive")
	}
	return c.Kill.Check(PointsOf(c.Design), nil)
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
	proc := ProcName(c.ID, c.Incarnation)
	ctx, hist, end, err := crash.Begin(ctx, c.History, proc, "durasim river-worker",
		Entry{Op: OpStart, Point: c.Kill.At.String(), Nth: c.Kill.Nth, T0: stamp()})
	if err != nil {
		return err
	}
	defer end()
	kill := &Killer{Assignment: c.Kill, Hist: hist}
	defer kill.Disarm()
	pool, err := openPool(ctx, c.DB, "durasim-"+proc, int32(c.MaxWorkers+4))
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer pool.Close()
	w := &docWorker{pool: pool, design: c.Design, name: proc, hist: hist, kill: kill,
		work: c.Work, rng: rand.New(rand.NewPCG(c.Seed, uint64(c.ID)<<32|uint64(c.Incarnation)))}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	rc := &river.Config{
		ID:                   proc,
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: c.MaxWorkers}},
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
