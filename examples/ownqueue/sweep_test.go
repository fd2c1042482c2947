package ownqueue_test

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/durasim/durasim/examples/ownqueue"
	"github.com/durasim/durasim/simtest"
	"github.com/durasim/durasim/targetsim"
)

// sweepSeeds is how many seeds TestSweep runs (-sim.seeds overrides).
const sweepSeeds = 300

// sweepConfig is the sweep's workload: targetsim's default (four workers,
// eight documents of two tenants, four receives each, the seed's swarm of
// faults) with the handler this queue needs. The queue deduplicates a
// body only while its message lives, so a document sent again after its
// message was deleted runs again, and the effect must be idempotent by a
// key of its own (idempotent-key). targetsim's default handler,
// tx-checked, fails here with target-effect-once: that is the queue's
// rule, declared in its Policy (UniqueStates), not a fault of the queue.
func sweepConfig() targetsim.Config {
	cfg := targetsim.DefaultConfig()
	cfg.Design = targetsim.IdempotentKey
	return cfg
}

// TestSweep is the queue's seeded sweep: each seed runs the workload
// against a fresh queue and the target oracle judges its history by the
// queue's Policy. Seeds come from simtest: -sim.seed=N runs one,
// -sim.seeds=N sets how many, -sim.root=R repeats a random root the
// test printed. A failure is shrunk and printed with the command that
// replays it.
func TestSweep(t *testing.T) {
	q := ownqueue.NewTarget(ownqueue.DefaultConfig())
	cfg := sweepConfig()
	for _, seed := range simtest.Seeds(t, sweepSeeds) {
		res, err := targetsim.Run(context.Background(), q, cfg, seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Failed() {
			t.Fatalf("\n%s", counterexample(t, q, cfg, res))
		}
	}
}

// counterexample shrinks a failing seed and says what failed, the shrunk
// configuration, the ops that prove its first violation, and the go test
// command that replays the seed (and shrinks it again to the same).
func counterexample(t *testing.T, q *ownqueue.Target, cfg targetsim.Config, res *targetsim.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL seed %d (%s, design %s): %s\n", res.Seed, res.Target, cfg.Design, res.Violations[0])
	if res.Swarm != "" {
		fmt.Fprintf(&b, "  swarm: %s\n", res.Swarm)
	}
	ctx := context.Background()
	sh, err := targetsim.Shrink(ctx, q, cfg, res.Seed, res, "")
	if err != nil {
		fmt.Fprintf(&b, "  shrinking failed: %v\n", err)
	} else {
		c := sh.Config
		c.KeepTrace = true
		if got, err := targetsim.Run(ctx, q, c, res.Seed); err == nil && got.Failed() {
			v := got.First(res.Violations[0].Invariant)
			fmt.Fprintf(&b, "  shrunk in %d runs to: %s\n", sh.Runs, c.Flags())
			fmt.Fprintf(&b, "  violation: %s\n", v)
			for _, seq := range v.Events {
				if seq >= 1 && int(seq) <= len(got.Trace) {
					fmt.Fprintf(&b, "    #%d %s\n", seq, got.Trace[seq-1])
				}
			}
		}
	}
	fmt.Fprintf(&b, "  reproduce: %s\n", reproduce(t, res.Seed))
	return b.String()
}

// reproduce is the go test command that replays seed in this test, with
// the build tags this test binary was built with (a planted bug's).
func reproduce(t *testing.T, seed uint64) string {
	cmd := simtest.TestCommand(t, seed)
	if tags := buildTags(); tags != "" {
		cmd = strings.Replace(cmd, "go test ", "go test -tags "+tags+" ", 1)
	}
	return cmd + " -count=1"
}

func buildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}
