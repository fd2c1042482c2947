package riverchaos

import (
	"slices"
	"strings"
	"time"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/targetsim"
)

// Config is a River chaos run.
type Config struct {
	// Settings: -kills (and one at least at each kill point, when Kills
	// is not below their number), -seed (of the kill points, the freezes,
	// the work times and the re-inserts; timing is real: runs differ),
	// -pause-every (freeze a child holding a job, up to Workers/2 at
	// once, until another client has fetched that job, River having
	// rescued it past RescueAfter, or MaxFreeze ran out: then thaw it, a
	// zombie), -reach, -timeout, -drain, -dir (histories and the
	// children's logs).
	crash.Settings
	DB string // PostgreSQL URL; River's tables and durasim's effects in it are emptied
	// Workers is the number of child processes, one River client each;
	// Steady of them are never given a kill point (only frozen), so that a
	// leader, and with it River's rescuer and scheduler, lives long
	// enough to run while the others are killed over and over.
	Workers, Steady int
	// KilledLead: the children given kill points take part in River's
	// leader election. By default they do not (LeaderElectionDisabled):
	// under constant restarts a fresh client, which bids as it starts,
	// wins nearly every election once the dead leader's term expires,
	// and dies before River's maintenance has run, so nothing stuck is
	// rescued for the whole kill phase.
	KilledLead  bool
	MaxWorkers  int // River's MaxWorkers per client: jobs a process works at once
	Jobs        int // documents inserted up front; more are fed while the kill phase lasts
	Design      targetsim.Design
	MaxAttempts int
	RescueAfter time.Duration // River's RescueStuckJobsAfter
	JobTimeout  time.Duration // River's JobTimeout, below RescueAfter
	RetryCap    time.Duration // River's default retry policy, capped at this
	Work        time.Duration // the handler's work per job, ±50%
	MaxFreeze   time.Duration
	// Zombies: the kill phase lasts until this many freezes ended in a
	// takeover.
	Zombies int
	ExeArgs []string // the arguments before the child's flags; nil: {"river-worker"}
}

// DefaultConfig is `durasim chaos -target river`'s defaults.
func DefaultConfig() Config {
	return Config{Settings: crash.Settings{Kills: 100, Seed: 1, PauseEvery: time.Second, Reach: crash.DefaultReach,
		Timeout: 10 * time.Minute, Drain: 2 * time.Minute},
		Workers: 5, Steady: 2, MaxWorkers: 4, Jobs: 100, Design: targetsim.TxChecked, MaxAttempts: 5,
		RescueAfter: 3 * time.Second, JobTimeout: 2 * time.Second, RetryCap: 2 * time.Second, Work: 150 * time.Millisecond,
		MaxFreeze: 75 * time.Second, Zombies: 2}
}

// Designs lists the handler designs a River chaos run can use.
func Designs() []targetsim.Design {
	return []targetsim.Design{targetsim.TxChecked, targetsim.IdempotentKey, targetsim.TxAsDocumented, targetsim.EffectOutsideTx}
}

// DesignNames is Designs' names, comma-separated.
func DesignNames() string {
	var names []string
	for _, d := range Designs() {
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}

// transactional: the effect commits with JobCompleteTx or not at all.
func transactional(d targetsim.Design) bool {
	return d == targetsim.TxChecked || d == targetsim.TxAsDocumented
}

// Limits of a run's sizes: each process holds MaxWorkers+4 connections.
const (
	MaxProcesses  = 16
	MaxMaxWorkers = 16
	MaxJobs       = 100_000
	MaxKills      = 100_000
)

// UsageError is bad input: a flag out of range, a database that does not
// connect or that another River client is using. The command exits 2.
type UsageError = crash.UsageError

var usage = crash.Usage

// Validate reports the first bad setting as a one-line UsageError.
func (c Config) Validate() error {
	switch {
	case c.DB == "":
		return usage("no database: give -db or set DURASIM_PG_URL")
	case c.Workers < 2 || c.Workers > MaxProcesses:
		return usage("-workers must be 2 to %d (got %d)", MaxProcesses, c.Workers)
	case c.Steady < 0 || c.Steady >= c.Workers:
		return usage("-steady must be 0 to -workers - 1 (got %d of %d)", c.Steady, c.Workers)
	case c.Steady == 0 && !c.KilledLead:
		return usage("-steady 0 leaves no client to lead while the others are killed: give -steady 1 or more, or -killed-lead")
	case c.MaxWorkers < 1 || c.MaxWorkers > MaxMaxWorkers:
		return usage("-max-workers must be 1 to %d (got %d)", MaxMaxWorkers, c.MaxWorkers)
	case c.Jobs < 1 || c.Jobs > MaxJobs:
		return usage("-jobs must be 1 to %d (got %d)", MaxJobs, c.Jobs)
	case c.Kills < 0 || c.Kills > MaxKills:
		return usage("-kills must be 0 to %d (got %d)", MaxKills, c.Kills)
	case !slices.Contains(Designs(), c.Design):
		return usage("-design %s cannot run on River's real client (want one of %s)", c.Design, DesignNames())
	case c.MaxAttempts < 1 || c.MaxAttempts > 25:
		return usage("-max-attempts must be 1 to 25 (got %d)", c.MaxAttempts)
	case c.JobTimeout <= 0 || c.RescueAfter <= c.JobTimeout:
		return usage("-job-timeout %v must be positive and below -rescue-after %v (River refuses a rescue before the timeout)", c.JobTimeout, c.RescueAfter)
	case c.RetryCap <= 0 || c.Work <= 0 || c.Timeout <= 0 || c.Drain <= 0 || c.PauseEvery < 0 || c.MaxFreeze <= c.RescueAfter:
		return usage("-retry-cap, -work, -timeout and -drain must be > 0, -pause-every >= 0, and -max-freeze above -rescue-after")
	case c.Work*3/2 >= c.JobTimeout:
		return usage("-work %v must end (at its longest, 1.5 times) before -job-timeout %v", c.Work, c.JobTimeout)
	case c.Zombies < 0 || c.Zombies > 0 && c.PauseEvery == 0:
		return usage("-zombies must be >= 0, and 0 with -pause-every 0 (got %d)", c.Zombies)
	}
	return c.Settings.Check()
}

// exeArgs are the arguments before the child's flags.
func (c Config) exeArgs() []string {
	if c.ExeArgs == nil {
		return []string{"river-worker"}
	}
	return c.ExeArgs
}
