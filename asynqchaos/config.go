package asynqchaos

import (
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/targetsim"
)

// Config is an asynq chaos run: the workload's settings (package
// crash/workload: -pause-every freezes a child holding a task until
// asynq's recoverer has handed the task to another server), and asynq's.
type Config struct {
	workload.Config
	Redis      string        // redis-server's address (a Unix socket's path or host:port); its queue "durasim" is emptied
	DB         string        // PostgreSQL URL of the handlers' database (effects, ledger); durasim's tables in it are emptied
	RetryDelay time.Duration // the servers' RetryDelayFunc: this delay after every error (asynq's default grows exponentially)
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
	return Config{Config: workload.Config{Settings: crash.Settings{Kills: 100, Seed: 1, PauseEvery: 2 * time.Second, Reach: crash.DefaultReach,
		Timeout: 15 * time.Minute, Drain: 3 * time.Minute},
		Workers: 4, Steady: 1, Concurrency: 4, Jobs: 100, Design: targetsim.IdempotentKey, MaxAttempts: 5,
		JobTimeout: 5 * time.Second, Work: 150 * time.Millisecond, MaxFreeze: 2*(Lease+Grace) + 30*time.Second, Zombies: 1},
		RetryDelay: time.Second, DrainDelay: Lease + Grace + 2*time.Second,
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
func DesignNames() string { return workload.DesignNames(Designs()) }

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

// PointsOf is the kill points design d's handler crosses: a kill
// anywhere leaves the task active until its lease runs out and the
// recoverer takes it back; after_commit is just before the handler
// returns nil, asynq's ack.
func PointsOf(d targetsim.Design) boundary.Set { return workload.Points("asynq", d) }

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
	case c.JobTimeout < time.Second || c.RetryDelay <= 0:
		return usage("-job-timeout must be at least 1s (asynq keeps it in whole seconds), -retry-delay > 0")
	case c.MaxFreeze <= Lease+Grace:
		return usage("-max-freeze %v must be above asynq's lease and the recoverer's margin (%v): no takeover happens sooner", c.MaxFreeze, Lease+Grace)
	case c.DrainDelay < 0 || c.ScheduleIn < 0:
		return usage("-drain-delay and -schedule-in must be >= 0")
	case c.ClientSkew < -time.Hour || c.ClientSkew > time.Hour:
		return usage("-client-skew must be within an hour either way (got %v)", c.ClientSkew)
	}
	if err := checkTZ(c.TZ); err != nil {
		return err
	}
	return c.Config.Validate("asynq", Designs())
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
