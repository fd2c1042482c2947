package main

import (
	"context"
	"fmt"
	"io"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// targetMutants runs every handler design against the target on the
// seeds: each correct design must pass every seed, each other design must
// fail one (caught), shrunk to its counterexample.
func targetMutants(ctx context.Context, q target.Queue, base targetsim.Config, seeds seedRange, backend string, w io.Writer) error {
	fmt.Fprintf(w, "target      river on %s, seeds %d:%d\n\n", backend, seeds.lo, seeds.hi)
	fmt.Fprintf(w, "%-20s %-8s %s\n", "design", "promise", "verdict")
	bad := false
	for _, d := range targetsim.Designs() {
		cfg := base
		cfg.Design = d
		caught, err := firstFailure(ctx, q, cfg, seeds)
		if err != nil {
			return err
		}
		promise := "naive"
		if d.Correct() {
			promise = "correct"
		}
		switch {
		case caught == nil && d.Correct():
			fmt.Fprintf(w, "%-20s %-8s passes all %d seeds\n", d, promise, seeds.hi-seeds.lo+1)
		case caught == nil:
			bad = true
			fmt.Fprintf(w, "%-20s %-8s NOT CAUGHT in %d seeds\n", d, promise, seeds.hi-seeds.lo+1)
		default:
			bad = bad || d.Correct()
			verdict := "caught"
			if d.Correct() {
				verdict = "FAILS (a correct design must pass)"
			}
			fmt.Fprintf(w, "%-20s %-8s %s at seed %d: %s\n", d, promise, verdict, caught.Seed, caught.Violations[0].Invariant)
			sh, err := targetsim.Shrink(ctx, q, cfg, caught.Seed, caught)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(w, "%-20s %-8s   shrunk: %s (%d document(s), %d worker(s))\n", "", "", planText(sh.Config.Plan), docsOf(sh.Config), sh.Config.Workers)
			fmt.Fprintf(w, "%-20s %-8s   %s\n", "", "", sh.Result.Violations[0])
			fmt.Fprintf(w, "%-20s %-8s   reproduce: %s\n", "", "", targetsim.Command("replay", backend, sh.Config, caught.Seed))
		}
	}
	if bad {
		return errViolation
	}
	return nil
}

// firstFailure runs seeds in order and returns the first failing run.
func firstFailure(ctx context.Context, q target.Queue, cfg targetsim.Config, seeds seedRange) (*targetsim.Result, error) {
	for seed := seeds.lo; ; seed++ {
		res, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			return nil, &exitError{code: 1, err: err}
		}
		if res.Failed() {
			return res, nil
		}
		if seed == seeds.hi {
			return nil, nil
		}
	}
}
