package repro

import "errors"

// Opening is what durasim's CLI opens a target system's queue with: the
// database (-backend) and the system's settings, C (its Config).
type Opening[C any] struct {
	Backend string
	Config  C
}

// OpeningSchema is the schema of an [Opening] of C: Backend bound to
// -backend, and opts for the settings of the Config ("Config.Timeout").
func OpeningSchema[C any](opts ...Option) *Schema {
	return MustNew(Opening[C]{}, append([]Option{Flag("Backend", "backend")}, opts...)...)
}

// OpeningArgs are the flags that open like o (s is its schema): its
// settings that differ from def, the CLI's default opening. cli is the
// opening those flags give back (o's backend and the settings the
// system derives from its own flags); a setting in which o differs from
// it has no flag, and is an error naming it.
func OpeningArgs[C any](s *Schema, o, def, cli Opening[C]) ([]string, error) {
	args, _ := Args(s.Diff(o, def))
	if _, missing := Args(s.Diff(o, cli)); len(missing) > 0 {
		return nil, errors.New(Keys(missing) + ": no flag sets it")
	}
	return args, nil
}
