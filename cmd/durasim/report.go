package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/durasim/durasim/reports"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

// cmdReport is `durasim report [-out DIR] [-lang pt-BR|en] [-scenario NAME]`:
// it builds the scenarios and the River report (-scenario river-target
// alone) in parallel, renders them and writes the files. With every
// report it also writes the index. It fails (status 1) after writing if a
// report's checks do not all hold.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("durasim report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "reports/out", "directory to write the reports to")
	lang := fs.String("lang", "", "only this language (pt-BR or en; default both)")
	name := fs.String("scenario", "", "only this scenario, or "+reports.RiverName+" for the River report, or "+reports.SideName+" for River, goqite and asynq side by side (default all)")
	record := fs.String("record-asynq", "", "instead of the reports, run asynq's chaos runs the side-by-side report reads and write them to this file ("+reports.AsynqFile+"; needs $DURASIM_PG_URL and redis-server)")
	kills := fs.Int("asynq-kills", 12, "with -record-asynq: each design's run's -kills")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *record != "" {
		return recordAsynq(*record, *kills, args, stdout)
	}
	langs := reports.Langs()
	if *lang != "" {
		l, err := reports.ParseLang(*lang)
		if err != nil {
			return usageErr("%v", err)
		}
		langs = []reports.Lang{l}
	}
	list, withRiver, withSide := scenarios.All(), true, true
	switch *name {
	case "", "all":
	case reports.RiverName:
		list, withSide = nil, false
	case reports.SideName:
		list = nil // it reads the River report's sweeps, which are not written
	default:
		s, err := scenarios.Lookup(*name)
		if err != nil {
			return usageErr("%v (or %s, or %s)", err, reports.RiverName, reports.SideName)
		}
		list, withRiver, withSide = []scenarios.Scenario{s}, false, false
	}
	if err := checkWritableDir(*out); err != nil {
		return usageErr("invalid -out %q: %v", *out, err) // before minutes of building
	}
	start := time.Now()
	built, river, err := buildAll(list, withRiver)
	if err != nil {
		return err
	}
	var side *reports.Side
	if withSide && river != nil {
		if side, err = reports.BuildSide(context.Background(), river); err != nil {
			return err
		}
	}
	if *name == reports.SideName {
		river = nil // built for the side-by-side report only
	}
	all := reports.Reports(built, river, side)
	files, err := reports.Render(all, langs, len(list) == len(scenarios.All()) && river != nil && side != nil)
	if err != nil {
		return err
	}
	if err := reports.Write(*out, files); err != nil {
		return err
	}
	failed := 0
	for _, r := range all {
		held, total := r.Held()
		mark := "✓"
		if held != total {
			mark, failed = "✗", failed+1
		}
		fmt.Fprintf(stdout, "%s %-22s %d/%d checks\n", mark, r.Name(), held, total)
	}
	fmt.Fprintf(stdout, "wrote %s (%s, %s) to %s in %.1fs\n", sim.Counted(len(files), "file"),
		sim.Counted(len(all), "report"), sim.Counted(len(langs), "language"), *out, time.Since(start).Seconds())
	if failed > 0 {
		fmt.Fprintf(stdout, "%s do not hold: see their reports\n", sim.Counted(failed, "report"))
		return errViolation
	}
	return nil
}

// buildRiver builds the River report. TestReportTwice under -short (the
// race detector's run, make race) sets it to nil, and report then writes
// the scenarios without it and without the index: River's runs on its
// pure-Go SQLite take about ten minutes under the race detector.
var buildRiver = reports.BuildRiver

// buildAll builds the scenarios on every core, and beside them the River
// report (which spreads its designs over the cores itself); the result
// keeps the scenarios' order, so the output does not depend on the
// schedule.
func buildAll(list []scenarios.Scenario, withRiver bool) ([]*reports.Built, *reports.River, error) {
	var river *reports.River
	riverErr := make(chan error, 1)
	if withRiver && buildRiver != nil {
		go func() {
			var err error
			river, err = buildRiver(context.Background())
			riverErr <- err
		}()
	} else {
		riverErr <- nil
	}
	built := make([]*reports.Built, len(list))
	errs := make([]error, len(list))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				built[i], errs[i] = reports.Build(list[i])
			}
		}()
	}
	for i := range list {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := <-riverErr; err != nil {
		return nil, nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return built, river, nil
}

// hasScenarioFlag reports whether a `run` command line names a scenario.
func hasScenarioFlag(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "scenario" {
			return true
		}
	}
	return false
}

// runScenario is `durasim run -scenario NAME` (or `-scenario all`): it runs
// every arm of the scenario, prints each arm's outcome and each check, and
// fails (status 1) unless every check of every arm holds.
func runScenario(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("durasim run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("scenario", "", "course scenario to run (or all)")
	if err := fs.Parse(args); err != nil {
		return usageErr("%v (with -scenario, run takes no other flag)", err)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	list, err := selectScenarios(*name)
	if err != nil {
		return err
	}
	failed := 0
	for i, s := range list {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		ok, err := runOne(s, stdout)
		if err != nil {
			return err
		}
		if !ok {
			failed++
		}
	}
	if len(list) > 1 {
		fmt.Fprintf(stdout, "\n%d of %d scenarios hold\n", len(list)-failed, len(list))
	}
	if failed > 0 {
		return errViolation
	}
	return nil
}

// selectScenarios returns the named scenario, or every one for "all".
func selectScenarios(name string) ([]scenarios.Scenario, error) {
	if name == "all" {
		return scenarios.All(), nil
	}
	s, err := scenarios.Lookup(name)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return []scenarios.Scenario{s}, nil
}

// runOne runs one scenario and prints its outcome; ok is whether every
// check held.
func runOne(s scenarios.Scenario, w io.Writer) (ok bool, err error) {
	outs, err := s.Run()
	if err != nil {
		return false, usageErr("%v", err)
	}
	fmt.Fprintf(w, "scenario %s: %s\n", s.Name, s.Title.En)
	held, total := 0, 0
	for i := range outs {
		o := &outs[i]
		fmt.Fprintf(w, "  %s: %s\n", o.Arm.Name(), summary(o))
		if o.Missing != "" {
			total++
			fmt.Fprintf(w, "    ✗ variant %q is not registered: the arm did not run\n", o.Missing)
		}
		for _, c := range o.Checks {
			total++
			if c.Err == nil {
				held++
				fmt.Fprintf(w, "    ✓ %s\n", c.Check.Says.En)
			} else {
				fmt.Fprintf(w, "    ✗ %s: %v\n", c.Check.Says.En, c.Err)
			}
		}
	}
	verdict := "PASS"
	if held != total {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s %s: %d of %d checks hold\n", verdict, s.Name, held, total)
	return held == total, nil
}

// summary is an arm's outcome in one line.
func summary(o *scenarios.Outcome) string {
	switch {
	case o.Missing != "":
		return "not run"
	case o.Custom != nil:
		return o.Custom.Verdict.En
	}
	r, m := o.Result, &o.Result.Metrics
	s := fmt.Sprintf("%d events, %d succeeded, %d dead, %d cancelled, %d extractions, %d effects",
		r.Events, m.Succeeded, m.Dead, m.Cancelled, m.Extractions, m.Effects)
	if !r.Failed() {
		return s + ", no violation"
	}
	var names []string
	for _, v := range r.Violations {
		if !slices.Contains(names, v.Invariant) {
			names = append(names, v.Invariant)
		}
	}
	return s + ", violates " + strings.Join(names, ", ")
}
