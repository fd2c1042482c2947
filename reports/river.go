package reports

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// The River report: River (github.com/riverqueue/river) as durasim's
// target, under crashes and zombies. Unlike a scenario it is not one
// configuration side by side but a sweep per handler design, as
// `durasim mutants -target river` runs it: a correct design on seeds 1
// to riverSeeds, a naive one from seed 1 to its first failing seed, each
// failure shrunk to its counterexample; then the documented
// JobCompleteTx pattern's counterexample replayed with its trace, and
// its shrunk plan run again under the designs that fix it. Every number
// and sentence of the report comes from these runs (river_text.go,
// river_pattern.go, river_chart.go); river_test.go holds them to the
// tables and trace lines they stand beside.

// RiverName is the River report's name: <lang>/river-target.md.
const RiverName = "river-target"

// riverSeeds is the seeds a correct design runs; riverNaiveSeeds bounds a
// naive design's sweep, which stops at its first failing seed (the bound
// of `durasim mutants -target river`).
const (
	riverSeeds      = 20
	riverNaiveSeeds = 200
)

// riverVersion is the River release go.mod pins, for River and its
// riversqlite driver; a test holds it there. (rivertarget.Version reads
// the binary's build information, which this package's test binary does
// not carry: a report must print the same from `make report` and from its
// golden test.)
const riverVersion = "v0.51.2"

// River is the River report's runs, ready to render in any language.
type River struct {
	Version string             // River's release (riverVersion)
	Queue   rivertarget.Config // River's settings (RescueStuckJobsAfter, JobTimeout, …)
	Base    targetsim.Config   // every sweep's configuration but its design
	Seeds   int                // the seeds a correct design runs, from 1
	Naive   int                // the most seeds a naive design runs, from 1
	Designs []DesignSweep      // in targetsim.Designs order
	// Documented is the documented pattern's (tx-as-documented) shrunk
	// counterexample replayed with its trace; Pattern is what it shows,
	// or PatternErr why it does not show it.
	Documented *targetsim.Result
	Pattern    *Pattern
	PatternErr string
	// Contrast is that counterexample's configuration under the designs
	// of contrastDesigns, the first the documented pattern itself.
	Contrast []ContrastRun
}

// DesignSweep is one design's sweep: seeds 1 to Ran, its account, and
// the first run that fails a check of the handler's effects, shrunk. As
// `durasim mutants -target river` does, only those checks
// (invariants.TargetHandlerCheck) decide a design's verdict; a violation
// of River's own guarantees is River's finding, whatever the handler, and
// is counted apart (Queue).
type DesignSweep struct {
	Design  targetsim.Design
	Ran     int
	Summary *targetsim.Summary
	Caught  *targetsim.Result // the first run failing a handler check (nil: none did)
	Check   string            // the handler check Caught failed first
	Shrunk  *targetsim.Shrunk // Caught shrunk toward Check (nil with it)
	Handler int               // runs that failed a handler check
	// Queue is, per check of River's own guarantees, the seeds that
	// violated it.
	Queue map[string][]uint64
}

// ContrastRun is the documented pattern's shrunk configuration run under
// another design, with its trace.
type ContrastRun struct {
	Config targetsim.Config
	Result *targetsim.Result
}

// contrastDesigns are the designs the counterexample's plan is run under:
// the documented pattern and the three that hold.
var contrastDesigns = []targetsim.Design{targetsim.TxAsDocumented, targetsim.TxChecked, targetsim.IdempotentKey, targetsim.Outbox}

// BuildRiver runs the River report's sweeps, one design per core, each on
// its own in-memory SQLite database (River's riversqlite driver), with
// River's settings of rivertarget.DefaultConfig.
func BuildRiver(ctx context.Context) (*River, error) {
	rv := &River{Version: riverVersion, Queue: rivertarget.DefaultConfig(), Base: targetsim.DefaultConfig(), Seeds: riverSeeds,
		Naive: riverNaiveSeeds}
	designs := targetsim.Designs()
	rv.Designs = make([]DesignSweep, len(designs))
	errs := make([]error, len(designs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(designs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = rv.sweepDesign(ctx, i, designs[i])
			}
		}()
	}
	// The documented pattern first: its sweep is the longest.
	next <- int(targetsim.TxAsDocumented)
	for _, d := range designs {
		if d != targetsim.TxAsDocumented {
			next <- int(d)
		}
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("river report, design %s: %w", designs[i], err)
		}
	}
	return rv, nil
}

// sweepDesign runs design d's sweep into rv.Designs[i], on a queue of its
// own; the documented pattern's also replays and contrasts its
// counterexample there.
func (rv *River) sweepDesign(ctx context.Context, i int, d targetsim.Design) error {
	q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", rv.Queue)
	if err != nil {
		return err
	}
	defer func() { _ = q.Close() }()
	cfg := rv.Base
	cfg.Design = d
	sw, err := sweepQueue(ctx, q, cfg, rv.seedsOf(d), !d.Correct())
	if err != nil {
		return err
	}
	rv.Designs[i] = sw
	if d == targetsim.TxAsDocumented && sw.Shrunk != nil {
		return rv.contrast(ctx, q, sw.Shrunk)
	}
	return nil
}

// sweepQueue runs cfg on q from seed 1 to seeds, stopping at the first
// run that fails a handler check when stop is set (a naive design's
// sweep), and shrinks that run toward its check. The River report and
// the side-by-side report sweep every queue with it.
func sweepQueue(ctx context.Context, q target.Queue, cfg targetsim.Config, seeds int, stop bool) (DesignSweep, error) {
	sw := DesignSweep{Design: cfg.Design, Summary: targetsim.NewSummary(), Queue: map[string][]uint64{}}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		res, err := targetsim.Run(ctx, q, cfg, seed)
		if err != nil {
			return sw, err
		}
		sw.Ran++
		sw.Summary.Add(res)
		for _, v := range res.Violations {
			if s := sw.Queue[v.Invariant]; !invariants.TargetHandlerCheck(v.Invariant) && !slices.Contains(s, seed) {
				sw.Queue[v.Invariant] = append(s, seed)
			}
		}
		if !res.HandlerFailed() {
			continue
		}
		sw.Handler++
		if sw.Caught == nil {
			sw.Caught, sw.Check = res, res.FirstHandler()
		}
		if stop {
			break // a naive design stops at its first catch
		}
	}
	if sw.Caught != nil {
		var err error
		if sw.Shrunk, err = targetsim.Shrink(ctx, q, cfg, sw.Caught.Seed, sw.Caught, sw.Check); err != nil {
			return sw, err
		}
	}
	return sw, nil
}

// seedsOf is the most seeds design d runs.
func (rv *River) seedsOf(d targetsim.Design) int {
	if d.Correct() {
		return rv.Seeds
	}
	return rv.Naive
}

// contrast replays the documented pattern's counterexample with its trace,
// reads the pattern from it, and runs its configuration under the other
// contrast designs.
func (rv *River) contrast(ctx context.Context, q target.Queue, sh *targetsim.Shrunk) error {
	for _, d := range contrastDesigns {
		cfg := sh.Config
		cfg.Design, cfg.KeepTrace = d, true
		res, err := targetsim.Run(ctx, q, cfg, sh.Result.Seed)
		if err != nil {
			return err
		}
		rv.Contrast = append(rv.Contrast, ContrastRun{Config: cfg, Result: res})
	}
	rv.Documented = rv.Contrast[0].Result
	p, err := readPattern(rv.Documented)
	if err != nil {
		rv.PatternErr = err.Error()
		return nil
	}
	rv.Pattern = p
	return nil
}

// docEffects counts the durable effects per document in a run kept with
// its trace: an effect applied outside a transaction, or inside one that
// committed. Documents are tenant:document, in order of first insert.
func docEffects(res *targetsim.Result) (docs []string, effects map[string]int) {
	effects = map[string]int{}
	docOf := map[target.JobID]string{}
	committed := map[int]bool{}
	for _, o := range res.Ops {
		switch o.Kind {
		case target.OpInsert:
			d := o.Args.Tenant + ":" + o.Args.Doc
			if _, seen := effects[d]; !seen {
				docs = append(docs, d)
				effects[d] = 0
			}
			docOf[o.Job] = d
		case target.OpCommit:
			committed[o.Tx] = true
		}
	}
	for _, o := range res.Ops {
		if o.Kind == target.OpEffect && o.Applied && (o.Tx == 0 || committed[o.Tx]) {
			effects[docOf[o.Job]]++
		}
	}
	return docs, effects
}

// checks lists the report's checks: every correct design passes its
// seeds, every naive one is caught, the documented pattern shows in its
// counterexample, and the designs that fix it pass its plan.
func (rv *River) checks(l Lang) []reportCheck {
	var out []reportCheck
	for _, sw := range rv.Designs {
		d := sw.Design
		if d.Correct() {
			c := reportCheck{says: fmt.Sprintf(l.t("%s passa nas sementes 1 a %d", "%s passes seeds 1 to %d"), code(d.String()), rv.Seeds), ok: sw.Caught == nil}
			if !c.ok {
				c.got = fmt.Sprintf(l.t("falha na semente %d: %s", "fails seed %d: %s"), sw.Caught.Seed, sw.Check)
			}
			out = append(out, c)
			continue
		}
		c := reportCheck{says: fmt.Sprintf(l.t("%s é pega numa semente de 1 a %d", "%s is caught on a seed from 1 to %d"), code(d.String()), rv.Naive), ok: sw.Caught != nil}
		if !c.ok {
			c.got = l.t("nenhuma semente falhou", "no seed failed")
		}
		out = append(out, c)
	}
	pat := reportCheck{says: l.t("o contraexemplo reduzido de `tx-as-documented` mostra o relatório de falha de uma tentativa superada aplicado à tentativa seguinte, cujo JobCompleteTx devolve o job sem erro e não concluído",
		"`tx-as-documented`'s shrunk counterexample shows a superseded attempt's failure report applied to the next attempt, whose JobCompleteTx returns the job without an error and not completed"), ok: rv.Pattern != nil}
	switch {
	case rv.Documented == nil:
		pat.got = l.t("tx-as-documented não foi pega", "tx-as-documented was not caught")
	case rv.Pattern == nil:
		pat.got = rv.PatternErr
	}
	out = append(out, pat)
	fix := reportCheck{says: l.t("no mesmo plano, as três arquiteturas corretas passam, e `tx-checked` desfaz ao menos uma conclusão que não é a sua",
		"on the same plan the three correct designs pass, and `tx-checked` rolls back at least one completion that is not its own"), ok: len(rv.Contrast) == len(contrastDesigns)}
	for _, c := range rv.Contrast[min(1, len(rv.Contrast)):] {
		if inv := c.Result.FirstHandler(); inv != "" {
			fix.ok, fix.got = false, c.Config.Design.String()+": "+c.Result.First(inv).String()
		}
		if c.Config.Design == targetsim.TxChecked && c.Result.Counts.StaleCompletions == 0 && fix.ok {
			fix.ok, fix.got = false, l.t("tx-checked não desfez nenhuma conclusão", "tx-checked rolled back no completion")
		}
	}
	if len(rv.Contrast) == 0 {
		fix.got = l.t("não rodou: tx-as-documented não foi pega", "did not run: tx-as-documented was not caught")
	}
	return append(out, fix)
}

// Held counts the checks that held, and all of them.
func (rv *River) Held() (held, total int) { return heldOf(rv.checks(En)) }

// Passed reports whether every check held.
func (rv *River) Passed() bool {
	held, total := rv.Held()
	return held == total
}

// Name is the report's name.
func (rv *River) Name() string { return RiverName }

// Title is the report's title in language l.
func (rv *River) Title(l Lang) string {
	return l.t("River sob quedas e zumbis", "River under crashes and zombies")
}

func (rv *River) sources() string { return "–" }

func (rv *River) arms() string {
	names := make([]string, len(rv.Designs))
	for i, sw := range rv.Designs {
		names[i] = code(sw.Design.String())
	}
	return strings.Join(names, " vs ")
}

// correct and naive are the sweeps of the correct and of the naive
// designs.
func (rv *River) correct() []DesignSweep {
	return slices.DeleteFunc(slices.Clone(rv.Designs), func(s DesignSweep) bool { return !s.Design.Correct() })
}

func (rv *River) naive() []DesignSweep {
	return slices.DeleteFunc(slices.Clone(rv.Designs), func(s DesignSweep) bool { return s.Design.Correct() })
}
