package asynqchaos

import (
	"slices"
	"strings"
	"time"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/targetsim"
)

// Config is an asynq chaos run.
type Config struct {
	// Settings: -kills (and one at least at each kill point, when Kills
	// is not below their number), -seed (of the kill points, the
	// freezes, the work times and the re-enqueues; timing is real: runs
	// differ), -pause-every (freeze a child holding a task until asynq's
	// recoverer has handed the task to another server, or MaxFreeze ran
	// out: then thaw it, a zombie), -reach, -timeout, -drain, -dir.
	crash.Settings
	Redis string // redis-server's address (a Unix socket's path or host:port); its queue "durasim" is emptied
	DB    string // PostgreSQL URL of the handlers' database (effects, ledger); durasim's tables in it are emptied
	// Workers is the number of child processes, one asynq Server each;
	// Steady of them are never given a kill point (only frozen).
	Workers, Steady int
	Concurrency     int // asynq's Config.Concurrency per server: tasks a process works at once
	Jobs            int // documents enqueued up front; more are fed while the kill phase lasts
	Design          targetsim.Design
	MaxAttempts     int           // each task's MaxRetry + 1
	JobTimeout      time.Duration // each task's asynq.Timeout
	RetryDelay      time.Duration // the servers' RetryDelayFunc: this delay after every error (asynq's default grows exponentially)
	Work            time.Duration // the handler's work per task, ±50%
	MaxFreeze       time.Duration
	Zombies         int // the kill phase lasts until this many freezes ended in a takeover
	// DrainDelay is the wait between the kill phase and the drain: a task
	// whose holder died comes back once its lease (30 s, extended every
	// 5 s by the heartbeater) is 30 s past its end, at the next
	// recoverer pass, which every server runs as it starts (and once a
	// minute): the drain's servers start after the last kills' tasks are
	// recoverable.
	DrainDelay time.Duration
	// The clock faults: TZ is the children's process time zone (their TZ
	// variable; "" leaves it unset); ClientSkew is the orchestrator's
	// client's clock against the servers': every fourth document is
	// scheduled ScheduleIn ahead as a client whose clock is ClientSkew
	// ahead computes it (ProcessAt(now + ClientSkew + ScheduleIn)).
	TZ         string
	ClientSkew time.Duration
	ScheduleIn time.Duration
	ExeArgs    []string // the arguments before the child's flags; nil: {"asynq-worker"}
}

// Lease is asynq's lease on a task a server dequeued (rdb.LeaseDuration,
// not configurable), and Grace the recoverer's margin for clock skew
// (it takes back the tasks whose lease ended this long ago, not before).
const (
	Lease = 30 * time.Second
	Grace = 30 * time.Second
)

// DefaultConfig is `durasim chaos -target asynq`'s defaults.
func DefaultConfig() Config {
	return Config{Settings: crash.Settings{Kills: 100, Seed: 1, PauseEvery: 2 * time.Second, Reach: crash.DefaultReach,
		Timeout: 15 * time.Minute, Drain: 3 * time.Minute},
		Workers: 4, Steady: 1, Concurrency: 4, Jobs: 100, Design: targetsim.IdempotentKey, MaxAttempts: 5,
		JobTimeout: 5 * time.Second, RetryDelay: time.Second, Work: 150 * time.Millisecond,
		MaxFreeze: 2*(Lease+Grace) + 30*time.Second, Zombies: 1, DrainDelay: Lease + Grace + 2*time.Second,
		TZ: "America/Sao_Paulo", ClientSkew: 5 * time.Second, ScheduleIn: time.Second}
}

// Designs lists the handler designs an asynq run can use: asynq shares
// no transaction with the handler's database, so the correct design is
// an effect under a unique key (the tenant's) checked in the one
// database transaction that writes it; the naive ones write it with no
// key, or with a key that leaves the tenant out.
func Designs() []targetsim.Design {
	return []targetsim.Design{targetsim.IdempotentKey, targetsim.EffectOutsideTx, targetsim.KeyWithoutTenant}
}

// DesignNames is Designs' names, comma-separated.
func DesignNames() string {
	var names []string
	for _, d := range Designs() {
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}

// What is design d on asynq, in one line.
func What(d targetsim.Design) string {
	switch d {
	case targetsim.IdempotentKey:
		return "ledger key tenant:document:vN and the effect in one database transaction, then return nil (asynq's ack)"
	case targetsim.KeyWithoutTenant:
		return "as idempotent-key with the key document:vN, without the tenant"
	case targetsim.EffectOutsideTx:
		return "the effect written with no key, then return nil (asynq's ack)"
	}
	return d.What()
}

// keyed: the effect is written in a transaction with its ledger key.
func keyed(d targetsim.Design) bool { return d != targetsim.EffectOutsideTx }

// Limits of a run's sizes.
const (
	MaxProcesses   = 16
	MaxConcurrency = 16
	MaxJobs        = 100_000
	MaxKills       = 100_000
)

// UsageError is bad input. The command exits 2.
type UsageError = crash.UsageError

var usage = crash.Usage

// Validate reports the first bad setting as a one-line UsageError.
func (c Config) Validate() error {
	switch {
	case c.Redis == "":
		return usage("no redis-server: give -redis or set DURASIM_REDIS_ADDR")
	case c.DB == "":
		return usage("no database: give -db or set DURASIM_PG_URL")
	case c.Workers < 2 || c.Workers > MaxProcesses:
		return usage("-workers must be 2 to %d (got %d)", MaxProcesses, c.Workers)
	case c.Steady < 0 || c.Steady >= c.Workers:
		return usage("-steady must be 0 to -workers - 1 (got %d of %d)", c.Steady, c.Workers)
	case c.Concurrency < 1 || c.Concurrency > MaxConcurrency:
		return usage("-concurrency must be 1 to %d (got %d)", MaxConcurrency, c.Concurrency)
	case c.Jobs < 1 || c.Jobs > MaxJobs:
		return usage("-jobs must be 1 to %d (got %d)", MaxJobs, c.Jobs)
	case c.Kills < 0 || c.Kills > MaxKills:
		return usage("-kills must be 0 to %d (got %d)", MaxKills, c.Kills)
	case !slices.Contains(Designs(), c.Design):
		return usage("-design %s cannot run on asynq (want one of %s)", c.Design, DesignNames())
	case c.MaxAttempts < 1 || c.MaxAttempts > 25:
		return usage("-max-attempts must be 1 to 25 (got %d)", c.MaxAttempts)
	case c.JobTimeout < time.Second || c.RetryDelay <= 0 || c.Work <= 0:
		return usage("-job-timeout must be at least 1s (asynq keeps it in whole seconds), -retry-delay and -work > 0")
	case c.Work*3/2 >= c.JobTimeout:
		return usage("-work %v must end (at its longest, 1.5 times) before -job-timeout %v", c.Work, c.JobTimeout)
	case c.MaxFreeze <= Lease+Grace:
		return usage("-max-freeze %v must be above asynq's lease and the recoverer's margin (%v): no takeover happens sooner", c.MaxFreeze, Lease+Grace)
	case c.Zombies < 0 || c.Zombies > 0 && c.PauseEvery == 0:
		return usage("-zombies must be >= 0, and 0 with -pause-every 0 (got %d)", c.Zombies)
	case c.DrainDelay < 0 || c.ScheduleIn < 0:
		return usage("-drain-delay and -schedule-in must be >= 0")
	case c.ClientSkew < -time.Hour || c.ClientSkew > time.Hour:
		return usage("-client-skew must be within an hour either way (got %v)", c.ClientSkew)
	}
	if err := checkTZ(c.TZ); err != nil {
		return err
	}
	return c.Settings.Check()
}

// checkTZ refuses a time zone Go cannot load: a child would run in UTC
// without a word.
func checkTZ(tz string) error {
	if tz == "" {
		return nil
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return usage("-tz %q: %v", tz, err)
	}
	return nil
}

// exeArgs are the arguments before the child's flags.
func (c Config) exeArgs() []string {
	if c.ExeArgs == nil {
		return []string{"asynq-worker"}
	}
	return c.ExeArgs
}
