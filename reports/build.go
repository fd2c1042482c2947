package reports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

// Built is one scenario run and analysed, ready to render in any language.
type Built struct {
	Scenario scenarios.Scenario
	Outcomes []scenarios.Outcome
	// Counter holds, per arm, the minimal counterexample of the invariant
	// the arm is expected to break (nil for arms that break none).
	Counter []*Counterexample
	// Path is, when no arm breaks an invariant, the path of job j1 through
	// the last arm (the contrast), to show what the numbers are made of.
	Path  *JobPath
	Seeds Robustness
}

// JobPath is one job's events in one arm.
type JobPath struct {
	Arm    int
	Events []model.Event
}

// maxPath bounds the events a job path shows.
const maxPath = 60

// Counterexample is a naive arm's failing run shrunk to its essentials.
type Counterexample struct {
	Shrunk    *sim.Shrunk
	Violation invariants.Violation // the first violation of Shrunk.Invariant
	Events    []model.Event        // the critical path (sim.Timeline), in order
	Lines     []string             // their trace lines
}

// Robustness is how the scenario's checks fare over a range of seeds: a
// claim that held on one lucky seed only would not be worth a report.
type Robustness struct {
	From, To uint64
	Passed   int         // seeds on which every check of every arm held
	Failing  []FailCount // checks that failed on some seed, in first-failure order
}

// FailCount is a check and the number of seeds it failed on.
type FailCount struct {
	Arm   string
	Check scenarios.Text
	Seeds int
}

// robustSeeds is the range of seeds Build tries every scenario on.
const robustSeeds = 20

// ShrinkBudget bounds the simulations one counterexample may take.
const ShrinkBudget = 600

// Build runs scenario s, shrinks the failing naive arms and measures the
// checks over seeds 1..20.
func Build(s scenarios.Scenario) (*Built, error) {
	outs, err := s.Run()
	if err != nil {
		return nil, err
	}
	b := &Built{Scenario: s, Outcomes: outs, Counter: make([]*Counterexample, len(outs))}
	for i := range outs {
		if b.Counter[i], err = counterexample(&outs[i]); err != nil {
			return nil, fmt.Errorf("scenario %s, arm %s: %w", s.Name, outs[i].Arm.Name(), err)
		}
	}
	if s.Simulated() && b.noCounterexample() {
		b.Path = jobPath(outs, len(outs)-1, 1)
	}
	if s.Simulated() {
		if b.Seeds, err = robustness(s, 1, robustSeeds); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (b *Built) noCounterexample() bool {
	for _, c := range b.Counter {
		if c != nil {
			return false
		}
	}
	return true
}

// jobPath collects job id's events in arm i, with the breaker's changes.
func jobPath(outs []scenarios.Outcome, i int, id model.JobID) *JobPath {
	r := outs[i].Result
	if r == nil {
		return nil
	}
	p := &JobPath{Arm: i}
	for _, e := range r.History {
		if (e.Job == id && e.Kind != model.EvStatus && !(e.Kind == model.EvHeartbeat && e.OK)) || e.Kind == model.EvBreaker {
			p.Events = append(p.Events, e)
			if len(p.Events) == maxPath {
				break
			}
		}
	}
	return p
}

// counterexample shrinks an arm's run toward the invariant the arm is
// expected to break; nil when it breaks none.
func counterexample(o *scenarios.Outcome) (*Counterexample, error) {
	target := o.Arm.Breaks()
	if o.Result == nil || target == "" || !o.Result.Failed() {
		return nil, nil
	}
	failing := *o.Result
	failing.Violations = targetFirst(o.Result.Violations, target)
	if failing.Violations[0].Invariant != target {
		return nil, nil // the expected invariant held: the check reports it
	}
	sh, err := sim.Shrink(o.Config, o.Result.Seed, &failing, ShrinkBudget)
	if err != nil {
		return nil, err
	}
	c := &Counterexample{Shrunk: sh}
	for _, v := range sh.Result.Violations {
		if v.Invariant == sh.Invariant {
			c.Violation = v
			break
		}
	}
	for _, line := range sim.Timeline(sh.Result, sh.Invariant) {
		if seq, ok := traceSeq(line); ok && seq >= 1 && int(seq) <= len(sh.Result.History) {
			c.Events = append(c.Events, sh.Result.History[seq-1])
			c.Lines = append(c.Lines, line)
		}
	}
	return c, nil
}

// targetFirst moves the violations of invariant target to the front,
// keeping the order otherwise.
func targetFirst(vs []invariants.Violation, target string) []invariants.Violation {
	out := make([]invariants.Violation, 0, len(vs))
	for _, v := range vs {
		if v.Invariant == target {
			out = append(out, v)
		}
	}
	for _, v := range vs {
		if v.Invariant != target {
			out = append(out, v)
		}
	}
	return out
}

// traceSeq reads the event number of a trace line "t=12ms #7 lease ...".
func traceSeq(line string) (uint64, bool) {
	_, rest, ok := strings.Cut(line, " #")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, " ")
	n, err := strconv.ParseUint(num, 10, 64)
	return n, err == nil
}

// robustness runs the scenario on seeds from..to.
func robustness(s scenarios.Scenario, from, to uint64) (Robustness, error) {
	r := Robustness{From: from, To: to}
	for seed := from; seed <= to; seed++ {
		s.Seed = seed
		outs, err := s.Run()
		if err != nil {
			return r, err
		}
		ok := true
		for _, o := range outs {
			for _, c := range o.Checks {
				if c.Err != nil {
					ok = false
					r.fail(o.Arm.Name(), c.Check.Says)
				}
			}
		}
		if ok {
			r.Passed++
		}
	}
	return r, nil
}

func (r *Robustness) fail(arm string, says scenarios.Text) {
	for i := range r.Failing {
		if f := &r.Failing[i]; f.Arm == arm && f.Check == says {
			f.Seeds++
			return
		}
	}
	r.Failing = append(r.Failing, FailCount{Arm: arm, Check: says, Seeds: 1})
}

// Passed reports whether every check of every arm and every claim of the
// story held.
func (b *Built) Passed() bool {
	held, total := b.Held()
	return held == total
}

// Held counts the checks and claims that held, and all of them (an arm
// that did not run counts as one failed check).
func (b *Built) Held() (held, total int) {
	held, total = b.claimsHeld()
	for _, o := range b.Outcomes {
		if o.Missing != "" {
			total++
		}
		for _, c := range o.Checks {
			total++
			if c.Err == nil {
				held++
			}
		}
	}
	return held, total
}
