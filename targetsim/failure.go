package targetsim

import (
	"context"
	"fmt"
	"io"

	"github.com/durasim/durasim/target"
)

// WriteFailure shrinks a failing run and prints its story, in the form
// the model's failures take (sim.WriteFailure): the whole run's
// violations and swarm; the shrunk counterexample, its size, plan and own
// violation, and the ops that violation names, marked, as trace lines;
// then the commands that reproduce it, which reproduce builds from the
// seed and the shrunk configuration (the CLI's replay line, or the go
// test line of a sweep). It returns the shrunk run (nil when shrinking
// failed, which it prints).
func WriteFailure(ctx context.Context, w io.Writer, q target.Queue, cfg Config, res *Result, reproduce func(shrunk *Shrunk) []string) *Shrunk {
	fmt.Fprintf(w, "FAIL seed %d (%s, design %s)\n", res.Seed, res.Target, cfg.Design)
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  violation: %s\n", v)
	}
	if res.Swarm != "" {
		fmt.Fprintf(w, "  swarm: %s\n", res.Swarm)
	}
	sh, err := Shrink(ctx, q, cfg, res.Seed, res, "")
	if err != nil {
		fmt.Fprintf(w, "  shrinking failed: %v\n", err)
		sh = nil
	} else {
		writeShrunk(ctx, w, q, sh, res.Violations[0].Invariant)
	}
	fmt.Fprintf(w, "  reproduce:\n")
	for _, line := range reproduce(sh) {
		fmt.Fprintf(w, "    %s\n", line)
	}
	return sh
}

// writeShrunk prints the shrunk run: its size and plan, its violation of
// inv, and the ops it names as trace lines (the run again, with its
// trace kept: the shrinker keeps none).
func writeShrunk(ctx context.Context, w io.Writer, q target.Queue, sh *Shrunk, inv string) {
	c := sh.Config
	fmt.Fprintf(w, "  shrunk after %d runs to %d fault(s), %d document(s), %d worker(s); breaks %s\n",
		sh.Runs, len(c.Plan.Faults), c.docCount(), c.Workers, inv)
	plan := "(no fault)"
	if len(c.Plan.Faults) > 0 {
		plan = c.Plan.OneLine()
	}
	fmt.Fprintf(w, "  shrunk plan: %s\n", plan)
	c.KeepTrace = true
	got, err := Run(ctx, q, c, sh.Result.Seed)
	if err != nil || !got.Failed() {
		fmt.Fprintf(w, "  (the shrunk run did not fail again with its trace kept: %v)\n", err)
		return
	}
	v := got.First(inv)
	fmt.Fprintf(w, "  shrunk violation: %s\n", v)
	fmt.Fprintf(w, "  counterexample (the shrunk run's ops that its violation names):\n")
	for _, seq := range v.Events {
		if seq >= 1 && int(seq) <= len(got.Trace) {
			fmt.Fprintf(w, "    > #%d %s\n", seq, got.Trace[seq-1])
		}
	}
}

// docCount is how many documents c runs (Only keeps a subset).
func (c Config) docCount() int {
	if c.Only != nil {
		return len(c.Only)
	}
	return c.Docs
}
