package riverchaos

import (
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/targetsim"
)

// Config is a River chaos run: the workload's settings (package
// crash/workload: -pause-every freezes a child holding a job, up to
// Workers/2 at once, until another client has fetched that job, River
// having rescued it past RescueAfter, or MaxFreeze ran out), and River's.
// Concurrency is River's MaxWorkers per client; JobTimeout River's
// JobTimeout, below RescueAfter. Steady children are never given a kill
// point (only frozen), so that a leader, and with it River's rescuer and
// scheduler, lives long enough to run while the others are killed over
// and over.
type Config struct {
	workload.Config
	DB string // PostgreSQL URL; River's tables and durasim's effects in it are emptied
	// KilledLead: the children given kill points take part in River's
	// leader election. By default they do not (LeaderElectionDisabled):
	// under constant restarts a fresh client, which bids as it starts,
	// wins nearly every election once the dead leader's term expires,
	// and dies before River's maintenance has run, so nothing stuck is
	// rescued for the whole kill phase.
	KilledLead  bool
	RescueAfter time.Duration // River's RescueStuckJobsAfter
	RetryCap    time.Duration // River's default retry policy, capped at this
}

// DefaultConfig is `durasim chaos -target river`'s defaults.
func DefaultConfig() Config {
	return Config{Config: workload.Config{Settings: crash.Settings{Kills: 100, Seed: 1, PauseEvery: time.Second, Reach: crash.DefaultReach,
		Timeout: 10 * time.Minute, Drain: 2 * time.Minute},
		Workers: 5, Steady: 2, Concurrency: 4, Jobs: 100, Design: targetsim.TxChecked, MaxAttempts: 5,
		JobTimeout: 2 * time.Second, Work: 150 * time.Millisecond, MaxFreeze: 75 * time.Second, Zombies: 2},
		RescueAfter: 3 * time.Second, RetryCap: 2 * time.Second}
}

// Designs lists the handler designs a River chaos run can use.
func Designs() []targetsim.Design {
	return []targetsim.Design{targetsim.TxChecked, targetsim.IdempotentKey, targetsim.TxAsDocumented, targetsim.EffectOutsideTx}
}

// DesignNames is Designs' names, comma-separated.
func DesignNames() string { return workload.DesignNames(Designs()) }

// PointsOf is the kill points design d's handler crosses: before_commit
// is JobCompleteTx returned, its transaction not committed (the
// transactional designs only).
func PointsOf(d targetsim.Design) boundary.Set { return workload.Points("River", d) }

// UsageError is bad input: a flag out of range, a database that does not
// connect or that another River client is using. The command exits 2.
type UsageError = crash.UsageError

var usage = crash.Usage

// Validate reports the first bad setting as a one-line UsageError.
func (c Config) Validate() error {
	switch {
	case c.DB == "":
		return usage("no database: give -db or set DURASIM_PG_URL")
	case c.Steady == 0 && !c.KilledLead:
		return usage("-steady 0 leaves no client to lead while the others are killed: give -steady 1 or more, or -killed-lead")
	case c.JobTimeout <= 0 || c.RescueAfter <= c.JobTimeout:
		return usage("-job-timeout %v must be positive and below -rescue-after %v (River refuses a rescue before the timeout)", c.JobTimeout, c.RescueAfter)
	case c.RetryCap <= 0 || c.MaxFreeze <= c.RescueAfter:
		return usage("-retry-cap must be > 0, and -max-freeze above -rescue-after")
	}
	return c.Config.Validate("River's real client", Designs())
}
