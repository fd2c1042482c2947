package main

import (
	"flag"
	"fmt"
	"strings"
	"time"
)

// explained wraps a flag's value so that a value that does not parse says
// what is wanted: the flag package says only "parse error".
type explained struct {
	flag.Value
	want string
}

func (e explained) Set(s string) error {
	err := e.Value.Set(s)
	switch {
	case err == nil:
		return nil
	case strings.Contains(err.Error(), "out of range"):
		return fmt.Errorf("out of range: want %s", e.want)
	}
	return fmt.Errorf("want %s", e.want)
}

// explainedBool is explained for a boolean flag, which may stand alone.
type explainedBool struct{ explained }

func (explainedBool) IsBoolFlag() bool { return true }

// explainValues wraps every flag of fs in what it wants, for Parse, and
// returns what restores the flags' own values (which -h prints by type).
func explainValues(fs *flag.FlagSet) (restore func()) {
	orig := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		want := wanted(g.Get())
		if want == "" {
			return
		}
		orig[f] = f.Value
		if _, isBool := g.Get().(bool); isBool {
			f.Value = explainedBool{explained{f.Value, want}}
		} else {
			f.Value = explained{f.Value, want}
		}
	})
	return func() {
		//det:sorted (order does not matter: each flag gets its own value back)
		for f, v := range orig {
			f.Value = v
		}
	}
}

// wanted says what a flag of v's type takes ("": anything, a string).
func wanted(v any) string {
	switch v.(type) {
	case time.Duration:
		return "a Go duration such as 30s, 1500ms or 2m30s"
	case int, int64:
		return "an integer such as 8"
	case uint, uint64:
		return "an unsigned integer such as 42"
	case float64:
		return "a number such as 0.5"
	case bool:
		return "true or false"
	}
	return ""
}
