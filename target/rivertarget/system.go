package rivertarget

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/target"
)

// System is River as a target system: durasim's CLI opens it by name
// (-target river). It registers itself.
type System struct{}

var _ target.CLISystem = System{}

func init() { target.Register(System{}) }

// Name is River's -target value.
func (System) Name() string { return "river" }

// About says what it is, for -target's help.
func (System) About() string { return "River " + Version() + " through its driver API" }

// Backends are River's databases: SQLite (in memory) first, PostgreSQL.
func (System) Backends() []string { return []string{SQLite, Postgres} }

// Flags registers River's own setting, -rescue-after (the client's
// JobTimeout is half of it), and opens River with it.
func (System) Flags(fs *flag.FlagSet) target.Opener {
	d := fs.Duration("rescue-after", time.Duration(DefaultConfig().RescueAfter), "River's RescueStuckJobsAfter (the client's JobTimeout is half of it)")
	return func(ctx context.Context, backend, url string) (target.Queue, error) {
		q, err := Open(ctx, backend, url, CLIConfig(target.Time(*d)))
		if err != nil {
			return nil, err // not a nil *Queue in a non-nil interface
		}
		return q, nil
	}
}

// openSchema is every setting of what the CLI opens River with (its
// database and the client's settings), found by reflection; a setting
// with no flag is one only code sets, and a queue with it has no durasim
// command.
var openSchema = repro.OpeningSchema[Config](
	repro.Flag("Config.RescueAfter", "rescue-after"),
	repro.Duration("Config.RescueAfter", "Config.JobTimeout", "Config.SchedulerInterval"),
)

// CLIConfig is the client's settings as the CLI opens River with
// -rescue-after d: the defaults, with the client's JobTimeout half of d.
func CLIConfig(d target.Time) Config {
	c := DefaultConfig()
	c.RescueAfter, c.JobTimeout = d, d/2
	return c
}

// Args are the flags that open a queue like q: its backend and
// -rescue-after where they are not the defaults. A setting of q's that
// the CLI does not derive from them (a JobTimeout that is not half of
// RescueAfter, say) is an error naming it.
func (System) Args(q target.Queue) ([]string, error) {
	rq, ok := q.(*Queue)
	if !ok {
		return nil, fmt.Errorf("a %T is not River's queue", q)
	}
	return Args(rq.backend, rq.cfg)
}

// Args are the flags that open River on backend with cfg, as
// [System.Args] says.
func Args(backend string, cfg Config) ([]string, error) {
	type opening = repro.Opening[Config]
	return repro.OpeningArgs(openSchema, opening{Backend: backend, Config: cfg}, opening{Backend: SQLite, Config: DefaultConfig()},
		opening{Backend: backend, Config: CLIConfig(cfg.RescueAfter)})
}
