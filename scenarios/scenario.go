package scenarios

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// Text is a string in both report languages.
type Text struct{ PtBR, En string }

// Seed is one of the course documents the scenarios quote.
type Seed uint8

// The course documents (ARCHITECTURE.md, "Sources").
const (
	Seed000 Seed = iota // chapter 4: durable pipelines
	Seed003             // dead-letter queues and poison messages
	Seed004             // week 43: queues, workers, async agents
)

// Title is the document's title in both languages.
func (s Seed) Title() Text {
	switch s {
	case Seed000:
		return Text{
			PtBR: "AI-native Architect, capítulo 4: pipelines duráveis — filas, retries, idempotência e outbox para agentes",
			En:   "AI-native Architect, chapter 4: durable pipelines — queues, retries, idempotency and outbox for agents",
		}
	case Seed003:
		return Text{
			PtBR: "Dead-Letter Queues e Poison Messages em Agentes de IA",
			En:   "Dead-letter queues and poison messages in AI agents",
		}
	default:
		return Text{
			PtBR: "Semana 43: Queues/Workers/async agents",
			En:   "Week 43: queues, workers and async agents",
		}
	}
}

// Number is how ARCHITECTURE.md and the issues call the document ("seed 000").
func (s Seed) Number() string { return [...]string{"000", "003", "004"}[s] }

// Source is where a scenario's claim comes from: the document, the section
// and a verbatim quote (in Portuguese, as the document is written).
type Source struct {
	Seed    Seed
	Section Text
	Quote   string
}

// Chart is a chart a scenario's report draws.
type Chart uint8

// The charts reports know how to draw.
const (
	ChartDepth   Chart = iota // queue depth per tick, one line per arm
	ChartWaits                // queue wait, inference and review wait per document (first arm)
	ChartCalls                // provider calls and 429s per second, one line per arm
	ChartBreaker              // circuit breaker state over time, per arm
	ChartReplay               // LLM calls in the first execution and in the replay, per arm
)

// Check is one expected fact about an arm's outcome. all holds every arm's
// outcome in the scenario's order, so a check may compare arms.
type Check struct {
	Says Text
	Test func(o *Outcome, all []Outcome) error
	// Breaks names the invariant the check expects the arm to break ("" for
	// other checks): reports shrink the arm's run to a minimal
	// counterexample of it.
	Breaks string
}

// Arm is one design run in a scenario and what must hold for it: a
// simulation of Variant (with the scenario's config, changed by Tweak), or
// a Custom experiment that is not a simulation.
type Arm struct {
	Variant string // "correct" or a naive variant's -variant name
	Label   string // the arm's name in reports (default: Variant)
	Says    Text   // what the arm stands for, in a few words
	Tweak   func(c *sim.Config)
	Custom  func() *Custom
	Checks  []Check
}

// Name is the arm's label, or its variant.
func (a Arm) Name() string {
	if a.Label != "" {
		return a.Label
	}
	return a.Variant
}

// Naive reports whether the arm runs a naive variant.
func (a Arm) Naive() bool { return a.Variant != "correct" && a.Variant != "" }

// Breaks is the invariant the arm is expected to break ("" if none).
func (a Arm) Breaks() string {
	for _, c := range a.Checks {
		if c.Breaks != "" {
			return c.Breaks
		}
	}
	return ""
}

// Simulated reports whether every arm of the scenario is a simulation.
func (s Scenario) Simulated() bool { return s.Config != nil }

// Custom is what an arm that is not a simulation produced: numbers for the
// outcome table, a transcript and the messages of a sequence diagram.
type Custom struct {
	Facts      []Fact
	Transcript []string  // one line per step, for the timeline table
	Messages   []Message // the same steps as a sequence diagram
	Verdict    Text      // one line: what happened
	Err        error     // the experiment's error, if it ended in one
}

// Fact is one named number of a custom arm.
type Fact struct {
	Says  Text
	Value int64
}

// Message is one arrow (or, with From == To, a note) of a sequence diagram.
type Message struct {
	From, To string
	Text     Text
}

// Scenario is one course claim, reproduced.
type Scenario struct {
	Name    string
	Title   Text
	Claim   Text     // what the chapter claims, in a few sentences
	Story   Text     // what the simulation does and what each design shows
	Limits  Text     // what the model does not show (what a real run would add)
	Sources []Source // the first is the claim's main source
	Seed    uint64
	Config  func() sim.Config // nil for a scenario made only of custom arms
	Arms    []Arm             // the first is the correct design
	Charts  []Chart
	// Claims are the story's statements about the numbers, written by
	// reports from the run's figures beside the outcome table.
	Claims []Claim
}

// Outcome is the result of one arm.
type Outcome struct {
	Arm     Arm
	Config  sim.Config  // the config it ran with (simulation arms)
	Result  *sim.Result // nil for custom arms and arms that did not run
	Custom  *Custom
	Missing string // the arm's variant is not registered (yet): it did not run
	Checks  []CheckResult
}

// CheckResult is a check and why it failed (nil: it held).
type CheckResult struct {
	Check Check
	Err   error
}

// Passed reports whether the arm ran and every check held.
func (o *Outcome) Passed() bool {
	if o.Missing != "" {
		return false
	}
	for _, c := range o.Checks {
		if c.Err != nil {
			return false
		}
	}
	return true
}

// ArmConfig is the config arm a runs with: the scenario's, changed by the
// arm's tweak, with the arm's variant and the trace kept.
func (s Scenario) ArmConfig(a Arm) sim.Config {
	c := s.Config()
	c.Variant, c.KeepTrace = a.Variant, true
	if a.Tweak != nil {
		a.Tweak(&c)
	}
	return c
}

// Run runs every arm on the scenario's seed, then evaluates every check.
// An arm whose variant is not registered is reported as Missing and not
// run; any other error (a config that does not validate) is returned.
func (s Scenario) Run() ([]Outcome, error) {
	out := make([]Outcome, len(s.Arms))
	for i, arm := range s.Arms {
		o, err := s.runArm(arm)
		if err != nil {
			return nil, fmt.Errorf("scenario %s, arm %s: %w", s.Name, arm.Name(), err)
		}
		out[i] = o
	}
	for i := range out {
		o := &out[i]
		if o.Missing != "" {
			continue
		}
		for _, c := range o.Arm.Checks {
			o.Checks = append(o.Checks, CheckResult{Check: c, Err: c.Test(o, out)})
		}
	}
	return out, nil
}

func (s Scenario) runArm(arm Arm) (Outcome, error) {
	o := Outcome{Arm: arm}
	if arm.Custom != nil {
		o.Custom = arm.Custom()
		return o, nil
	}
	if _, err := model.LookupDesign(arm.Variant); err != nil {
		o.Missing = arm.Variant
		return o, nil
	}
	o.Config = s.ArmConfig(arm)
	res, err := sim.Run(o.Config, s.Seed)
	if err != nil {
		return o, err
	}
	o.Result = res
	return o, nil
}

// base is the small deterministic setup scenarios start from: no swarm,
// only the scenario's plan.
func base(docs, workers, tenants int32, plan string) func() sim.Config {
	return func() sim.Config {
		c := sim.DefaultConfig()
		c.Docs, c.Workers, c.Tenants, c.Swarm = docs, workers, tenants, false
		c.Plan = mustPlan(plan)
		return c
	}
}

// with returns base's config changed by f.
func with(b func() sim.Config, f func(c *sim.Config)) func() sim.Config {
	return func() sim.Config {
		c := b()
		f(&c)
		return c
	}
}

func mustPlan(text string) faults.Plan {
	p, err := faults.Parse(text)
	if err != nil {
		panic("scenarios: bad built-in plan: " + err.Error())
	}
	return p
}

// All returns every scenario in a stable order.
func All() []Scenario { return catalogue }

// Names lists the scenarios' names in order.
func Names() []string {
	names := make([]string, len(catalogue))
	for i, s := range catalogue {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	for _, s := range catalogue {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(Names(), ", "))
}
