package sim

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/model"
)

// schema is every setting of a Config, found by reflection: a setting
// has a flag of the CLI, or only a key in a repro file, or is one the
// command running a reproduction sets itself (Mode). A field of a type
// with no text form fails the package's init, and TestEverySettingReproduces
// changes each setting alone and checks that the flags or the file
// bring it back. The flags are listed in the order Flags prints them.
var schema = repro.MustNew(Config{},
	repro.Flag("Variant", "variant"),
	repro.Flag("Backend", "backend"),
	repro.Flag("Workers", "workers"),
	repro.Flag("Docs", "docs"),
	repro.Flag("Only", "only"),
	repro.Flag("Tenants", "tenants"),
	repro.Flag("Model.Lease", "lease"),
	repro.Flag("Model.HeartbeatEvery", "heartbeat"),
	repro.Flag("Model.MaxAttempts", "max-attempts"),
	repro.Flag("Model.Retry.Strategy", "backoff"),
	repro.Flag("Model.Retry.Base", "backoff-base"),
	repro.Flag("Model.Retry.Cap", "backoff-cap"),
	repro.Flag("Model.Breaker", "breaker"),
	repro.Flag("ArrivalGap", "arrival-gap"),
	repro.Flag("Model.Retention", "retention"),
	repro.Flag("Model.Reprocess.Capacity", "reprocess-limit"),
	repro.Flag("Model.Deadline", "deadline"),
	repro.Flag("Model.TokenBudget", "token-budget"),
	repro.Flag("Model.Ordered", "ordered"),
	repro.Flag("ProbeStatus", "probe-status"),
	repro.Flag("TryCancelled", "try-cancelled"),
	repro.Flag("EdgeVersions", "edge-versions"),
	repro.Flag("WorkflowEvery", "workflow-every"),
	repro.Flag("Resubmit", "resubmit"),
	repro.Flag("Swarm", "swarm"),
	repro.Flag("Plan", "plan"),
	repro.Duration("Model.Lease", "Model.HeartbeatEvery", "Model.Deadline", "Model.Retry.Base", "Model.Retry.Cap",
		"Model.Redrive.Refill", "Model.Reprocess.Refill", "Model.Retention", "ArrivalGap", "DrainLimit"),
	repro.Text(func(s model.Strategy) (string, error) { return s.String(), nil }, model.ParseStrategy),
	repro.Text(func(b model.BreakerConfig) (string, error) { return BreakerSpec(b), nil },
		func(s string) (model.BreakerConfig, error) { return ParseBreakerSpec(s, DefaultConfig().Model.Breaker) }),
	repro.Text(func(p faults.Plan) (string, error) { return p.OneLine(), nil }, faults.Parse),
	repro.Text(backendName, nil), // the CLI opens the store by its name
	repro.Mode("KeepTrace", "the command decides whether to keep the trace: replay keeps it"),
	repro.Mode("StopOnViolation", "the command decides whether to stop at the first violation: the verdict is the same"),
)

// CLIProg is durasim's command line: its module and directory.
var CLIProg = repro.Prog{Module: "github.com/durasim/durasim", Dir: "cmd/durasim"}

// NoBackend is the -backend value of a run on the model alone.
const NoBackend = "memory"

// CLIBackend is a Backend the durasim CLI opens by its name (-backend
// Name()): durasim's own SQL stores. A reproduce command names only such
// a backend; a run on any other (a user's own) is reproduced by its go
// test line alone.
type CLIBackend interface {
	Backend
	// OpenedByName marks the type: durasim's CLI opens it by Name().
	OpenedByName()
}

// ErrOwnBackend is why a configuration with a backend of the user's own
// has no durasim command: the CLI cannot open it.
var ErrOwnBackend = errors.New("the backend is your own type, which the durasim CLI cannot open: only go test reproduces the run")

func backendName(b Backend) (string, error) {
	switch b := b.(type) {
	case nil:
		return NoBackend, nil
	case CLIBackend:
		return b.Name(), nil
	default:
		return "", fmt.Errorf("backend %s: %w", b.Name(), ErrOwnBackend)
	}
}

// Flags returns the CLI flags that set cfg's settings that differ from
// DefaultConfig, in a fixed order. A setting no flag sets is not among
// them: [Config.Unflagged] lists those, and a run with any is reproduced
// by a repro file ([WriteRepro]).
func (c Config) Flags() []string {
	args, _ := repro.Args(schema.Diff(c, DefaultConfig()))
	return args
}

// Unflagged lists the settings in which c differs from DefaultConfig and
// that no flag can give (no flag has them, or their value has no text: a
// backend of the user's own), by key ("MaxFaults").
func (c Config) Unflagged() []string { return schema.Unflagged(c, DefaultConfig()) }

// FlagsFrom returns the flags that turn base into c, and whether they
// can (every setting in which they differ has a flag and a text form).
func FlagsFrom(c, base Config) ([]string, error) {
	args, missing := repro.Args(schema.Diff(c, base))
	for _, st := range missing {
		if st.Err != nil {
			return nil, st.Err
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: no flag sets it", repro.Keys(missing))
	}
	return args, nil
}

// SetFlag sets the setting flag -name binds in c from the flag's text,
// as the CLI's flags give it (a duration as 30s, a breaker as its spec).
// -backend is the caller's to open.
func SetFlag(c *Config, name, text string) error { return schema.SetFlag(c, name, text) }

// FlagNames lists the flags of Config's settings, in the order Flags
// prints them.
func FlagNames() []string { return schema.FlagNames() }

// Settings lists every setting of a Config by key, with its flag ("" for
// a setting only a repro file sets) and, for a Mode one, why it is not
// reproduced.
func Settings() []repro.Field { return schema.Settings() }

// ReproKind is the kind line of a repro file of a sim.Config.
const ReproKind = "sim"

// WriteRepro writes the repro file of a run of cfg on seed: every
// setting, the seed, version (of durasim, "" if unknown) and notes as
// comments. It fails, writing nothing, for a backend of the user's own.
func WriteRepro(w io.Writer, cfg Config, seed uint64, version string, notes ...string) error {
	return schema.WriteFile(w, repro.Header{Kind: ReproKind, Seed: seed, Version: version, Notes: notes}, cfg)
}

// ReadRepro reads a repro file (name is for messages) over
// DefaultConfig: the configuration, the seed and the name of the backend
// to open (NoBackend: none), which the caller opens.
func ReadRepro(r io.Reader, name string) (Config, uint64, string, error) {
	cfg := DefaultConfig()
	h, ext, err := schema.ReadFile(r, name, &cfg)
	if err != nil {
		return cfg, 0, "", err
	}
	if h.Kind != ReproKind {
		return cfg, 0, "", fmt.Errorf("%s: a repro file of kind %q, not of a pipeline run (%s)", name, h.Kind, ReproKind)
	}
	backend := ext["Backend"]
	if backend == "" {
		backend = NoBackend
	}
	return cfg, h.Seed, backend, nil
}

// DefaultCLI is how commands are printed where no caller says: from the
// root of durasim's checkout.
const DefaultCLI = "go run ./cmd/durasim"

// Command is the shell command, from the root of durasim's checkout,
// that runs verb (run, replay, shrink) on seed with cfg; "" when cfg has a
// setting no flag sets ([Config.Unflagged]: a repro file reproduces it,
// or its go test line). Where the user may be elsewhere, use a
// [Reproducer].
func Command(verb string, cfg Config, seed uint64) string {
	line, err := (&Reproducer{}).Line(verb, "", cfg, seed)
	if err != nil {
		return ""
	}
	return line
}

// commandLine is cli verb [-repro file] [-seed N] args, shell-quoted.
func commandLine(cli, verb, file string, seed uint64, withSeed bool, args []string) string {
	var parts []string
	if file != "" {
		parts = append(parts, "-repro", file)
	}
	if withSeed {
		parts = append(parts, "-seed", strconv.FormatUint(seed, 10))
	}
	parts = append(parts, args...)
	return cli + " " + verb + " " + repro.Shell(parts...)
}

func joinInts(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(int(x))
	}
	return strings.Join(parts, ",")
}
