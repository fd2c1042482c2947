package sim_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

var updateHashes = flag.Bool("update", false, "rewrite testdata/hashes.golden")

// TestTraceHashesPinned pins the trace hash, event count and verdict of
// many seeds of the correct design and of every naive variant. A change
// that is meant to be a pure refactor or optimisation (memory, speed) must
// leave this file untouched; a change of behaviour rewrites it with
// -update, and the diff shows which runs moved.
func TestTraceHashesPinned(t *testing.T) {
	var b strings.Builder
	designs := append([]string{"correct"}, model.VariantNames()...)
	for _, name := range designs {
		cfg := sim.DefaultConfig()
		cfg.Variant = name
		seeds := uint64(10)
		if name == "correct" {
			seeds = 200
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			res, err := sim.Run(cfg, seed)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %d %s events=%d violations=%d\n", name, seed, res.HashHex(), res.Events, len(res.Violations))
		}
	}
	path := filepath.Join("testdata", "hashes.golden")
	if *updateHashes {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with go test ./sim -run TestTraceHashesPinned -update)", err)
	}
	got := strings.Split(b.String(), "\n")
	exp := strings.Split(string(want), "\n")
	for i := 0; i < len(got) && i < len(exp); i++ {
		if got[i] != exp[i] {
			t.Fatalf("trace hashes moved; first difference at line %d:\n got  %s\n want %s\n(rewrite with -update if the behaviour change is intended)", i+1, got[i], exp[i])
		}
	}
	if len(got) != len(exp) {
		t.Fatalf("trace hashes: %d lines, want %d", len(got), len(exp))
	}
}
