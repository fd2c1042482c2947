package repro

import (
	"slices"
	"testing"
)

// openingConfig is a system's settings: one with a flag, one derived
// from it, one only code sets.
type openingConfig struct {
	Timeout, Half, Extra int64
}

func cliOpening(backend string, timeout int64) Opening[openingConfig] {
	return Opening[openingConfig]{Backend: backend, Config: openingConfig{Timeout: timeout, Half: timeout / 2}}
}

// An opening's flags are what differs from the default opening; a
// setting the flags cannot give back is an error naming it.
func TestOpeningArgs(t *testing.T) {
	s := OpeningSchema[openingConfig](Flag("Config.Timeout", "timeout"))
	def := cliOpening("sqlite", 10)
	for _, c := range []struct {
		o    Opening[openingConfig]
		want []string
		err  string
	}{
		{o: def},
		{o: cliOpening("postgres", 10), want: []string{"-backend", "postgres"}},
		{o: cliOpening("sqlite", 4), want: []string{"-timeout", "4"}},
		{o: Opening[openingConfig]{Backend: "sqlite", Config: openingConfig{Timeout: 10, Half: 5, Extra: 1}}, err: "Config.Extra: no flag sets it"},
		{o: Opening[openingConfig]{Backend: "sqlite", Config: openingConfig{Timeout: 10, Half: 3}}, err: "Config.Half: no flag sets it"},
	} {
		got, err := OpeningArgs(s, c.o, def, cliOpening(c.o.Backend, c.o.Config.Timeout))
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%+v: err %v, want %q", c.o, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%+v: %q, %v; want %q", c.o, got, err, c.want)
		}
	}
}
