package workload

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/targetsim"
)

// Config is what every library's chaos run has: the supervisor's
// settings and the workload's sizes and times. A library's Config embeds
// it and adds its own (its server, its timeouts).
type Config struct {
	// Settings: -kills (and one at least at each kill point, when Kills
	// is not below their number), -seed (of the kill points, the
	// freezes, the work times and the re-inserts; timing is real: runs
	// differ), -pause-every (freeze a child holding a job until another
	// child has fetched that job, or MaxFreeze ran out: then thaw it, a
	// zombie), -reach, -timeout, -drain, -dir.
	crash.Settings
	// Workers is the number of child processes, one library client
	// each; Steady of them are never given a kill point (only frozen).
	Workers, Steady int
	Concurrency     int // jobs a process works at once (River's MaxWorkers, asynq's Concurrency)
	Jobs            int // documents inserted up front; more are fed while the kill phase lasts
	Design          targetsim.Design
	MaxAttempts     int
	JobTimeout      time.Duration // how long a job may run (River's JobTimeout, asynq's Timeout)
	Work            time.Duration // the handler's work per job, ±50%
	MaxFreeze       time.Duration // a freeze ends after this long at the latest
	Zombies         int           // the kill phase lasts until this many freezes ended in a takeover
	ExeArgs         []string      // the arguments before the child's flags; nil: the library's child command
}

// Limits of a run's sizes.
const (
	MaxProcesses   = 16
	MaxConcurrency = 16
	MaxJobs        = 100_000
	MaxKills       = 100_000
)

var usage = crash.Usage

// Validate reports the first bad common setting as a one-line
// *crash.UsageError; lib names the library and designs are those it can
// run.
func (c Config) Validate(lib string, designs []targetsim.Design) error {
	switch {
	case c.Workers < 2 || c.Workers > MaxProcesses:
		return usage("-workers must be 2 to %d (got %d)", MaxProcesses, c.Workers)
	case c.Steady < 0 || c.Steady >= c.Workers:
		return usage("-steady must be 0 to -workers - 1 (got %d of %d)", c.Steady, c.Workers)
	case c.Concurrency < 1 || c.Concurrency > MaxConcurrency:
		return usage("jobs at once per process must be 1 to %d (got %d)", MaxConcurrency, c.Concurrency)
	case c.Jobs < 1 || c.Jobs > MaxJobs:
		return usage("-jobs must be 1 to %d (got %d)", MaxJobs, c.Jobs)
	case c.Kills < 0 || c.Kills > MaxKills:
		return usage("-kills must be 0 to %d (got %d)", MaxKills, c.Kills)
	case !slices.Contains(designs, c.Design):
		return usage("-design %s cannot run on %s (want one of %s)", c.Design, lib, DesignNames(designs))
	case c.MaxAttempts < 1 || c.MaxAttempts > 25:
		return usage("-max-attempts must be 1 to 25 (got %d)", c.MaxAttempts)
	case c.JobTimeout <= 0 || c.Work <= 0 || c.MaxFreeze <= 0:
		return usage("-job-timeout, -work and -max-freeze must be > 0")
	case c.Work*3/2 >= c.JobTimeout:
		return usage("-work %v must end (at its longest, 1.5 times) before -job-timeout %v", c.Work, c.JobTimeout)
	case c.Zombies < 0 || c.Zombies > 0 && c.PauseEvery == 0:
		return usage("-zombies must be >= 0, and 0 with -pause-every 0 (got %d)", c.Zombies)
	}
	return c.Settings.Check()
}

// DesignNames is the designs' names, comma-separated.
func DesignNames(designs []targetsim.Design) string {
	var names []string
	for _, d := range designs {
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}

// ProcName is a child's name in histories and reports: w3.2 is slot 3's
// third incarnation (the first is w3).
func ProcName(id, inc int) string { return crash.ProcName("w", id, inc) }

// Child is what every library's child process has: its slot and
// incarnation, its handler's design and kill point, its history, its
// seed, how many jobs it works at once and for how long. A library's
// ChildConfig embeds it and adds its own.
type Child struct {
	ID          int
	Incarnation int
	Design      targetsim.Design
	Kill        crash.Assignment // where it SIGKILLs itself; the zero value never
	History     string           // path; "" keeps no history
	Seed        uint64
	Concurrency int
	Work        time.Duration
}

// ChildOf is the child the supervisor starts as c, of a run of cfg.
func ChildOf(c crash.Child, cfg Config) Child {
	return Child{ID: c.Slot, Incarnation: c.Inc, Design: cfg.Design, Kill: c.Kill, History: c.History, Seed: cfg.Seed,
		Concurrency: cfg.Concurrency, Work: cfg.Work}
}

// Flags defines the common flags on fs, parsed into c, with d's
// defaults.
func (c *Child) Flags(fs *flag.FlagSet, d Config) {
	*c = Child{Design: d.Design, Seed: 1, Concurrency: d.Concurrency, Work: d.Work}
	fs.IntVar(&c.ID, "id", 0, "the process's slot")
	fs.IntVar(&c.Incarnation, "incarnation", 0, "how many times the slot was started before")
	fs.Func("design", "handler design (default "+d.Design.String()+")", func(s string) error {
		var err error
		c.Design, err = targetsim.LookupDesign(s)
		return err
	})
	c.Kill.Flags(fs)
	fs.StringVar(&c.History, "history", "", "file the process appends its history to (one JSON line per operation)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the work times")
	fs.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "jobs worked at once")
	fs.DurationVar(&c.Work, "work", c.Work, "the handler's work per job, ±50%")
}

// Args is the command line Flags parses back into c.
func (c Child) Args() []string {
	args := []string{"-id", strconv.Itoa(c.ID), "-incarnation", strconv.Itoa(c.Incarnation), "-design", c.Design.String(),
		"-seed", strconv.FormatUint(c.Seed, 10), "-concurrency", strconv.Itoa(c.Concurrency), "-work", c.Work.String()}
	if c.History != "" {
		args = append(args, "-history", c.History)
	}
	return append(args, c.Kill.Args()...)
}

// Validate reports the first problem with c as a one-line error; lib and
// designs as Config.Validate's.
func (c Child) Validate(lib string, designs []targetsim.Design) error {
	switch {
	case c.ID < 0 || c.Incarnation < 0:
		return errors.New("-id and -incarnation must be >= 0")
	case c.Concurrency < 1 || c.Concurrency > MaxConcurrency:
		return fmt.Errorf("-concurrency must be 1 to %d", MaxConcurrency)
	case c.Work <= 0:
		return errors.New("-work must be positive")
	case !slices.Contains(designs, c.Design):
		return fmt.Errorf("-design %s cannot run on %s (want one of %s)", c.Design, lib, DesignNames(designs))
	}
	return c.Kill.Check(c.Points(lib), nil)
}

// Points is the kill points of c's handler on lib.
func (c Child) Points(lib string) boundary.Set { return Points(lib, c.Design) }

// Name is c's process name.
func (c Child) Name() string { return ProcName(c.ID, c.Incarnation) }
