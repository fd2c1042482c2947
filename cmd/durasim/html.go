package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/timeline"
)

// htmlShrinkBudget bounds the simulations spent shrinking each failing
// seed of a sweep for its page (the first failing seed, which the sweep
// prints, gets the full budget).
const htmlShrinkBudget = 600

// checkHTMLFile refuses an -html path that cannot be written before the
// run starts: its directory must exist and the path must not be one.
func checkHTMLFile(name string) error {
	if name == "" {
		return nil
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		return usageErr("invalid -html %q: a directory, want a file name", name)
	}
	dir := filepath.Dir(name)
	fi, err := os.Stat(dir)
	if err != nil {
		return usageErr("invalid -html %q: %v", name, err)
	}
	if !fi.IsDir() {
		return usageErr("invalid -html %q: %s is not a directory", name, dir)
	}
	return nil
}

// makeHTMLDir creates -html-dir (and its parents) before the sweep runs.
func makeHTMLDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErr("invalid -html-dir %q: %v", dir, err)
	}
	return nil
}

// writeTimeline writes the page of one seed: the shrunk counterexample
// first when there is one, then the whole run (res, kept with its trace).
func writeTimeline(name string, cfg sim.Config, res *sim.Result, sh *sim.Shrunk) error {
	var runs []timeline.Run
	if sh != nil {
		runs = append(runs, timeline.Run{Label: "shrunk counterexample", Result: sh.Result, Invariant: sh.Invariant,
			Command: sim.Command("replay", sh.Config, sh.Seed), Shrunk: true})
	}
	inv := ""
	if sh != nil {
		inv = sh.Invariant
	}
	runs = append(runs, timeline.Run{Label: "whole run", Result: res, Invariant: inv, Command: sim.Command("replay", cfg, res.Seed)})
	verdict := "no invariant violated"
	if res.Failed() {
		verdict = "original run: " + res.Violations[0].String()
	}
	page := timeline.Page{Lang: timeline.En, Title: fmt.Sprintf("durasim seed %d · %s", res.Seed, cfg.Variant), Subtitle: verdict, Runs: runs}
	var b bytes.Buffer
	if err := page.Write(&b); err != nil {
		return err
	}
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		return usageErr("writing -html: %v", err)
	}
	return nil
}

// traced runs seed again with its trace kept, as replay does.
func traced(cfg sim.Config, seed uint64) (*sim.Result, error) {
	cfg.KeepTrace, cfg.StopOnViolation = true, false
	res, err := sim.Run(cfg, seed)
	if err != nil {
		return nil, runErr(err)
	}
	return res, nil
}

// htmlPages writes the pages a sweep asked for: -html for its one seed,
// -html-dir one per failing seed; first is the sweep's shrunk first
// failure (nil when none).
func (s *sweepFlags) htmlPages(cfg sim.Config, seeds []uint64, sum *sim.Summary, first *sim.Shrunk, stderr io.Writer) error {
	if s.html == "" && s.htmlDir == "" {
		return nil
	}
	if len(sum.FailedSeeds) == 0 && s.html != "" {
		fmt.Fprintf(stderr, "durasim: seed %d violates no invariant: -html %s not written (replay -html draws any seed)\n", seeds[0], s.html)
	}
	for _, seed := range sum.FailedSeeds {
		name := s.html
		if name == "" {
			name = filepath.Join(s.htmlDir, "seed-"+strconv.FormatUint(seed, 10)+".html")
		}
		if err := pageOf(name, cfg, seed, first); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "durasim: wrote %s\n", name)
	}
	return nil
}

// pageOf replays a failing seed with its trace, shrinks it (unless it is
// the seed already shrunk) and writes its page.
func pageOf(name string, cfg sim.Config, seed uint64, first *sim.Shrunk) error {
	res, err := traced(cfg, seed)
	if err != nil {
		return err
	}
	sh := first
	if sh == nil || sh.Seed != seed {
		sh = nil
		if res.Failed() {
			if sh, err = sim.Shrink(cfg, seed, res, htmlShrinkBudget); err != nil {
				return err
			}
		}
	}
	return writeTimeline(name, cfg, res, sh)
}

// checkHTML validates -html and -html-dir before a sweep of n seeds runs.
func (s *sweepFlags) checkHTML(n int) error {
	switch {
	case s.html != "" && s.htmlDir != "":
		return usageErr("give -html or -html-dir, not both")
	case s.html != "" && n != 1:
		return usageErr("-html draws one seed (give -seed N); for a sweep, -html-dir DIR writes one page per failing seed")
	}
	if err := checkHTMLFile(s.html); err != nil {
		return err
	}
	return makeHTMLDir(s.htmlDir)
}

// replayPage writes the page of a replayed run: a failing one is shrunk
// first, so its counterexample is the first tab.
func replayPage(name string, cfg sim.Config, res *sim.Result, stderr io.Writer) error {
	var sh *sim.Shrunk
	if res.Failed() {
		var err error
		if sh, err = sim.Shrink(cfg, res.Seed, res, 0); err != nil {
			return err
		}
	}
	if err := writeTimeline(name, cfg, res, sh); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "durasim: wrote %s\n", name)
	return nil
}
