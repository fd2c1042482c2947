package riverinproc

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/riverchaos"
	"github.com/durasim/durasim/targetsim"
)

// Config is an in-process sweep: the seeds, what each seed's run does to
// River's clients, River's timing, and how often a failing seed is run
// again. Every time is River's (the bubble's virtual clock).
type Config struct {
	Seeds       string // lo:hi
	Design      targetsim.Design
	Workers     int // River clients; Steady of them are never killed (only frozen), and lead
	Steady      int
	Concurrency int // River's MaxWorkers per client
	Jobs        int // documents inserted up front; more are fed while the kill phase lasts
	Kills       int // kills to land at the handler's kill points before the drain
	MaxAttempts int
	Work        time.Duration // the handler's work per job, ±50%
	JobTimeout  time.Duration // River's JobTimeout
	RescueAfter time.Duration // River's RescueStuckJobsAfter
	PauseEvery  time.Duration // freeze a client holding a job this often (0 never)
	MaxFreeze   time.Duration // thaw a frozen client after this long even if no other took its job
	Zombies     int           // the kill phase lasts until this many freezes ended in a takeover (or Reach)
	Reach       time.Duration // the kill phase ends after this long at the latest
	Drain       time.Duration // the drain's limit
	Reruns      int           // a failing seed is run this many times again
}

// DefaultConfig is `durasim chaos -target river -inprocess`'s defaults.
// River's JobTimeout and RescueStuckJobsAfter are shorter than River's
// defaults (1 minute, 1 hour) so that a rescue lands within a run; River's
// rescuer and scheduler keep their own intervals (30 s, 5 s), and the
// retry policy is River's default (attempt⁴ s, uncapped: the clock is
// virtual).
func DefaultConfig() Config {
	return Config{Seeds: "1:1", Design: targetsim.TxChecked, Workers: 3, Steady: 1, Concurrency: 2, Jobs: 12, Kills: 6, MaxAttempts: 5,
		Work: time.Second, JobTimeout: 5 * time.Second, RescueAfter: 10 * time.Second, PauseEvery: 5 * time.Second,
		MaxFreeze: 60 * time.Second, Zombies: 1, Reach: 10 * time.Minute, Drain: 30 * time.Minute, Reruns: 20}
}

// schema: every setting has a flag (TestEverySettingReproduces).
var schema = repro.MustNew(Config{},
	repro.Flag("Seeds", "seeds"), repro.Flag("Design", "design"), repro.Flag("Workers", "workers"), repro.Flag("Steady", "steady"),
	repro.Flag("Concurrency", "max-workers"), repro.Flag("Jobs", "jobs"), repro.Flag("Kills", "kills"),
	repro.Flag("MaxAttempts", "max-attempts"), repro.Flag("Work", "work"), repro.Flag("JobTimeout", "job-timeout"),
	repro.Flag("RescueAfter", "rescue-after"), repro.Flag("PauseEvery", "pause-every"), repro.Flag("MaxFreeze", "max-freeze"), repro.Flag("Zombies", "zombies"),
	repro.Flag("Reach", "reach"), repro.Flag("Drain", "drain"), repro.Flag("Reruns", "reruns"),
	repro.Duration("Work", "JobTimeout", "RescueAfter", "PauseEvery", "MaxFreeze", "Reach", "Drain"),
	repro.Text(func(d targetsim.Design) (string, error) { return d.String(), nil }, targetsim.LookupDesign))

// Flags is the flags that set c's settings that differ from the
// defaults, in a fixed order.
func (c Config) Flags() []string {
	args, _ := repro.Args(schema.Diff(c, DefaultConfig()))
	return args
}

// Unflagged lists c's settings that differ from the defaults and have no
// flag: none, and a test keeps it so.
func (c Config) Unflagged() []string { return schema.Unflagged(c, DefaultConfig()) }

// SetFlag sets the setting flag -name binds in c from its text.
func SetFlag(c *Config, name, text string) error { return schema.SetFlag(c, name, text) }

// FlagNames lists the settings' flags.
func FlagNames() []string { return schema.FlagNames() }

// Command is the durasim command that runs c again on seed alone: cli
// (how the user runs durasim) chaos -target river -inprocess and c's
// flags.
func (c Config) Command(cli string, seed uint64) string {
	c.Seeds = DefaultConfig().Seeds // printed first, always
	args := append([]string{"-target", "river", "-inprocess", "-seeds", fmt.Sprintf("%d:%d", seed, seed)}, c.Flags()...)
	return cli + " chaos " + repro.Shell(args...)
}

// SeedRange is Seeds parsed: lo:hi, or one seed.
func (c Config) SeedRange() (lo, hi uint64, err error) {
	a, b, ok := strings.Cut(c.Seeds, ":")
	if !ok {
		b = a
	}
	lo, err1 := strconv.ParseUint(a, 10, 64)
	hi, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil || lo < 1 || hi < lo {
		return 0, 0, fmt.Errorf("-seeds %q: want lo:hi with 1 <= lo <= hi", c.Seeds)
	}
	return lo, hi, nil
}

// DesignNames is the designs the mode runs, comma-separated
// (riverchaos's).
func DesignNames() string { return riverchaos.DesignNames() }

// Validate reports the first bad setting as a one-line *crash.UsageError.
func (c Config) Validate() error {
	if _, _, err := c.SeedRange(); err != nil {
		return crash.Usage("%v", err)
	}
	switch {
	case c.Workers < 2 || c.Workers > 16:
		return crash.Usage("-workers must be 2 to 16 (got %d)", c.Workers)
	case c.Steady < 1 || c.Steady >= c.Workers:
		return crash.Usage("-steady must be 1 to -workers - 1 (got %d of %d): a never-killed client leads and runs River's maintenance", c.Steady, c.Workers)
	case c.Concurrency < 1 || c.Concurrency > 16:
		return crash.Usage("-max-workers must be 1 to 16 (got %d)", c.Concurrency)
	case c.Jobs < 1 || c.Jobs > 10_000:
		return crash.Usage("-jobs must be 1 to 10000 (got %d)", c.Jobs)
	case c.Kills < 0 || c.Kills > 10_000:
		return crash.Usage("-kills must be 0 to 10000 (got %d)", c.Kills)
	case c.MaxAttempts < 1 || c.MaxAttempts > 25:
		return crash.Usage("-max-attempts must be 1 to 25 (got %d)", c.MaxAttempts)
	case c.Work <= 0 || c.Work*3/2 >= c.JobTimeout:
		return crash.Usage("-work %v must be > 0 and end (at 1.5 times) before -job-timeout %v", c.Work, c.JobTimeout)
	case c.RescueAfter <= c.JobTimeout:
		return crash.Usage("-rescue-after %v must be above -job-timeout %v (River refuses a rescue before the timeout)", c.RescueAfter, c.JobTimeout)
	case c.PauseEvery < 0 || c.MaxFreeze <= c.RescueAfter:
		return crash.Usage("-pause-every must be >= 0 and -max-freeze above -rescue-after")
	case c.Zombies < 0 || c.Zombies > 0 && c.PauseEvery == 0:
		return crash.Usage("-zombies must be >= 0, and 0 with -pause-every 0 (got %d)", c.Zombies)
	case c.Reach <= 0 || c.Drain <= 0:
		return crash.Usage("-reach and -drain must be > 0")
	case c.Reruns < 0 || c.Reruns > 1000:
		return crash.Usage("-reruns must be 0 to 1000 (got %d)", c.Reruns)
	}
	for _, d := range riverchaos.Designs() {
		if d == c.Design {
			return nil
		}
	}
	return crash.Usage("-design %s cannot run in-process on River (want one of %s)", c.Design, riverchaos.DesignNames())
}
