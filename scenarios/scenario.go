package scenarios

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/sim"
)

// Text is a string in both report languages.
type Text struct{ PtBR, En string }

// Check is one expected fact about a run.
type Check struct {
	Says Text
	Test func(r *sim.Result) error
}

// Arm is one design run in a scenario and what must hold for it.
type Arm struct {
	Variant string
	Checks  []Check
}

// Scenario is one course claim, reproduced.
type Scenario struct {
	Name   string
	Title  Text
	Story  Text
	Source string
	Seed   uint64
	Config func() sim.Config
	Arms   []Arm // the first is the correct design
}

// Outcome is the result of one arm.
type Outcome struct {
	Arm    Arm
	Result *sim.Result
	Failed []string // checks that did not hold, as "claim: why"
}

// Run runs every arm on the scenario's seed and evaluates its checks.
func (s Scenario) Run() ([]Outcome, error) {
	out := make([]Outcome, 0, len(s.Arms))
	for _, arm := range s.Arms {
		cfg := s.Config()
		cfg.Variant, cfg.KeepTrace = arm.Variant, true
		res, err := sim.Run(cfg, s.Seed)
		if err != nil {
			return nil, fmt.Errorf("scenario %s, arm %s: %w", s.Name, arm.Variant, err)
		}
		o := Outcome{Arm: arm, Result: res}
		for _, c := range arm.Checks {
			if err := c.Test(res); err != nil {
				o.Failed = append(o.Failed, c.Says.En+": "+err.Error())
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// base is the small deterministic setup scenarios start from: no swarm,
// only the scenario's plan.
func base(docs, workers, tenants int32, plan string) func() sim.Config {
	return func() sim.Config {
		c := sim.DefaultConfig()
		c.Docs, c.Workers, c.Tenants, c.Swarm = docs, workers, tenants, false
		p, err := faults.Parse(plan)
		if err != nil {
			panic("scenarios: bad built-in plan: " + err.Error())
		}
		c.Plan = p
		return c
	}
}

// All returns every scenario in a stable order.
func All() []Scenario { return catalogue }

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	names := make([]string, len(catalogue))
	for i, s := range catalogue {
		if s.Name == name {
			return s, nil
		}
		names[i] = s.Name
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(names, ", "))
}
