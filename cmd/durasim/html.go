package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/timeline"
)

// htmlShrinkBudget bounds the simulations spent shrinking each failing
// seed of a sweep for its page (the first failing seed, which the sweep
// prints, gets the full budget).
const htmlShrinkBudget = 600

// checkHTMLFile refuses an -html path that cannot be written, before the
// run starts.
func checkHTMLFile(name string) error {
	if name == "" {
		return nil
	}
	if err := checkWritableFile(name); err != nil {
		return usageErr("invalid -html %q: %v", name, err)
	}
	return nil
}

// checkWritableFile says why name cannot be written as a file: it is a
// directory, its directory is missing or not one, or it (or its
// directory) may not be written. It leaves an existing file as it was and
// creates none.
func checkWritableFile(name string) error {
	if fi, err := os.Stat(name); err == nil {
		if fi.IsDir() {
			return errors.New("a directory, want a file name")
		}
		f, err := os.OpenFile(name, os.O_WRONLY, 0) // no O_TRUNC: a check, not a write
		if err != nil {
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(name)
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(name)
}

// checkWritableDir creates dir (and its parents) if missing and says why
// files cannot be written in it.
func checkWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".durasim-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// makeHTMLDir creates -html-dir (and its parents) before the sweep runs,
// and checks that pages can be written in it.
func makeHTMLDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := checkWritableDir(dir); err != nil {
		return usageErr("invalid -html-dir %q: %v", dir, err)
	}
	return nil
}

// writeTimeline writes the page of one seed: the shrunk counterexample
// first when there is one, then the whole run (res, kept with its trace);
// each tab's command is the one rp prints.
func writeTimeline(name string, cfg sim.Config, res *sim.Result, sh *sim.Shrunk, rp *sim.Reproducer) error {
	var runs []timeline.Run
	inv := ""
	if sh != nil {
		cmd, _ := rp.Line("replay", fmt.Sprintf("seed-%d-shrunk", sh.Seed), sh.Config, sh.Seed)
		runs = append(runs, timeline.Run{Label: "shrunk counterexample", Result: sh.Result, Invariant: sh.Invariant, Command: cmd, Shrunk: true})
		inv = sh.Invariant
	}
	cmd, _ := rp.Line("replay", fmt.Sprintf("seed-%d", res.Seed), cfg, res.Seed)
	runs = append(runs, timeline.Run{Label: "whole run", Result: res, Invariant: inv, Command: cmd})
	verdict := "no invariant violated"
	if res.Failed() {
		verdict = "original run: " + res.Violations[0].String()
	}
	return writePage(name, timeline.Page{Lang: timeline.En, Title: fmt.Sprintf("durasim seed %d · %s", res.Seed, cfg.Variant), Subtitle: verdict, Runs: runs})
}

// writePage renders a timeline page and writes it to the file name.
func writePage(name string, page timeline.Page) error {
	var b bytes.Buffer
	if err := page.Write(&b); err != nil {
		return err
	}
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the page: %v", err)
	}
	return nil
}

// traced runs seed again with its trace kept, as replay does.
func traced(cfg sim.Config, seed uint64, rp *sim.Reproducer) (*sim.Result, error) {
	cfg.KeepTrace, cfg.StopOnViolation = true, false
	res, err := sim.Run(cfg, seed)
	if err != nil {
		return nil, runErrAt(err, rp)
	}
	return res, nil
}

// htmlPages writes the pages a sweep asked for: -html for its one seed,
// -html-dir one per failing seed with its repro file beside it
// (seed-N.repro); first is the sweep's shrunk first failure (nil when
// none). Pages are built on every core and announced in seed order.
func (s *sweepFlags) htmlPages(cfg sim.Config, seeds []uint64, sum *sim.Summary, first *sim.Shrunk, rp *sim.Reproducer, stderr io.Writer) error {
	if s.html == "" && s.htmlDir == "" {
		return nil
	}
	if len(sum.FailedSeeds) == 0 && s.html != "" {
		fmt.Fprintf(stderr, "durasim: seed %d violates no invariant: -html %s not written (replay -html draws any seed)\n", seeds[0], s.html)
	}
	names := make([]string, len(sum.FailedSeeds))
	errs := make([]error, len(sum.FailedSeeds))
	next := make(chan int)
	var wg sync.WaitGroup
	shared := *rp
	shared.Save = nil // read by every page at once: it writes nothing
	rp = &shared
	workers := runtime.GOMAXPROCS(0)
	if cfg.Backend != nil {
		workers = 1 // one store: its seeds run one at a time
	}
	for range min(workers, len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				names[i], errs[i] = s.page(cfg, sum.FailedSeeds[i], first, rp)
			}
		}()
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, name := range names {
		if errs[i] != nil {
			return errs[i]
		}
		fmt.Fprintf(stderr, "durasim: wrote %s\n", name)
	}
	return nil
}

// page writes the page of one failing seed (and, in -html-dir, its repro
// file) and returns what it wrote.
func (s *sweepFlags) page(cfg sim.Config, seed uint64, first *sim.Shrunk, rp *sim.Reproducer) (string, error) {
	name := s.html
	if name == "" {
		base := filepath.Join(s.htmlDir, "seed-"+strconv.FormatUint(seed, 10))
		if err := writeReproFile(base+".repro", cfg, seed); err != nil && !errors.Is(err, sim.ErrOwnBackend) {
			return "", fmt.Errorf("writing %s.repro: %v", base, err)
		}
		name = base + ".html"
	}
	if err := pageOf(name, cfg, seed, first, rp); err != nil {
		return "", fmt.Errorf("%s: %v", name, err)
	}
	return name, nil
}

// pageOf replays a failing seed with its trace, shrinks it (unless it is
// the seed already shrunk) and writes its page. The Reproducer is shared
// by the pages built at once; it is only read here (its configurations
// have flags or a base file).
func pageOf(name string, cfg sim.Config, seed uint64, first *sim.Shrunk, rp *sim.Reproducer) error {
	res, err := traced(cfg, seed, rp)
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
	return writeTimeline(name, cfg, res, sh, rp)
}

// checkHTML validates -html and -html-dir before a sweep of n seeds runs.
func (s *sweepFlags) checkHTML(n int) error { return checkHTMLFlags(s.html, s.htmlDir, n) }

// checkHTMLFlags validates -html and -html-dir (model or target) before
// a sweep of n seeds runs.
func checkHTMLFlags(html, htmlDir string, n int) error {
	switch {
	case html != "" && htmlDir != "":
		return usageErr("give -html or -html-dir, not both")
	case html != "" && n != 1:
		return usageErr("-html draws one seed (give -seed N); for a sweep, -html-dir DIR writes one page per failing seed")
	}
	if err := checkHTMLFile(html); err != nil {
		return err
	}
	return makeHTMLDir(htmlDir)
}

// replayPage writes the page of a replayed run: a failing one is shrunk
// first, so its counterexample is the first tab.
func replayPage(name string, cfg sim.Config, res *sim.Result, rp *sim.Reproducer, stderr io.Writer) error {
	var sh *sim.Shrunk
	if res.Failed() {
		var err error
		if sh, err = sim.Shrink(cfg, res.Seed, res, 0); err != nil {
			return err
		}
	}
	if err := writeTimeline(name, cfg, res, sh, rp); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	fmt.Fprintf(stderr, "durasim: wrote %s\n", name)
	return nil
}
