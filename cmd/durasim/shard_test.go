package main

import (
	"strings"
	"testing"
)

func TestShardReadsItsIndexFromTheEnvironment(t *testing.T) {
	env := map[string]string{"JOB_COMPLETION_INDEX": "1", "SHARD": "3", "BIG": "4", "WORD": "x"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct {
		in   string
		i, n uint64
		err  string
	}{
		{in: "2/4", i: 2, n: 4},
		{in: "env/4", i: 1, n: 4},
		{in: "env:SHARD/4", i: 3, n: 4},
		{in: "env:BIG/4", err: `$BIG is "4", want 0 to 3`},
		{in: "env:WORD/4", err: `$WORD is "x", want 0 to 3`},
		{in: "env:UNSET/4", err: "$UNSET is not set (want the shard's index, 0 to 3)"},
		{in: "env:1A/4", err: `"1A" is not a variable name`},
		{in: "env:/4", err: `"" is not a variable name`},
		{in: "env/0", err: "want i/n"},
		{in: "env", err: "want i/n"},
		{in: "4/4", err: "want i/n"},
	} {
		i, n, err := parseShard(c.in, lookup)
		switch {
		case c.err == "" && (err != nil || i != c.i || n != c.n):
			t.Errorf("%s: %d/%d, %v; want %d/%d", c.in, i, n, err, c.i, c.n)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.in, err, c.err)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	for _, args := range [][]string{{"run", "-seeds", "1:8", "-shard", "env/4"}, {"run", "-target", "river", "-seeds", "1:8", "-shard", "env/4"}} {
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
	}
}

// The summary names the shard that ran, not the variable that gave it.
func TestShardFromTheEnvironmentRunsThatShard(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	out, stderr, code := cli("run", "-seeds", "1:1000", "-shard", "env/4", "-json")
	if code != 0 || !strings.Contains(out, `"shard":"1/4","seeds":250,`) {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	want, _, _ := cli("run", "-seeds", "1:1000", "-shard", "1/4", "-json")
	if out != want {
		t.Errorf("env/4 with index 1:\n%s\n1/4:\n%s", out, want)
	}
}
