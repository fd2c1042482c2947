package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"

	"github.com/durasim/durasim/chaos"
	"github.com/durasim/durasim/internal/pgtest"
)

// Bounds of chaos: every job and every kill's history lines are checked
// in memory at the end, and each kill restarts a process (about 40 ms).
const maxChaosJobs, maxChaosKills = 100_000, 100_000

// cmdChaos is the real-crash mode: worker, relay, consumer and operator
// processes against PostgreSQL, SIGKILLed at named points, restarted,
// then checked.
func cmdChaos(args []string, stdout, stderr io.Writer) error {
	if _, ok := targetOf(args); ok {
		return cmdChaosRiver(args, stdout, stderr) // chaos_river.go
	}
	c := chaos.DefaultConfig()
	fs := flag.NewFlagSet("durasim chaos", flag.ContinueOnError)
	fs.StringVar(&c.DB, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL (default $DURASIM_PG_URL); its durasim tables are emptied")
	fs.IntVar(&c.Workers, "workers", c.Workers, "worker processes (workers plus relays at most 64)")
	fs.IntVar(&c.Relays, "relays", c.Relays, "relay processes")
	fs.IntVar(&c.Consumers, "consumers", c.Consumers, "consumer processes, all reading the one broker (the ledger refuses their duplicate deliveries)")
	fs.BoolVar(&c.Operator, "operator", c.Operator, "run the operator process: redrive, reprocess, resubmissions and conflicting payloads")
	fs.IntVar(&c.Kills, "kills", c.Kills, "SIGKILLs to land at named points before draining, 0 to 100000")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the kill-point choices")
	fs.IntVar(&c.Jobs, "jobs", c.Jobs, "jobs enqueued up front, 1 to 100000 (more are fed while kills remain)")
	fs.DurationVar(&c.Lease, "lease", c.Lease, "lease duration (heartbeats renew it)")
	fs.DurationVar(&c.Work, "work", c.Work, "simulated work per stage")
	fs.DurationVar(&c.SlowWork, "slow-work", c.SlowWork, "work per stage of the slow jobs (0: 3/5 of -lease, so that they heartbeat)")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempt ceiling per job (the \".few\" jobs have 3)")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "limit for the whole run")
	fs.DurationVar(&c.Drain, "drain", c.Drain, "limit for the drain after the last kill")
	fs.DurationVar(&c.PauseEvery, "pause-every", c.PauseEvery, "freeze a random worker (SIGSTOP) this often, making a zombie; 0 never")
	fs.DurationVar(&c.Freeze, "freeze", c.Freeze, "how long a freeze lasts on average, ±25% (0: two leases); above 4/3 of -lease")
	fs.StringVar(&c.Dir, "dir", "", "keep the processes' histories in this directory (default: a temporary one, removed after a passing run)")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	everyPath := fs.Bool("every-path", true, "fail a run whose workload missed a path through the store (false: count them only, for short runs)")
	scratch := fs.Bool("scratch-db", false, "run in a new database made on -db's server and dropped at the end, so runs can share a server")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if c.Jobs > maxChaosJobs || c.Kills > maxChaosKills {
		return usageErr("-jobs and -kills must be at most %d (got %d and %d)", maxChaosJobs, c.Jobs, c.Kills)
	}
	if *scratch && c.DB != "" { // no -db at all: chaos.Run says so
		url, drop, err := pgtest.Scratch(c.DB)
		if err != nil {
			return usageErr("-scratch-db: %v", err)
		}
		defer drop()
		c.DB = url
	}
	if !*quiet {
		c.Log = stderr
	}
	c.AnyPaths = !*everyPath
	rep, err := chaos.Run(context.Background(), c)
	var ue *chaos.UsageError
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

// cmdWorker is one process of a chaos run; the chaos command starts it.
func cmdWorker(args []string, stdout, stderr io.Writer) error {
	var c chaos.ChildConfig
	var killAt string
	fs := flag.NewFlagSet("durasim worker", flag.ContinueOnError)
	fs.StringVar(&c.DB, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL (default $DURASIM_PG_URL)")
	fs.StringVar(&c.Role, "role", chaos.RoleWorker, "worker, relay, consumer or operator")
	fs.IntVar(&c.ID, "id", 0, "index of the process in its role")
	fs.IntVar(&c.Incarnation, "incarnation", 0, "how many times this slot was started before")
	fs.StringVar(&killAt, "kill-at", "", "kill point where the process SIGKILLs itself")
	fs.IntVar(&c.KillNth, "kill-nth", 1, "die on the nth crossing of -kill-at")
	fs.IntVar(&c.KillStmt, "kill-stmt", 0, "inside_*_after_stmt points: die after this many statements of the operation (0 any)")
	fs.StringVar(&c.History, "history", "", "file the process appends its history to (one JSON line per operation)")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed (the consumer's redeliveries)")
	fs.DurationVar(&c.Lease, "lease", chaos.DefaultConfig().Lease, "lease duration")
	fs.DurationVar(&c.Work, "work", chaos.DefaultConfig().Work, "simulated work per stage")
	fs.DurationVar(&c.SlowWork, "slow-work", 0, "work per stage of the slow jobs")
	fs.Int64Var(&c.Cursor, "cursor", 0, "consumer: resume after this broker message")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	c.KillAt = chaos.Point(killAt)
	if err := c.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if err := chaos.RunChild(context.Background(), c); err != nil {
		return &exitError{code: 1, err: err}
	}
	return nil
}
