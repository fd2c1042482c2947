package main

import (
	"flag"
	"io"
	"slices"

	"github.com/durasim/durasim/internal/bubble"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/riverinproc"
	"github.com/durasim/durasim/sim"
)

// cmdChaosRiverInproc is `durasim chaos -target river -inprocess`:
// River's started clients in one testing/synctest bubble on one SQLite
// file, killed and frozen at the handler's points under virtual time
// (package riverinproc); a failing seed is run again -reruns times.
func cmdChaosRiverInproc(args []string, stdout, stderr io.Writer) error {
	c := riverinproc.DefaultConfig()
	fs := inprocFlags(&c)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if t := fs.Lookup("target").Value.String(); t != "river" {
		return usageErr("-inprocess runs River only, not -target %q", t)
	}
	if err := c.Validate(); err != nil {
		return usageErr("%v", err)
	}
	r, err := bubble.Process()
	if err != nil {
		return err
	}
	res, err := riverinproc.Sweep(r, c, stdout, repro.SelfCLI(sim.CLIProg).Command)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if len(res.Failures) > 0 {
		return errViolation
	}
	return nil
}

// inprocFlags is the in-process mode's flags, into c: one per setting of
// riverinproc.Config (its reproduce lines print them).
func inprocFlags(c *riverinproc.Config) *flag.FlagSet {
	d := riverinproc.DefaultConfig()
	fs := flag.NewFlagSet("durasim chaos -target river -inprocess", flag.ContinueOnError)
	fs.String("target", "river", "the queue: river (its started clients, in-process)")
	fs.Bool("inprocess", true, "River's clients in one synctest bubble under virtual time, not child processes")
	fs.StringVar(&c.Seeds, "seeds", d.Seeds, "seeds lo:hi")
	fs.Func("design", "handler design: "+riverinproc.DesignNames()+" (default "+d.Design.String()+")", func(s string) error { return riverinproc.SetFlag(c, "design", s) })
	fs.IntVar(&c.Workers, "workers", d.Workers, "River clients, 2 to 16")
	fs.IntVar(&c.Steady, "steady", d.Steady, "clients never killed (only frozen); they lead and run River's rescuer and scheduler")
	fs.IntVar(&c.Concurrency, "max-workers", d.Concurrency, "River's MaxWorkers per client, 1 to 16")
	fs.IntVar(&c.Jobs, "jobs", d.Jobs, "documents inserted up front (more are fed while the kill phase lasts)")
	fs.IntVar(&c.Kills, "kills", d.Kills, "kills to land at the handler's kill points (one at each first)")
	fs.IntVar(&c.MaxAttempts, "max-attempts", d.MaxAttempts, "each job's max attempts, 1 to 25")
	fs.DurationVar(&c.Work, "work", d.Work, "the handler's work per job, ±50% (River's time)")
	fs.DurationVar(&c.JobTimeout, "job-timeout", d.JobTimeout, "River's JobTimeout")
	fs.DurationVar(&c.RescueAfter, "rescue-after", d.RescueAfter, "River's RescueStuckJobsAfter, above -job-timeout")
	fs.DurationVar(&c.PauseEvery, "pause-every", d.PauseEvery, "freeze a client holding a job this often (its database calls stall); 0 never")
	fs.DurationVar(&c.MaxFreeze, "max-freeze", d.MaxFreeze, "thaw a frozen client after this long if no other client took its job")
	fs.IntVar(&c.Zombies, "zombies", d.Zombies, "the kill phase lasts until this many frozen clients had their job taken over")
	fs.DurationVar(&c.Reach, "reach", d.Reach, "the kill phase ends after this long (River's time) at the latest")
	fs.DurationVar(&c.Drain, "drain", d.Drain, "the drain's limit (River's time)")
	fs.IntVar(&c.Reruns, "reruns", d.Reruns, "runs of a failing seed again, to say how often it reproduces")
	return fs
}

// inprocess reports whether a chaos command line asks for the in-process
// mode.
func inprocess(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "-inprocess" || a == "--inprocess" || a == "-inprocess=true" || a == "--inprocess=true"
	})
}
