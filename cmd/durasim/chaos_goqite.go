package main

import (
	"context"
	"flag"
	"io"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/goqitechaos"
	"github.com/durasim/durasim/target/goqitetarget"
)

// cmdChaosGoqite is `durasim chaos -target goqite`: goqite's queue API in
// child processes (`durasim goqite-worker`) on one SQLite file,
// SIGKILLed at named points of the handler and frozen past the
// visibility timeout, then checked from the histories and the file with
// the partial target checks.
func cmdChaosGoqite(args []string, stdout, stderr io.Writer) error {
	c := goqitechaos.DefaultConfig()
	fs := flag.NewFlagSet("durasim chaos", flag.ContinueOnError)
	tgt := fs.String("target", "goqite", "the queue whose real code is run: goqite (goqite "+goqitetarget.Version()+" on an SQLite file)")
	cf := crashFlags(fs, &c.Settings, &c.DB, crashHelp{file: true, db: "goqite's table and durasim's in it are emptied",
		pause: "freeze (SIGSTOP) a child holding a message this often, until goqite hands the message to another child (its visibility timeout passed); 0 never",
		max:   workload.MaxKills})
	design := workloadFlags(fs, &c.Config, workloadHelp{child: "one worker of goqite's queue API", concurrency: "concurrency", perProcess: "messages a worker handles at once",
		steady: "children never killed (only frozen)", jobs: "more are fed while the kill phase lasts; goqite has no unique send, so each document once",
		jobTimeout: "a handler's run at most (its context), below -goqite-timeout",
		maxFreeze:  "thaw a frozen child after this long even if no other child received its message (above -goqite-timeout)",
		zombies:    "the kill phase lasts until this many frozen children had their message received by another", designs: goqitechaos.DesignNames()})
	fs.DurationVar(&c.Visibility, "goqite-timeout", c.Visibility, "goqite's NewOpts.Timeout: how long a receive hides a message (whole milliseconds)")
	fs.DurationVar(&c.RetryBase, "retry-base", c.RetryBase, "the user's retry delay: a handler's error extends the message's timeout by this·n² after its n-th error")
	fs.DurationVar(&c.RetryCap, "retry-cap", c.RetryCap, "the retry delay at most")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *tgt != "goqite" {
		return usageErr("unknown -target %q: want goqite", *tgt)
	}
	if err := workloadDesign(design, &c.Config); err != nil {
		return err
	}
	return cf.run(stdout, stderr, c.Validate, func() (crashReport, error) { return goqitechaos.Run(context.Background(), c) })
}

// cmdGoqiteWorker is one child of a `chaos -target goqite` run: one
// worker of goqite's queue API; the orchestrator starts it.
func cmdGoqiteWorker(args []string, stdout, stderr io.Writer) error {
	return runCrashChild("durasim goqite-worker", &goqitechaos.ChildConfig{}, args, stderr)
}
