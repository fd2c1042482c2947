package targetsim

import (
	"context"
	"slices"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
)

// Shrunk is a failing run reduced: the smallest configuration found that
// still fails the same check, and its run.
type Shrunk struct {
	Config Config
	Result *Result
	Runs   int // runs the shrinker made
}

// Shrink reduces a failing run of seed: the swarm's faults become the
// realized plan, then faults are dropped one at a time, then documents
// (Only), then workers, each change kept while the run still fails the
// check it failed first (or check inv, when not ""). The seed stays: only
// what it runs shrinks.
func Shrink(ctx context.Context, q target.Queue, cfg Config, seed uint64, failed *Result, inv string) (*Shrunk, error) {
	want := inv
	if want == "" {
		want = failed.Violations[0].Invariant
	}
	s := &Shrunk{Config: cfg, Result: failed}
	try := func(c Config) (bool, error) {
		s.Runs++
		res, err := Run(ctx, q, c, seed)
		if err != nil {
			return false, err
		}
		if !failsWith(res, want) {
			return false, nil
		}
		s.Config, s.Result = c, res
		return true, nil
	}
	if cfg.Swarm {
		c := cfg
		c.Swarm, c.Plan = false, failed.Realized
		if ok, err := try(c); err != nil || !ok {
			return s, err // the realized plan alone does not fail: keep the swarm run
		}
	}
	if err := s.smallSubsets(try); err != nil {
		return s, err
	}
	// Faults, then documents, then workers, again while a round changes
	// something: with fewer documents or workers a fault the first round
	// needed for its timing may go.
	for round := 0; round < maxShrinkRounds; round++ {
		kept := s.Config
		for i := len(s.Config.Plan.Faults) - 1; i >= 0; i-- {
			c := s.Config
			c.Plan = c.Plan.Without(i)
			if _, err := try(c); err != nil {
				return s, err
			}
		}
		if err := s.shrinkDocs(try); err != nil {
			return s, err
		}
		for s.Config.Workers > 1 {
			c := s.Config
			c.Workers--
			if !c.fitsWorkers() {
				break
			}
			ok, err := try(c)
			if err != nil {
				return s, err
			}
			if !ok {
				break
			}
		}
		if sameShape(kept, s.Config) {
			break
		}
	}
	return s, nil
}

// smallSubsets tries the plan's faults alone, then in pairs (and, for a
// plan of at most maxTripleFaults, in threes), keeping the first subset
// that still fails: one fault removed at a time can keep a fault that only
// changes the timing the failure happened to need, where the failure has
// a smaller cause of its own.
func (s *Shrunk) smallSubsets(try func(Config) (bool, error)) error {
	p := s.Config.Plan
	if p.Len() <= 2 || p.Len() > 12 {
		return nil
	}
	maxSize := 2
	if p.Len() > 3 && p.Len() <= maxTripleFaults {
		maxSize = 3
	}
	base := s.Config
	for size := 1; size <= maxSize; size++ {
		_, ok, err := faults.FirstFailingSubset(p, size, nil, func(sub faults.Plan) (bool, error) {
			c := base
			c.Plan = sub
			return try(c)
		})
		if err != nil || ok {
			return err
		}
	}
	return nil
}

// Bounds of the shrinker's work: rounds of the fault, document and worker
// passes, and the largest plan whose triples are tried (8 faults: 56).
const (
	maxShrinkRounds = 4
	maxTripleFaults = 8
)

// sameShape reports whether two configurations run the same faults,
// documents and workers.
func sameShape(a, b Config) bool {
	return a.Workers == b.Workers && slices.Equal(a.Only, b.Only) && slices.Equal(a.Plan.Faults, b.Plan.Faults)
}

// shrinkDocs leaves out documents one at a time (those the plan names
// stay), keeping each removal the failure survives.
func (s *Shrunk) shrinkDocs(try func(Config) (bool, error)) error {
	only := s.Config.Only
	if only == nil {
		for d := 1; d <= s.Config.Docs; d++ {
			only = append(only, d)
		}
	}
	// First the documents the plan names and nothing else, then one
	// removal at a time.
	var named []int
	for _, d := range only {
		if namesDoc(s.Config.Plan, d) {
			named = append(named, d)
		}
	}
	if len(named) > 0 && len(named) < len(only) {
		c := s.Config
		c.Only = named
		ok, err := try(c)
		if err != nil {
			return err
		}
		if ok {
			only = named
		}
	}
	for i := len(only) - 1; i >= 0 && len(only) > 1; i-- {
		if namesDoc(s.Config.Plan, only[i]) {
			continue
		}
		c := s.Config
		c.Only = slices.Delete(slices.Clone(only), i, i+1)
		ok, err := try(c)
		if err != nil {
			return err
		}
		if ok {
			only = c.Only
		}
	}
	return nil
}

// namesDoc reports whether a fault of the plan names document d.
func namesDoc(p faults.Plan, d int) bool {
	return slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return int(f.Doc) == d })
}

// fitsWorkers: no fault names a worker past Workers.
func (c Config) fitsWorkers() bool {
	return !slices.ContainsFunc(c.Plan.Faults, func(f faults.Fault) bool { return f.Worker >= int32(c.Workers) })
}

// First is the result's first violation of check inv.
func (r *Result) First(inv string) invariants.Violation {
	for _, v := range r.Violations {
		if v.Invariant == inv {
			return v
		}
	}
	return invariants.Violation{}
}

func failsWith(res *Result, inv string) bool {
	return slices.ContainsFunc(res.Violations, func(v invariants.Violation) bool { return v.Invariant == inv })
}
