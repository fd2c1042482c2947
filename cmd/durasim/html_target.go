package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
	"github.com/durasim/durasim/timeline"
)

// targetPages are a target command's -html and -html-dir: the model's
// timeline pages, drawn from a target run's ops.
type targetPages struct {
	html, htmlDir string
}

// addTargetPageFlags registers -html (replay, run) and -html-dir (run).
func addTargetPageFlags(fs *flag.FlagSet, verb string) *targetPages {
	p := &targetPages{}
	switch verb {
	case "replay":
		fs.StringVar(&p.html, "html", "", "also write the run as an interactive timeline to this HTML file (a failing run: its shrunk counterexample first)")
	case "run":
		fs.StringVar(&p.html, "html", "", "with one seed that fails: write its interactive timeline (the shrunk counterexample, then the whole run) to this HTML file")
		fs.StringVar(&p.htmlDir, "html-dir", "", "write the interactive timeline of every failing seed to DIR/seed-N.html (created if missing)")
	}
	return p
}

// check refuses, before a run of n seeds, the paths that cannot be
// written, as the model's commands do.
func (p *targetPages) check(n int) error {
	if p == nil {
		return nil
	}
	return checkHTMLFlags(p.html, p.htmlDir, n)
}

// replayed writes the page of a replayed run (kept with its trace).
func (p *targetPages) replayed(ctx context.Context, q target.Queue, cfg targetsim.Config, res *targetsim.Result, stderr io.Writer) error {
	if p == nil || p.html == "" {
		return nil
	}
	if err := targetPage(ctx, q, p.html, cfg, res); err != nil {
		return afterRun(fmt.Errorf("%s: %v", p.html, err), res.Failed(), stderr)
	}
	fmt.Fprintf(stderr, "durasim: wrote %s\n", p.html)
	return nil
}

// swept writes the pages a sweep asked for: -html for its one seed,
// -html-dir one per failing seed, in seed order (a queue runs one seed at
// a time).
func (p *targetPages) swept(ctx context.Context, q target.Queue, cfg targetsim.Config, seeds seedRange, failing []uint64, stderr io.Writer) error {
	if p == nil || p.html == "" && p.htmlDir == "" {
		return nil
	}
	if p.html != "" && len(failing) == 0 {
		fmt.Fprintf(stderr, "durasim: seed %d violates no check: -html %s not written (replay -html draws any seed)\n", seeds.lo, p.html)
	}
	for _, seed := range failing {
		name := p.html
		if name == "" {
			name = filepath.Join(p.htmlDir, "seed-"+strconv.FormatUint(seed, 10)+".html")
		}
		c := cfg
		c.KeepTrace = true
		res, err := targetsim.Run(ctx, q, c, seed)
		if err == nil {
			err = targetPage(ctx, q, name, c, res)
		}
		if err != nil {
			return afterRun(fmt.Errorf("%s: %v", name, err), true, stderr)
		}
		fmt.Fprintf(stderr, "durasim: wrote %s\n", name)
	}
	return nil
}

// targetPage writes the page of one target run: a failing run is shrunk
// first, and its counterexample is the first tab; each tab's command
// replays its own run.
func targetPage(ctx context.Context, q target.Queue, name string, cfg targetsim.Config, res *targetsim.Result) error {
	cfg.KeepTrace = true
	var runs []timeline.Run
	inv := ""
	if res.Failed() {
		sh, err := targetsim.Shrink(ctx, q, cfg, res.Seed, res, "")
		if err != nil {
			return err
		}
		inv = res.Violations[0].Invariant // the check Shrink keeps failing
		runs = append(runs, timeline.Run{Label: "shrunk counterexample", Target: sh.Result, Invariant: inv,
			Command: replayLine(q, sh.Config, res.Seed), Shrunk: true})
	}
	runs = append(runs, timeline.Run{Label: "whole run", Target: res, Invariant: inv, Command: replayLine(q, cfg, res.Seed)})
	verdict := "no check violated"
	if res.Failed() {
		verdict = "original run: " + res.Violations[0].String()
	}
	return writePage(name, timeline.Page{Lang: timeline.En, Title: fmt.Sprintf("durasim seed %d · %s · %s", res.Seed, res.Target, cfg.Design), Subtitle: verdict, Runs: runs})
}

// replayLine is the page's command that replays seed of cfg on q, built
// from the queue's own settings as the printed reproduce lines are (an
// error, which names the setting the CLI cannot carry, in its place).
func replayLine(q target.Queue, cfg targetsim.Config, seed uint64) string {
	line, err := targetReproducer().Line("replay", q, cfg, seed)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return line
}
