package goqitechaos

import (
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/goqitetarget"
	"github.com/durasim/durasim/targetsim"
)

// Config is a goqite chaos run: the workload's settings (package
// crash/workload: -pause-every freezes a child holding a message until
// another child has received it, its visibility timeout having passed),
// and goqite's. JobTimeout bounds a handler's run (its context), below
// Visibility.
type Config struct {
	workload.Config
	// DB is the SQLite file the processes share (goqite's table and
	// durasim's beside it), emptied; "" a new file in a temporary
	// directory, removed after the run.
	DB string
	// Visibility is goqite's NewOpts.Timeout: how long a receive hides a
	// message (its visibility timeout); a frozen child's message is
	// received again once it passes.
	Visibility time.Duration
	// RetryBase and RetryCap are the user's retry delay (goqite has no
	// retry): a handler's error extends the message's timeout by
	// RetryBase·n² after its n-th error, at most RetryCap.
	RetryBase, RetryCap time.Duration
}

// DefaultConfig is `durasim chaos -target goqite`'s defaults.
func DefaultConfig() Config {
	return Config{Config: workload.Config{Settings: crash.Settings{Kills: 100, Seed: 1, PauseEvery: time.Second, Reach: crash.DefaultReach,
		Timeout: 10 * time.Minute, Drain: 2 * time.Minute},
		Workers: 4, Steady: 1, Concurrency: 4, Jobs: 100, Design: targetsim.TxChecked, MaxAttempts: 5,
		JobTimeout: time.Second, Work: 150 * time.Millisecond, MaxFreeze: 8 * time.Second, Zombies: 2},
		Visibility: 2 * time.Second, RetryBase: 100 * time.Millisecond, RetryCap: time.Second}
}

// Designs lists the handler designs a goqite run can use: goqite's
// DeleteTx takes the handler's transaction, so the effect and the
// message's delete commit together (tx-checked: only if the message is
// still at this receive; tx-as-documented: whatever it is doing); the
// others write the effect and then Delete.
func Designs() []targetsim.Design {
	return []targetsim.Design{targetsim.TxChecked, targetsim.TxAsDocumented, targetsim.IdempotentKey, targetsim.EffectOutsideTx,
		targetsim.KeyWithoutTenant}
}

// DesignNames is Designs' names, comma-separated.
func DesignNames() string { return workload.DesignNames(Designs()) }

// What is design d on goqite, in one line.
func What(d targetsim.Design) string {
	switch d {
	case targetsim.TxChecked:
		return "the effect and goqite's DeleteTx in one transaction, committed only if the message was still at this receive"
	case targetsim.TxAsDocumented:
		return "the effect and goqite's DeleteTx in one transaction, committed whatever the message was doing"
	case targetsim.IdempotentKey:
		return "ledger key tenant:document:vN and the effect in one transaction, then goqite's Delete"
	case targetsim.KeyWithoutTenant:
		return "as idempotent-key with the key document:vN, without the tenant"
	case targetsim.EffectOutsideTx:
		return "the effect written with no key, then goqite's Delete"
	}
	return d.What()
}

// PointsOf is the kill points design d's handler crosses: before_commit
// is DeleteTx done, the transaction not committed.
func PointsOf(d targetsim.Design) boundary.Set { return workload.Points("goqite", d) }

// goqiteConfig is the settings as goqitetarget's, whose rules they are.
func (c Config) goqiteConfig() goqitetarget.Config {
	return goqitetarget.Config{Timeout: target.Time(c.Visibility), RetryBase: target.Time(c.RetryBase), RetryCap: target.Time(c.RetryCap)}
}

// UsageError is bad input. The command exits 2.
type UsageError = crash.UsageError

var usage = crash.Usage

// Validate reports the first bad setting as a one-line UsageError.
func (c Config) Validate() error {
	if err := c.goqiteConfig().Validate(); err != nil {
		return usage("%v", err)
	}
	switch {
	case c.JobTimeout >= c.Visibility:
		return usage("-job-timeout %v must be below -goqite-timeout %v: a handler still at work when its message's timeout passes is received again", c.JobTimeout, c.Visibility)
	case c.MaxFreeze <= c.Visibility:
		return usage("-max-freeze %v must be above -goqite-timeout %v: no takeover happens sooner", c.MaxFreeze, c.Visibility)
	}
	return c.Config.Validate("goqite", Designs())
}
