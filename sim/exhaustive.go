package sim

import (
	"fmt"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
)

// exhaustiveBase is the fault the small workload always carries, so that the
// dead-letter path (and its after_dlq_write boundary) is crossed too.
const exhaustiveBase = "poison doc=3"

// ExhaustiveConfig is the small workload exhaustive mode enumerates: two
// tenants, three documents, two workers, no swarm, and a poison document.
func ExhaustiveConfig(variant string) Config {
	c := DefaultConfig()
	c.Variant, c.Swarm = variant, false
	c.Tenants, c.Docs, c.Workers = 2, 3, 2
	c.Plan, _ = faults.Parse(exhaustiveBase)
	return c
}

// ExhaustiveReport is what an exhaustive enumeration found.
type ExhaustiveReport struct {
	Design    string
	Singles   int     // single-fault plans run
	Pairs     int     // two-fault plans run
	Crossings []int32 // per boundary, in the fault-free base run
	Faulted   []int   // per boundary: plans whose fault there took effect
	Exposing  []int   // per boundary: failing plans with a fault there
	// Per fault kind: single plans of that kind, plans in which a fault of
	// that kind took effect, and failing plans with one.
	Kinds, KindFaulted, KindExposing [faults.KindCount]int
	Failures                         int     // plans with a violation
	First                            *Result // the first failing run, if any
	FirstPlan                        faults.Plan
	Invariants                       map[string]int // failing plans per invariant
	BaseFails                        bool           // the base run (no fault beyond the base) already fails
}

// lastArrival is when the last document of cfg's workload arrives.
func lastArrival(cfg Config, seed uint64) model.Time {
	docs := Workload(cfg, seed)
	return docs[len(docs)-1].Arrival
}

// Plans is how many plans ran in all.
func (r *ExhaustiveReport) Plans() int { return r.Singles + r.Pairs }

// Coverage lists the design's boundaries and whether some plan's fault
// took effect there.
func (r *ExhaustiveReport) Coverage(d *model.Design) (covered, total int) {
	for _, b := range DesignBoundaries(d) {
		total++
		if r.Faulted[b] > 0 {
			covered++
		}
	}
	return covered, total
}

// Exhaustive runs every single-fault plan — a crash and a pause at each
// named boundary crossing of the fault-free run — and, with pairs, every
// two of them together, on cfg (normally ExhaustiveConfig) and seed.
func Exhaustive(cfg Config, seed uint64, pairs bool) (*ExhaustiveReport, error) {
	cfg.Swarm, cfg.StopOnViolation = false, true
	base, err := Run(cfg, seed)
	if err != nil {
		return nil, err
	}
	n := len(model.Boundaries()) + 1
	rep := &ExhaustiveReport{
		Design: cfg.Variant, Crossings: base.Crossings, Faulted: make([]int, n), Exposing: make([]int, n),
		Invariants: map[string]int{}, BaseFails: base.Failed(),
	}
	singles := faults.Exhaustive(faults.Counts{
		Crossings: base.Crossings, Publishes: base.Publishes, Commits: base.Commits,
		Docs: cfg.DocCount(), Horizon: lastArrival(cfg, seed), Lease: cfg.Model.Lease,
	})
	for _, p := range singles {
		rep.Kinds[p.Faults[0].Kind]++
	}
	for _, p := range singles {
		if err := rep.run(cfg, seed, p); err != nil {
			return nil, err
		}
		rep.Singles++
	}
	if !pairs {
		return rep, nil
	}
	for _, p := range faults.Pairs(singles) {
		if err := rep.run(cfg, seed, p); err != nil {
			return nil, err
		}
		rep.Pairs++
	}
	return rep, nil
}

// run runs one plan on top of the base plan and records what it found.
func (rep *ExhaustiveReport) run(cfg Config, seed uint64, p faults.Plan) error {
	c := cfg
	c.Plan = faults.Plan{Faults: append(append([]faults.Fault(nil), cfg.Plan.Faults...), p.Faults...)}
	res, err := Run(c, seed)
	if err != nil {
		return fmt.Errorf("exhaustive plan %q: %w", p.OneLine(), err)
	}
	for b, hits := range res.BoundaryHits {
		if hits > 0 && b < len(rep.Faulted) {
			rep.Faulted[b]++
			if res.Failed() {
				rep.Exposing[b]++
			}
		}
	}
	for k, n := range res.Injected {
		if n > cfg.Plan.CountKind(faults.Kind(k)) { // beyond the base plan's own
			rep.KindFaulted[k]++
			if res.Failed() {
				rep.KindExposing[k]++
			}
		}
	}
	if !res.Failed() {
		return nil
	}
	rep.Failures++
	if rep.First == nil {
		rep.First, rep.FirstPlan = res, c.Plan
	}
	seen := map[string]bool{}
	for _, v := range res.Violations {
		if !seen[v.Invariant] {
			seen[v.Invariant] = true
			rep.Invariants[v.Invariant]++
		}
	}
	return nil
}
