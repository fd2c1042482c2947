package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/durasim/durasim/chaos"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/internal/pgtest"
)

// cmdChaos is the real-crash mode: worker, relay, consumer and operator
// processes against PostgreSQL, SIGKILLed at named points, restarted,
// then checked. `-target river` runs River's workload instead
// (chaos_river.go); both run on package crash's supervisor.
func cmdChaos(args []string, stdout, stderr io.Writer) error {
	if inprocess(args) {
		return cmdChaosRiverInproc(args, stdout, stderr) // chaos_river_inproc.go
	}
	if t, ok := targetOf(args); ok && t == "asynq" {
		return cmdChaosAsynq(args, stdout, stderr) // chaos_asynq.go
	}
	if t, ok := targetOf(args); ok && t == "goqite" {
		return cmdChaosGoqite(args, stdout, stderr) // chaos_goqite.go
	}
	if _, ok := targetOf(args); ok {
		return cmdChaosRiver(args, stdout, stderr) // chaos_river.go
	}
	c := chaos.DefaultConfig()
	fs := flag.NewFlagSet("durasim chaos", flag.ContinueOnError)
	cf := crashFlags(fs, &c.Settings, &c.DB, crashHelp{db: "its durasim tables are emptied",
		pause: "freeze a random worker (SIGSTOP) this often, making a zombie; 0 never", max: chaos.MaxKills})
	fs.IntVar(&c.Workers, "workers", c.Workers, "worker processes (workers plus relays at most 64)")
	fs.IntVar(&c.Relays, "relays", c.Relays, "relay processes")
	fs.IntVar(&c.Consumers, "consumers", c.Consumers, "consumer processes, all reading the one broker (the ledger refuses their duplicate deliveries)")
	fs.BoolVar(&c.Operator, "operator", c.Operator, "run the operator process: redrive, reprocess, resubmissions and conflicting payloads")
	fs.IntVar(&c.Jobs, "jobs", c.Jobs, fmt.Sprintf("jobs enqueued up front, 1 to %d (more are fed while kills remain)", chaos.MaxJobs))
	fs.DurationVar(&c.Lease, "lease", c.Lease, "lease duration (heartbeats renew it)")
	fs.DurationVar(&c.Work, "work", c.Work, "simulated work per stage")
	fs.DurationVar(&c.SlowWork, "slow-work", c.SlowWork, "work per stage of the slow jobs (0: 3/5 of -lease, so that they heartbeat)")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempt ceiling per job (the \".few\" jobs have 3)")
	fs.DurationVar(&c.Freeze, "freeze", c.Freeze, "how long a freeze lasts on average, ±25% (0: three leases); above 4/3 of -lease")
	fs.BoolVar(&c.Ordered, "ordered", c.Ordered, "workers lease FIFO, only the oldest unfinished job (the store locks the head row); the leases are checked for that order")
	everyPath := fs.Bool("every-path", true, "fail a run whose workload missed a path through the store (false: count them only, for short runs)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	c.AnyPaths = !*everyPath
	return cf.run(stdout, stderr, c.Validate, func() (crashReport, error) { return chaos.Run(context.Background(), c) })
}

// crashHelp is what the flags every real-crash workload has say for one
// workload.
type crashHelp struct {
	db    string // what -db's database loses
	file  bool   // -db is an SQLite file, not a PostgreSQL URL (no -scratch-db)
	pause string // what -pause-every freezes
	max   int    // the largest -kills
}

// crashCommand is a real-crash command's flags that are not its
// workload's configuration.
type crashCommand struct {
	db             *string
	scratch, quiet *bool
	log            *io.Writer
}

// crashFlags defines the flags every real-crash workload has: the
// database (-db, -scratch-db), the supervisor's settings, -quiet.
func crashFlags(fs *flag.FlagSet, s *crash.Settings, db *string, h crashHelp) *crashCommand {
	scratch := new(bool)
	if h.file {
		fs.StringVar(db, "db", "", "SQLite file (default: a new one in a temporary directory, removed after the run); "+h.db)
	} else {
		fs.StringVar(db, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL (default $DURASIM_PG_URL); "+h.db)
		scratch = fs.Bool("scratch-db", false, "run in a new database made on -db's server and dropped at the end, so runs can share a server")
	}
	fs.IntVar(&s.Kills, "kills", s.Kills, fmt.Sprintf("SIGKILLs to land at the kill points before draining (at least one per point), 0 to %d", h.max))
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the kill points and of the workload's choices (the timing is real: runs differ)")
	fs.DurationVar(&s.PauseEvery, "pause-every", s.PauseEvery, h.pause)
	fs.DurationVar(&s.Reach, "reach", s.Reach, "a child that has not reached its kill point after this long awake ends the run, naming the point")
	fs.DurationVar(&s.Timeout, "timeout", s.Timeout, "limit for the whole run")
	fs.DurationVar(&s.Drain, "drain", s.Drain, "limit for the drain after the kill phase")
	fs.StringVar(&s.Dir, "dir", "", "keep the histories and the children's logs in this directory (default: a temporary one, removed after a passing run)")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	return &crashCommand{db: db, scratch: scratch, quiet: quiet, log: &s.Log}
}

// crashReport is a finished real-crash run.
type crashReport interface {
	Print(io.Writer)
	OK() bool
}

// run checks the configuration, makes the scratch database, runs, and
// prints the report: exit 2 for bad input, 1 for a run that could not
// finish or a violation.
func (c *crashCommand) run(stdout, stderr io.Writer, validate func() error, run func() (crashReport, error)) error {
	if err := validate(); err != nil {
		return usageErr("%v", err)
	}
	if *c.scratch {
		url, drop, err := pgtest.Scratch(*c.db)
		if err != nil {
			return usageErr("-scratch-db: %v", err)
		}
		defer drop()
		*c.db = url
	}
	if !*c.quiet {
		*c.log = stderr
	}
	rep, err := run()
	var ue *crash.UsageError
	switch {
	case errors.As(err, &ue):
		return usageErr("%v", ue.Err)
	case err != nil:
		return &exitError{code: 1, err: err}
	}
	rep.Print(stdout)
	if !rep.OK() {
		return errViolation
	}
	return nil
}

// crashChild is one child of a real-crash run: its flags, their check,
// its run.
type crashChild interface {
	Flags(*flag.FlagSet)
	Validate() error
	Run(context.Context) error
}

// runCrashChild is a child's command (`durasim worker`, `durasim
// river-worker`); the supervisor starts it.
func runCrashChild(name string, c crashChild, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	c.Flags(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if err := c.Run(context.Background()); err != nil {
		return &exitError{code: 1, err: err}
	}
	return nil
}

// cmdWorker is one process of a chaos run; the chaos command starts it.
func cmdWorker(args []string, stdout, stderr io.Writer) error {
	return runCrashChild("durasim worker", &chaos.ChildConfig{}, args, stderr)
}
