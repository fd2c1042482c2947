package main

import (
	"context"
	"flag"
	"io"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/riverchaos"
	"github.com/durasim/durasim/target/rivertarget"
)

// cmdChaosRiver is `durasim chaos -target river`: River's real client in
// child processes (`durasim river-worker`) on PostgreSQL, SIGKILLed at
// named points of the handler and frozen past RescueStuckJobsAfter, then
// checked from the histories and the database with the partial target
// checks.
func cmdChaosRiver(args []string, stdout, stderr io.Writer) error {
	c := riverchaos.DefaultConfig()
	fs := flag.NewFlagSet("durasim chaos", flag.ContinueOnError)
	tgt := fs.String("target", "river", "the queue whose real client is run: river (River "+rivertarget.Version()+", riverpgxv5); with -inprocess, its clients in one synctest bubble on SQLite instead (durasim chaos -target river -inprocess -h)")
	cf := crashFlags(fs, &c.Settings, &c.DB, crashHelp{db: "River's tables and durasim's effects in it are emptied",
		pause: "freeze (SIGSTOP) a child holding a job this often, until River hands the job to another client; 0 never", max: workload.MaxKills})
	design := workloadFlags(fs, &c.Config, workloadHelp{child: "one River client", concurrency: "max-workers", perProcess: "River's MaxWorkers per client",
		steady: "children never killed (only frozen): while the others are killed, the only ones to lead and run River's rescuer and scheduler",
		jobs:   "more are fed while the kill phase lasts; some inserted twice", jobTimeout: "River's JobTimeout, below -rescue-after",
		maxFreeze: "thaw a frozen child after this long even if no other client took its job (above -rescue-after)",
		zombies:   "the kill phase lasts until this many frozen children had their job taken over", designs: riverchaos.DesignNames()})
	fs.BoolVar(&c.KilledLead, "killed-lead", c.KilledLead, "let the children being killed take part in leader election too (fresh ones win it and die before River's maintenance runs)")
	fs.DurationVar(&c.RescueAfter, "rescue-after", c.RescueAfter, "River's RescueStuckJobsAfter")
	fs.DurationVar(&c.RetryCap, "retry-cap", c.RetryCap, "cap of River's default retry policy (attempt^4 s), so that a job rescued often comes back within the run")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *tgt != "river" {
		return usageErr("unknown -target %q: want river", *tgt)
	}
	if err := workloadDesign(design, &c.Config); err != nil {
		return err
	}
	return cf.run(stdout, stderr, c.Validate, func() (crashReport, error) { return riverchaos.Run(context.Background(), c) })
}

// cmdRiverWorker is one child of a `chaos -target river` run: one River
// client; the orchestrator starts it.
func cmdRiverWorker(args []string, stdout, stderr io.Writer) error {
	return runCrashChild("durasim river-worker", &riverchaos.ChildConfig{}, args, stderr)
}
