package sim

import (
	"fmt"
	"slices"

	"github.com/durasim/durasim/faults"
)

// Shrunk is a failing run reduced to a minimal plan and workload.
type Shrunk struct {
	Seed      uint64
	Config    Config  // swarm off, minimal plan, fewest docs/workers/tenants that still fail
	Result    *Result // the shrunk run, with its trace
	Invariant string  // the invariant the original and the shrunk run both break
	Runs      int     // simulations the shrinker ran
}

// Shrink reduces a failing run of (cfg, seed) to a minimal counterexample
// that breaks the same invariant. The realized fault plan replaces the
// swarm; then, since most bugs need at most one fault, the empty plan and
// each single fault alone (moved to its earliest failing occurrence) are
// tried before delta debugging the whole plan; then documents, workers and
// tenants are cut and the passes repeat until nothing shrinks.
// budget bounds the number of simulations (0: 2000); the shrinker also
// stops after simulating eventBudget events in all, so shrinking a huge run
// stays bounded — in work, not wall time, so its result is deterministic.
func Shrink(cfg Config, seed uint64, failing *Result, budget int) (*Shrunk, error) {
	if !failing.Failed() {
		return nil, fmt.Errorf("seed %d did not fail: nothing to shrink", seed)
	}
	if budget <= 0 {
		budget = 2000
	}
	s := &shrinker{seed: seed, target: failing.Violations[0].Invariant, budget: budget}
	c := failing.Config // with the options the swarm drew, which the replay keeps
	c.Swarm, c.Plan, c.KeepTrace = false, failing.Realized, false
	if s.fails(c) {
		c = s.fewestFaults(c)
	} else {
		c = cfg // the realized plan should always reproduce; if not, keep the swarm
		c.KeepTrace = false
	}
	for round := 0; round < 3; round++ {
		before := size(c)
		c = s.minimizeWorkload(c)
		if !c.Swarm {
			c = s.fewestFaults(c)
			c = s.minimizeNth(c)
			c = s.minimizeDocs(c)
			c = s.minimizePlan(c)
		}
		if size(c) == before {
			break
		}
	}
	c.KeepTrace, c.StopOnViolation = true, false
	res, err := Run(c, seed)
	if err != nil {
		return nil, err
	}
	return &Shrunk{Seed: seed, Config: c, Result: res, Invariant: s.target, Runs: s.runs}, nil
}

// size orders counterexamples: fewer faults, then jobs, workers, tenants.
func size(c Config) [4]int {
	return [4]int{c.Plan.Len(), int(c.DocCount()), int(c.Workers), int(c.Tenants)}
}

// fewestFaults tries no fault at all, then each fault alone at each of its
// first occurrences (alone, a fault's nth counts different crossings than
// beside others), and falls back to delta debugging the whole plan.
func (s *shrinker) fewestFaults(c Config) Config {
	if c.Plan.Len() <= 1 {
		return c
	}
	try := c
	try.Plan = faults.Plan{}
	if s.fails(try) {
		return try
	}
	alone := func(f faults.Fault) []faults.Fault { return occurrences(f, max(f.Nth, 3)) }
	if p, ok := s.firstFailingSubset(c, 1, alone); ok {
		try.Plan = p
		return try
	}
	// Then each pair, each fault at its first occurrence or its own: many
	// bugs need a fault that sets the stage (a document that fails) and
	// one that strikes (a pause), and alone a fault's nth counts other
	// crossings than beside the faults it leaves out.
	if c.Plan.Len() <= maxPairPlan {
		first := func(f faults.Fault) []faults.Fault { return occurrences(f, 1) }
		if p, ok := s.firstFailingSubset(c, 2, first); ok {
			try.Plan = p
			return try
		}
	}
	return s.minimizePlan(c)
}

// maxPairPlan is the largest plan whose pairs the shrinker tries (45
// pairs, at most four runs each).
const maxPairPlan = 10

// occurrences is f at its first upto occurrences and at its own (a fault
// not counted by occurrence: f alone).
func occurrences(f faults.Fault, upto int32) []faults.Fault {
	if f.Nth <= 0 {
		return []faults.Fault{f}
	}
	var out []faults.Fault
	for n := int32(1); n <= max(upto, 1); n++ {
		g := f
		g.Nth = n
		out = append(out, g)
	}
	if f.Nth > upto {
		out = append(out, f)
	}
	return out
}

type shrinker struct {
	seed   uint64
	target string
	budget int
	runs   int
	events uint64
}

// eventBudget caps the events a shrink may simulate.
const eventBudget = 100_000_000

// fails runs c and reports whether it breaks the target invariant.
func (s *shrinker) fails(c Config) bool {
	if s.runs >= s.budget || s.events >= eventBudget {
		return false
	}
	s.runs++
	c.StopOnViolation = true
	res, err := Run(c, s.seed)
	if err != nil {
		return false
	}
	s.events += res.Events
	for _, v := range res.Violations {
		if v.Invariant == s.target {
			return true
		}
	}
	return false
}

// minimizePlan is delta debugging over the plan's faults (faults.Minimize).
func (s *shrinker) minimizePlan(c Config) Config {
	c.Plan, _ = faults.Minimize(c.Plan, s.planFails(c))
	return c
}

// firstFailingSubset is the first plan of k of c's faults, each in one of
// its variants, that still fails (faults.FirstFailingSubset).
func (s *shrinker) firstFailingSubset(c Config, k int, variants func(faults.Fault) []faults.Fault) (faults.Plan, bool) {
	p, ok, _ := faults.FirstFailingSubset(c.Plan, k, variants, s.planFails(c))
	return p, ok
}

// planFails runs c with another plan and reports whether it still breaks
// the target invariant (never an error: a run that errs does not fail).
func (s *shrinker) planFails(c Config) func(faults.Plan) (bool, error) {
	return func(p faults.Plan) (bool, error) {
		c.Plan = p
		return s.fails(c), nil
	}
}

// minimizeNth moves each fault to the earliest occurrence that still
// fails: "the 2nd commit" reads better than "the 11th", and an earlier fault
// lets fewer documents reproduce it.
func (s *shrinker) minimizeNth(c Config) Config {
	for i := range c.Plan.Faults {
		for n := int32(1); n < c.Plan.Faults[i].Nth; n++ {
			try := c
			try.Plan = faults.Plan{Faults: slices.Clone(c.Plan.Faults)}
			try.Plan.Faults[i].Nth = n
			if s.fails(try) {
				c = try
				break
			}
		}
	}
	return c
}

// minimizeWorkload tries the fewest documents, workers and tenants, in
// that order, dropping plan faults that name what was removed.
func (s *shrinker) minimizeWorkload(c Config) Config {
	c = s.smallest(c, c.Docs, func(c Config, n int32) Config { c.Docs, c.Only = n, nil; return c })
	c = s.minimizeDocs(c)
	c = s.smallest(c, c.Workers, func(c Config, n int32) Config { c.Workers = n; return c })
	c = s.smallest(c, c.Tenants, func(c Config, n int32) Config { c.Tenants = n; return c })
	return c
}

func (s *shrinker) smallest(c Config, current int32, set func(Config, int32) Config) Config {
	for n := int32(1); n < current; n++ {
		try := set(c, n)
		try.Plan = fitPlan(try.Plan, try)
		if s.fails(try) {
			return try
		}
	}
	return c
}

// minimizeDocs is delta debugging over the documents themselves: any
// document may go, each keeping its content and arrival time.
func (s *shrinker) minimizeDocs(c Config) Config {
	docs := c.Only
	if len(docs) == 0 {
		for i := int32(1); i <= c.Docs; i++ {
			docs = append(docs, i)
		}
	}
	for chunk := max(len(docs)/2, 1); chunk >= 1 && len(docs) > 1; chunk /= 2 {
		for start := 0; start < len(docs) && len(docs) > 1; {
			keep := append(append([]int32(nil), docs[:start]...), docs[min(start+chunk, len(docs)):]...)
			if len(keep) == 0 {
				break
			}
			try := withDocs(c, keep)
			if s.fails(try) {
				docs, c = keep, try
				continue
			}
			start += chunk
		}
		if chunk == 1 {
			break
		}
	}
	return c
}

// withDocs restricts c to the listed documents, generating no more than the
// last of them and dropping faults about the others.
func withDocs(c Config, docs []int32) Config {
	c.Docs = docs[len(docs)-1]
	c.Only = docs
	if int(c.Docs) == len(docs) {
		c.Only = nil // the first n documents: no list needed
	}
	c.Plan = fitPlan(c.Plan, c)
	return c
}

// fitPlan drops faults that name a document or worker the config lacks.
func fitPlan(p faults.Plan, c Config) faults.Plan {
	keep := make([]bool, p.Len())
	for i, f := range p.Faults {
		keep[i] = f.Worker < c.Workers && (f.Doc == 0 || f.Doc <= c.Docs && (len(c.Only) == 0 || slices.Contains(c.Only, f.Doc)))
	}
	return p.Subset(keep)
}
