package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/durasim/durasim/internal/catchtime"
	"github.com/durasim/durasim/invariants"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

func addTargetMutantsFlags(f *targetFlags) {
	f.fs.IntVar(&f.trials, "trials", 1, "repeat each design's search from this many disjoint seed ranges of the same length, 1 to 1000 (time to catch: the median)")
	f.fs.BoolVar(&f.jsonOut, "json", false, "print one JSON object: every design's verdict and the queue's own findings, each with its time to catch")
}

// targetMutantsReport is `mutants -target ... -json`'s one object.
type targetMutantsReport struct {
	Target  string            `json:"target"`
	Backend string            `json:"backend"`
	Seeds   string            `json:"seeds"`
	Trials  int               `json:"trials"`
	Designs []targetDesignRow `json:"designs"`
}

// targetDesignRow is one handler design's verdict, its catch (a naive
// design's first failing check of the handler's effects), and the
// queue's own findings in the seeds its search ran.
type targetDesignRow struct {
	Design       string            `json:"design"`
	Promise      string            `json:"promise"` // correct or naive
	Verdict      string            `json:"verdict"` // passes, caught, not caught, fails
	CaughtTrials int               `json:"caught_trials"`
	Check        string            `json:"check,omitempty"`
	FirstSeed    uint64            `json:"first_seed,omitempty"`    // the first trial's
	Seeds        statBlock         `json:"seeds_to_catch"`          // a trial that caught nothing counts the seeds it ran
	TimeToCatch  *catchtime.Figure `json:"time_to_catch,omitempty"` // when a trial caught it
	Shrunk       string            `json:"shrunk,omitempty"`
	Reproduce    string            `json:"reproduce,omitempty"`
	// QueueFindings are the queue's own guarantees that failed, searched
	// in the seeds this design ran (a naive design's, until its catch).
	QueueFindings []queueFinding `json:"queue_findings"`
}

// queueFinding is one of the queue's own checks failing: on which seeds
// of the first trial, and how long each trial took to show it.
type queueFinding struct {
	Check       string           `json:"check"`
	FoundTrials int              `json:"found_trials"`
	Seeds       []uint64         `json:"seeds"` // the first trial's failing seeds
	SeedsTo     statBlock        `json:"seeds_to_catch"`
	TimeToCatch catchtime.Figure `json:"time_to_catch"`
}

// targetSearch is one design's search over one trial's seeds.
type targetSearch struct {
	caught *targetsim.Result // the first failure of a check of the handler's effects
	tried  int               // seeds run: to the catch, or all
	wall   time.Duration
	queue  map[string][]uint64 // the queue's own checks: the seeds that failed them
	first  map[string]int      // and the seeds run to the first of them
}

// targetMutants runs every handler design against the target on the
// seeds: each correct design's effects must hold on every seed, each
// other design must fail a check of its effects (caught), shrunk to its
// counterexample. A violation of the queue's own guarantees (attempts,
// finished jobs, timing) is the queue's finding, whatever the handler:
// it is listed apart and does not decide a design's verdict. With
// -trials, each design searches as many disjoint ranges of the same
// length; the first decides the verdict, all give the time to catch.
func targetMutants(ctx context.Context, q target.Queue, base targetsim.Config, seeds seedRange, f *targetFlags, w io.Writer) error {
	n := seeds.hi - seeds.lo + 1
	if f.trials < 1 || f.trials > 1000 {
		return usageErr("-trials must be between 1 and 1000 (got %d)", f.trials)
	}
	if (math.MaxUint64-seeds.hi)/n < uint64(f.trials-1) {
		return usageErr("invalid -seeds %d:%d with -trials %d: the last trial's seeds would pass %d", seeds.lo, seeds.hi, f.trials, uint64(math.MaxUint64))
	}
	rep := &targetMutantsReport{Target: f.target, Backend: f.backend, Seeds: fmt.Sprintf("%d:%d", seeds.lo, seeds.hi), Trials: f.trials}
	if !f.jsonOut {
		fmt.Fprintf(w, "target      %s on %s, seeds %d:%d\n\n", f.target, f.backend, seeds.lo, seeds.hi)
		fmt.Fprintf(w, "%-20s %-8s %s\n", "design", "promise", "verdict")
	}
	bad := false
	for _, d := range targetsim.Designs() {
		cfg := base
		cfg.Design = d
		var trials []targetSearch
		for t := range uint64(f.trials) {
			s, err := searchDesign(ctx, q, cfg, seedRange{seeds.lo + t*n, seeds.hi + t*n})
			if err != nil {
				return err
			}
			trials = append(trials, s)
		}
		row, err := designRow(ctx, q, cfg, trials, f.jsonOut, w)
		if err != nil {
			return err
		}
		bad = bad || row.Verdict == "not caught" || row.Verdict == "fails"
		rep.Designs = append(rep.Designs, row)
	}
	if f.jsonOut {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
	if bad {
		return errViolation
	}
	return nil
}

// designRow is a design's verdict from its trials: the first trial's
// catch, shrunk, printed unless quiet, and the times to catch.
func designRow(ctx context.Context, q target.Queue, cfg targetsim.Config, trials []targetSearch, quiet bool, w io.Writer) (targetDesignRow, error) {
	d, first := cfg.Design, trials[0]
	row := targetDesignRow{Design: d.String(), Promise: "naive", QueueFindings: queueFindingsOf(trials)}
	correct, why := d.CorrectOn(q.Policy()), ""
	switch {
	case correct:
		row.Promise = "correct"
	case d.Correct():
		why = " (naive here: the queue has no unique insert, so a document sent twice is two jobs)"
	}
	system := q.Name()
	var wall time.Duration
	ran := 0
	for _, s := range trials {
		row.Seeds.Trials = append(row.Seeds.Trials, float64(s.tried))
		wall, ran = wall+s.wall, ran+s.tried
		if s.caught != nil {
			row.CaughtTrials++
		}
	}
	row.Seeds.Median, row.Seeds.Worst = catchtime.MedianWorst(row.Seeds.Trials)
	if row.CaughtTrials > 0 {
		ttc := catchtime.Of(row.Seeds.Trials, wall, ran)
		row.TimeToCatch = &ttc
	}
	seeds := first.tried
	switch {
	case first.caught == nil && correct:
		row.Verdict = "passes"
		if !quiet {
			fmt.Fprintf(w, "%-20s %-8s passes all %d seeds%s\n", d, row.Promise, seeds, queueFindings(system, first.queue))
		}
		return row, nil
	case first.caught == nil:
		row.Verdict = "not caught"
		if !quiet {
			fmt.Fprintf(w, "%-20s %-8s NOT CAUGHT in %d seeds%s\n", d, row.Promise, seeds, why)
		}
		return row, nil
	}
	caught := first.caught
	row.Verdict, row.Check, row.FirstSeed = "caught", caught.FirstHandler(), caught.Seed
	if correct {
		row.Verdict = "fails"
	}
	verdict := "caught"
	if correct {
		verdict = "FAILS (a correct design must pass)"
	}
	inv := row.Check
	if !quiet {
		fmt.Fprintf(w, "%-20s %-8s %s at seed %d: %s%s%s\n", d, row.Promise, verdict, caught.Seed, inv, why, queueFindings(system, first.queue))
	}
	sh, err := targetsim.Shrink(ctx, q, cfg, caught.Seed, caught, inv)
	if err != nil {
		return row, &exitError{code: 1, err: err}
	}
	row.Shrunk = planText(sh.Config.Plan)
	row.Reproduce = strings.Join(targetReproducer().Lines(q, sh.Config, caught.Seed, nil), "; ")
	if !quiet {
		fmt.Fprintf(w, "%-20s %-8s   shrunk: %s (%d document(s), %d worker(s))\n", "", "", row.Shrunk, docsOf(sh.Config), sh.Config.Workers)
		fmt.Fprintf(w, "%-20s %-8s   %s\n", "", "", sh.Result.First(inv))
		fmt.Fprintf(w, "%-20s %-8s   reproduce: %s\n", "", "", row.Reproduce)
	}
	return row, nil
}

// queueFindingsOf lists the queue's own checks that failed in any trial,
// in the oracle's order, each with its time to catch (a trial that did
// not show it counts the seeds it ran).
func queueFindingsOf(trials []targetSearch) []queueFinding {
	out := []queueFinding{}
	var wall time.Duration
	ran := 0
	for _, s := range trials {
		wall, ran = wall+s.wall, ran+s.tried
	}
	for _, name := range invariants.TargetChecks() {
		qf := queueFinding{Check: name, Seeds: trials[0].queue[name]}
		for _, s := range trials {
			at, ok := s.first[name]
			if ok {
				qf.FoundTrials++
			} else {
				at = s.tried
			}
			qf.SeedsTo.Trials = append(qf.SeedsTo.Trials, float64(at))
		}
		if qf.FoundTrials == 0 {
			continue
		}
		qf.SeedsTo.Median, qf.SeedsTo.Worst = catchtime.MedianWorst(qf.SeedsTo.Trials)
		qf.TimeToCatch = catchtime.Of(qf.SeedsTo.Trials, wall, ran)
		out = append(out, qf)
	}
	return out
}

// searchDesign runs seeds in order until the first run that fails a
// check of the handler's effects, noting the seeds before it whose only
// violations were the queue's, by check.
func searchDesign(ctx context.Context, q target.Queue, cfg targetsim.Config, seeds seedRange) (targetSearch, error) {
	s := targetSearch{queue: map[string][]uint64{}, first: map[string]int{}}
	start := time.Now()
	for seed := seeds.lo; ; seed++ {
		res, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			return s, &exitError{code: 1, err: err}
		}
		s.tried++
		if res.HandlerFailed() {
			s.caught = res
			s.wall = time.Since(start)
			return s, nil
		}
		for _, v := range res.Violations {
			if got := s.queue[v.Invariant]; len(got) == 0 || got[len(got)-1] != seed {
				s.queue[v.Invariant] = append(got, seed)
			}
			if _, ok := s.first[v.Invariant]; !ok {
				s.first[v.Invariant] = s.tried
			}
		}
		if seed == seeds.hi {
			s.wall = time.Since(start)
			return s, nil
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
