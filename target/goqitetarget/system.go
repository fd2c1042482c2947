package goqitetarget

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/target"
)

// System is goqite as a target system: durasim's CLI opens it by name
// (-target goqite). It registers itself.
type System struct{}

var _ target.CLISystem = System{}

func init() { target.Register(System{}) }

// Name is goqite's -target value.
func (System) Name() string { return "goqite" }

// About says what it is, for -target's help.
func (System) About() string {
	return "goqite " + Version() + " through its queue API, its clock in a synctest bubble"
}

// Backends are goqite's databases durasim offers: SQLite (in memory)
// first, PostgreSQL (v0.4.0's other flavour).
func (System) Backends() []string { return backends() }

// Flags registers goqite's own setting, -goqite-timeout (NewOpts.Timeout,
// the visibility timeout), and opens goqite with it.
func (System) Flags(fs *flag.FlagSet) target.Opener {
	d := fs.Duration("goqite-timeout", time.Duration(DefaultConfig().Timeout), "goqite's NewOpts.Timeout: how long a receive hides a message (whole milliseconds)")
	return func(ctx context.Context, backend, url string) (target.Queue, error) {
		q, err := Open(ctx, backend, url, CLIConfig(target.Time(*d)))
		if err != nil {
			return nil, err // not a nil *Queue in a non-nil interface
		}
		return q, nil
	}
}

// CLIConfig is the settings the CLI opens goqite with for -goqite-timeout d.
func CLIConfig(d target.Time) Config {
	c := DefaultConfig()
	c.Timeout = d
	return c
}

// openSchema is every setting of what the CLI opens goqite with (its
// database and Config), found by reflection; a setting with no flag is
// one only code sets.
var openSchema = repro.OpeningSchema[Config](
	repro.Flag("Config.Timeout", "goqite-timeout"),
	repro.Duration("Config.Timeout", "Config.RetryBase", "Config.RetryCap"),
)

// Args are the flags that open a queue like q: its backend and
// -goqite-timeout where they are not the defaults; a retry delay that is
// not the default has no flag (an error naming it).
func (System) Args(q target.Queue) ([]string, error) {
	gq, ok := q.(*Queue)
	if !ok {
		return nil, fmt.Errorf("a %T is not goqite's queue", q)
	}
	type opening = repro.Opening[Config]
	return repro.OpeningArgs(openSchema, opening{Backend: gq.backend, Config: gq.cfg}, opening{Backend: SQLite, Config: DefaultConfig()},
		opening{Backend: gq.backend, Config: CLIConfig(gq.cfg.Timeout)})
}
