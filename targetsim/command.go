package targetsim

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/target"
)

// schema is every setting of a Config, found by reflection: each has a
// flag of the CLI's target runs, or is one the command running a
// reproduction sets itself (Mode). TestEverySettingReproduces changes
// each setting alone and checks that its flags bring it back. The flags
// are listed in the order Flags prints them.
var schema = repro.MustNew(Config{},
	repro.Flag("Design", "design"),
	repro.Flag("Workers", "workers"),
	repro.Flag("Docs", "docs"),
	repro.Flag("Tenants", "tenants"),
	repro.Flag("MaxAttempts", "max-attempts"),
	repro.Flag("Swarm", "swarm"),
	repro.Flag("SwarmClocks", "swarm-clocks"),
	repro.Flag("Plan", "plan"),
	repro.Flag("Only", "only"),
	repro.Flag("Races", "races"),
	repro.Text(func(d Design) (string, error) { return d.String(), nil }, LookupDesign),
	repro.Text(func(p faults.Plan) (string, error) { return p.OneLine(), nil }, func(s string) (faults.Plan, error) { return seam.Parse(s) }),
	repro.Mode("KeepTrace", "the command decides whether to keep the trace: replay keeps it"),
)

// Flags returns the CLI flags that set cfg's settings that differ from
// DefaultConfig, in a fixed order; every setting has one.
func (c Config) Flags() []string {
	args, _ := repro.Args(schema.Diff(c, DefaultConfig()))
	return args
}

// Unflagged lists the settings in which c differs from DefaultConfig and
// that no flag gives, by key; none today, and a test keeps it so.
func (c Config) Unflagged() []string { return schema.Unflagged(c, DefaultConfig()) }

// SetFlag sets the setting flag -name binds in c from the flag's text.
func SetFlag(c *Config, name, text string) error { return schema.SetFlag(c, name, text) }

// FlagNames lists the flags of Config's settings, in the order Flags
// prints them.
func FlagNames() []string { return schema.FlagNames() }

// Settings lists every setting of a Config by key, with its flag and,
// for a Mode one, why it is not reproduced.
func Settings() []repro.Field { return schema.Settings() }

// DefaultCLI is how commands are printed where no caller says: from the
// root of durasim's checkout.
const DefaultCLI = "go run ./cmd/durasim"

// ErrOwnSystem is why a queue of a system of the user's own has no
// durasim command: durasim's CLI does not link it.
var ErrOwnSystem = errors.New("durasim's CLI cannot open it (not compiled into durasim): only go test reproduces the run")

// Reproducer prints the commands that reproduce a target run's failure
// from where the user is. Its zero value prints them as from the root of
// durasim's checkout.
type Reproducer struct {
	CLI     string // how the user runs durasim there ("": DefaultCLI)
	Install string // how to install that CLI, printed under its commands ("": nothing to say)
	Test    string // the go test command that reruns the seed ("" outside go test)
}

// Line is the durasim command that runs verb on seed of cfg against the
// system of q, the queue that ran: -target with q's name, the system's
// flags that open a queue like q, the seed and cfg's flags. It is ""
// with the reason when durasim's CLI cannot run it (a system of the
// user's own, or a queue setting no flag gives).
func (r *Reproducer) Line(verb string, q target.Queue, cfg Config, seed uint64) (string, error) {
	sys, ok := target.Lookup(q.Name())
	if _, cli := sys.(target.CLISystem); !ok || !cli {
		return "", fmt.Errorf("target %s: %w", q.Name(), ErrOwnSystem)
	}
	sysArgs, err := sys.Args(q)
	if err != nil {
		return "", fmt.Errorf("target %s: %v", q.Name(), err)
	}
	cli := r.CLI
	if cli == "" {
		cli = DefaultCLI
	}
	return CommandLine(cli, verb, q.Name(), sysArgs, cfg, seed), nil
}

// CommandLine is cli verb -target name sysArgs -seed N and cfg's flags,
// shell-quoted: the command that runs verb on seed of cfg against the
// system named name, opened by sysArgs (its System's Args).
func CommandLine(cli, verb, name string, sysArgs []string, cfg Config, seed uint64) string {
	args := append([]string{"-target", name}, sysArgs...)
	args = append(append(args, "-seed", strconv.FormatUint(seed, 10)), cfg.Flags()...)
	return cli + " " + verb + " " + repro.Shell(args...)
}

// Lines are the commands that reproduce a failing seed of cfg on q, and
// its shrunk counterexample sh (nil: none): the go test line, the
// durasim replay of the seed as it ran, the replay of the shrunk run,
// then a note for what cannot be printed and how to install the CLI.
func (r *Reproducer) Lines(q target.Queue, cfg Config, seed uint64, sh *Shrunk) []string {
	var out, notes []string
	if r.Test != "" {
		out = append(out, r.Test)
	}
	configs := []Config{cfg}
	if sh != nil {
		configs = append(configs, sh.Config)
	}
	wrote := false
	for _, c := range configs {
		line, err := r.Line("replay", q, c, seed)
		if err != nil {
			notes = append(notes, "("+err.Error()+")")
			break // the same reason for both
		}
		out, wrote = append(out, line), true
	}
	if wrote && r.Install != "" {
		notes = append(notes, "("+r.Install+")")
	}
	return append(out, notes...)
}

// Command is the durasim command line, from the root of durasim's
// checkout, that runs verb on seed of cfg against the system named system
// opened on backend with its other settings at the CLI's defaults: "go
// run ./cmd/durasim replay -target river -seed 7 ...". Where the queue
// that ran is at hand, [Reproducer.Line] is exact: it asks the queue's
// system for the flags of all its settings.
func Command(verb, system, backend string, cfg Config, seed uint64) string {
	var sysArgs []string
	if backend != "" && backend != "sqlite" {
		sysArgs = []string{"-backend", backend}
	}
	return CommandLine(DefaultCLI, verb, system, sysArgs, cfg, seed)
}
