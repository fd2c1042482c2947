package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/durasim/durasim/riverchaos"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// cmdChaosRiver is `durasim chaos -target river`: River's real client in
// child processes (`durasim river-worker`) on PostgreSQL, SIGKILLed at
// named points of the handler and frozen past RescueStuckJobsAfter, then
// checked from the histories and the database with the partial target
// checks.
func cmdChaosRiver(args []string, stdout, stderr io.Writer) error {
	c := riverchaos.DefaultConfig()
	fs := flag.NewFlagSet("durasim chaos", flag.ContinueOnError)
	tgt := fs.String("target", "river", "the queue whose real client is run: river (River "+rivertarget.Version()+", riverpgxv5)")
	cf := crashFlags(fs, &c.Settings, &c.DB, crashHelp{db: "River's tables and durasim's effects in it are emptied",
		pause: "freeze (SIGSTOP) a child holding a job this often, until River hands the job to another client; 0 never", max: riverchaos.MaxKills})
	fs.IntVar(&c.Workers, "workers", c.Workers, fmt.Sprintf("child processes, one River client each, 2 to %d", riverchaos.MaxProcesses))
	fs.IntVar(&c.Steady, "steady", c.Steady, "children never killed (only frozen): while the others are killed, the only ones to lead and run River's rescuer and scheduler")
	fs.BoolVar(&c.KilledLead, "killed-lead", c.KilledLead, "let the children being killed take part in leader election too (fresh ones win it and die before River's maintenance runs)")
	fs.IntVar(&c.MaxWorkers, "max-workers", c.MaxWorkers, fmt.Sprintf("River's MaxWorkers per client, 1 to %d", riverchaos.MaxMaxWorkers))
	fs.IntVar(&c.Jobs, "jobs", c.Jobs, fmt.Sprintf("documents inserted up front, 1 to %d (more are fed while the kill phase lasts; some inserted twice)", riverchaos.MaxJobs))
	design := fs.String("design", c.Design.String(), "handler design: "+riverchaos.DesignNames())
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "each job's max_attempts, 1 to 25")
	fs.DurationVar(&c.RescueAfter, "rescue-after", c.RescueAfter, "River's RescueStuckJobsAfter")
	fs.DurationVar(&c.JobTimeout, "job-timeout", c.JobTimeout, "River's JobTimeout, below -rescue-after")
	fs.DurationVar(&c.Work, "work", c.Work, "the handler's work per job, ±50%")
	fs.DurationVar(&c.MaxFreeze, "max-freeze", c.MaxFreeze, "thaw a frozen child after this long even if no other client took its job (above -rescue-after)")
	fs.IntVar(&c.Zombies, "zombies", c.Zombies, "the kill phase lasts until this many frozen children had their job taken over")
	fs.DurationVar(&c.RetryCap, "retry-cap", c.RetryCap, "cap of River's default retry policy (attempt^4 s), so that a job rescued often comes back within the run")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *tgt != "river" {
		return usageErr("unknown -target %q: want river", *tgt)
	}
	d, err := targetsim.LookupDesign(*design)
	if err != nil {
		return usageErr("%v", err)
	}
	c.Design = d
	return cf.run(stdout, stderr, c.Validate, func() (crashReport, error) { return riverchaos.Run(context.Background(), c) })
}

// cmdRiverWorker is one child of a `chaos -target river` run: one River
// client; the orchestrator starts it.
func cmdRiverWorker(args []string, stdout, stderr io.Writer) error {
	return runCrashChild("durasim river-worker", &riverchaos.ChildConfig{}, args, stderr)
}
