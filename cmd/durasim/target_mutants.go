package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/durasim/durasim/invariants"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// targetMutants runs every handler design against the target on the
// seeds: each correct design's effects must hold on every seed, each
// other design must fail a check of its effects (caught), shrunk to its
// counterexample. A violation of the queue's own guarantees (attempts,
// finished jobs, timing) is the queue's finding, whatever the handler:
// it is listed apart and does not decide a design's verdict.
func targetMutants(ctx context.Context, q target.Queue, base targetsim.Config, seeds seedRange, system, backend string, w io.Writer) error {
	fmt.Fprintf(w, "target      %s on %s, seeds %d:%d\n\n", system, backend, seeds.lo, seeds.hi)
	fmt.Fprintf(w, "%-20s %-8s %s\n", "design", "promise", "verdict")
	bad := false
	pol := q.Policy()
	for _, d := range targetsim.Designs() {
		cfg := base
		cfg.Design = d
		caught, queueFinds, err := firstHandlerFailure(ctx, q, cfg, seeds)
		if err != nil {
			return err
		}
		promise, why := "naive", ""
		switch {
		case d.CorrectOn(pol):
			promise = "correct"
		case d.Correct():
			why = " (naive here: the queue has no unique insert, so a document sent twice is two jobs)"
		}
		switch {
		case caught == nil && d.CorrectOn(pol):
			fmt.Fprintf(w, "%-20s %-8s passes all %d seeds%s\n", d, promise, seeds.hi-seeds.lo+1, queueFindings(system, queueFinds))
		case caught == nil:
			bad = true
			fmt.Fprintf(w, "%-20s %-8s NOT CAUGHT in %d seeds%s\n", d, promise, seeds.hi-seeds.lo+1, why)
		default:
			bad = bad || d.CorrectOn(pol)
			verdict := "caught"
			if d.CorrectOn(pol) {
				verdict = "FAILS (a correct design must pass)"
			}
			inv := caught.FirstHandler()
			fmt.Fprintf(w, "%-20s %-8s %s at seed %d: %s%s%s\n", d, promise, verdict, caught.Seed, inv, why, queueFindings(system, queueFinds))
			sh, err := targetsim.Shrink(ctx, q, cfg, caught.Seed, caught, inv)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(w, "%-20s %-8s   shrunk: %s (%d document(s), %d worker(s))\n", "", "", planText(sh.Config.Plan), docsOf(sh.Config), sh.Config.Workers)
			fmt.Fprintf(w, "%-20s %-8s   %s\n", "", "", sh.Result.First(inv))
			fmt.Fprintf(w, "%-20s %-8s   reproduce: %s\n", "", "", strings.Join(targetReproducer().Lines(q, sh.Config, caught.Seed, nil), "; "))
		}
	}
	if bad {
		return errViolation
	}
	return nil
}

// firstHandlerFailure runs seeds in order and returns the first run that
// fails a check of the handler's effects, and the seeds before it whose
// only violations were the queue's, by check.
func firstHandlerFailure(ctx context.Context, q target.Queue, cfg targetsim.Config, seeds seedRange) (*targetsim.Result, map[string][]uint64, error) {
	queue := map[string][]uint64{}
	for seed := seeds.lo; ; seed++ {
		res, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			return nil, nil, &exitError{code: 1, err: err}
		}
		if res.HandlerFailed() {
			return res, queue, nil
		}
		for _, v := range res.Violations {
			if s := queue[v.Invariant]; len(s) == 0 || s[len(s)-1] != seed {
				queue[v.Invariant] = append(s, seed)
			}
		}
		if seed == seeds.hi {
			return nil, queue, nil
		}
	}
}

// queueFindings says which of the queue's own guarantees failed on which
// seeds ("" when none did).
func queueFindings(system string, queue map[string][]uint64) string {
	var parts []string
	for _, name := range invariants.TargetChecks() {
		if s := queue[name]; len(s) > 0 {
			parts = append(parts, fmt.Sprintf("%s in %d seed(s), first %d", name, len(s), s[0]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + system + "'s own findings: " + strings.Join(parts, ", ")
}
