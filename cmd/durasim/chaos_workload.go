package main

import (
	"flag"
	"fmt"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/targetsim"
)

// workloadHelp is what the flags every queue library's chaos run has
// (package crash/workload's Config) say for one library.
type workloadHelp struct {
	child       string // what one child process is: "one River client"
	steady      string // -steady's help
	concurrency string // the flag of jobs at once per process: River's -max-workers, -concurrency
	perProcess  string // its help
	jobs        string // -jobs's help, after its range
	jobTimeout  string
	maxFreeze   string
	zombies     string
	designs     string // -design's help, "" for no -design flag (mutants runs them all)
}

// workloadFlags defines the workload's flags on fs, into c; the design's
// name is parsed by workloadDesign.
func workloadFlags(fs *flag.FlagSet, c *workload.Config, h workloadHelp) *string {
	fs.IntVar(&c.Workers, "workers", c.Workers, fmt.Sprintf("child processes, %s each, 2 to %d", h.child, workload.MaxProcesses))
	fs.IntVar(&c.Steady, "steady", c.Steady, h.steady)
	fs.IntVar(&c.Concurrency, h.concurrency, c.Concurrency, fmt.Sprintf("%s, 1 to %d", h.perProcess, workload.MaxConcurrency))
	fs.IntVar(&c.Jobs, "jobs", c.Jobs, fmt.Sprintf("documents inserted up front, 1 to %d (%s)", workload.MaxJobs, h.jobs))
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "each job's max attempts, 1 to 25")
	fs.DurationVar(&c.JobTimeout, "job-timeout", c.JobTimeout, h.jobTimeout)
	fs.DurationVar(&c.Work, "work", c.Work, "the handler's work per job, ±50%")
	fs.DurationVar(&c.MaxFreeze, "max-freeze", c.MaxFreeze, h.maxFreeze)
	fs.IntVar(&c.Zombies, "zombies", c.Zombies, h.zombies)
	if h.designs == "" {
		return nil
	}
	return fs.String("design", c.Design.String(), "handler design: "+h.designs)
}

// workloadDesign sets c's design from -design's value (nil: no flag).
func workloadDesign(name *string, c *workload.Config) error {
	if name == nil {
		return nil
	}
	d, err := targetsim.LookupDesign(*name)
	if err != nil {
		return usageErr("%v", err)
	}
	c.Design = d
	return nil
}
