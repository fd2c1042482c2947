package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
)

// Config describes one simulation: workload, design, faults and limits.
type Config struct {
	Workers int32
	Docs    int32
	Tenants int32
	// Only, when set, keeps just these documents (1-based indices into the
	// Docs generated ones, ascending); each keeps its content and arrival.
	// The shrinker uses it to drop any document, not only the last ones.
	Only []int32
	// Resubmit lists documents (1-based) whose client submits them again
	// after getting a job id — seed 004's lab run twice after a restart.
	// The second accept must return the same job and make no second effect.
	Resubmit []int32
	Variant  string // "correct" or a naive variant's name
	// ProbeStatus makes every client ask the status of its own job and of
	// another job id once it has its reply (by default about one in three
	// does, at a drawn moment): a scenario about the status endpoint then
	// does not depend on the seed.
	ProbeStatus bool
	// TryCancelled makes the operator try, every round, to redrive and
	// reprocess a cancelled job — what it must never be able to do (by
	// default it tries now and then, as the seed draws it).
	TryCancelled bool
	// EdgeVersions makes one document in eight come at the largest
	// operationVersion a key allows (math.MaxInt32): the edge of the
	// version range, where a job has no next version to be reprocessed at.
	EdgeVersions bool
	// WorkflowEvery n runs the job of every n-th document (by index) as a
	// durable workflow whose activities are its stages (workflow.go); 0:
	// none.
	WorkflowEvery int32
	Model         model.Config

	// Faults: an explicit plan always applies; Swarm adds the seed's random
	// faults on top (off when replaying a realized or shrunk plan).
	Plan      faults.Plan
	Swarm     bool
	MaxFaults int32

	// ArrivalGap is the mean time between document arrivals.
	ArrivalGap model.Time
	// DrainLimit is how much virtual time the system gets to drain once
	// faults stop; a run that has not drained by then is reported as not
	// drained (liveness is then a violation).
	DrainLimit model.Time
	// MaxEvents bounds the number of scheduler events of a run (0: none).
	MaxEvents uint64

	KeepTrace       bool // keep the text of every trace line (replay, reports)
	StopOnViolation bool // end the run at the first safety violation

	// Backend, when set, replays every event against a second
	// implementation (the SQL store) and fails the run where it disagrees
	// with the model. It is not part of the simulation: the trace and hash
	// are the model's, and Flags names it only so the reproduce command
	// runs on the same backend. nil: the model alone.
	Backend Backend
}

// DefaultConfig is the standard swarm workload of `durasim run`.
func DefaultConfig() Config {
	return Config{
		Workers:    4,
		Docs:       24,
		Tenants:    3,
		Variant:    "correct",
		Model:      model.DefaultConfig(),
		Swarm:      true,
		MaxFaults:  16, // 14 fault kinds share it
		ArrivalGap: 250 * model.Millisecond,
		DrainLimit: 2 * 60 * 60_000 * model.Millisecond,
	}
}

// Validate rejects configurations that cannot run, with one error per
// problem.
func (c Config) Validate() error {
	var errs []error
	if c.Workers <= 0 {
		errs = append(errs, fmt.Errorf("workers must be positive (got %d)", c.Workers))
	}
	if c.Docs <= 0 {
		errs = append(errs, fmt.Errorf("docs must be positive (got %d)", c.Docs))
	}
	if c.Tenants <= 0 || c.Tenants > int32(MaxTenants) {
		errs = append(errs, fmt.Errorf("tenants must be between 1 and %d (got %d)", MaxTenants, c.Tenants))
	}
	for i, d := range c.Only {
		if d < 1 || d > c.Docs || i > 0 && d <= c.Only[i-1] {
			errs = append(errs, fmt.Errorf("only: documents must be ascending indices between 1 and %d", c.Docs))
			break
		}
	}
	for _, d := range c.Resubmit {
		if d < 1 || d > c.Docs {
			errs = append(errs, fmt.Errorf("resubmit: document %d is not between 1 and %d", d, c.Docs))
			break
		}
	}
	if _, err := model.LookupDesign(c.Variant); err != nil {
		errs = append(errs, err)
	}
	if err := c.Model.Validate(); err != nil {
		errs = append(errs, err)
	}
	for _, f := range c.Plan.Faults {
		if err := f.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("plan: %w", err))
		} else if f.Worker >= c.Workers {
			errs = append(errs, fmt.Errorf("plan: %v names worker w%d but there are %d workers", f, f.Worker, c.Workers))
		} else if f.Doc > c.Docs {
			errs = append(errs, fmt.Errorf("plan: %v names doc %d but there are %d docs", f, f.Doc, c.Docs))
		}
	}
	if c.ArrivalGap < 0 {
		errs = append(errs, fmt.Errorf("arrival gap must be >= 0 (got %s)", time.Duration(c.ArrivalGap)))
	}
	if c.DrainLimit <= 0 {
		errs = append(errs, fmt.Errorf("drain limit must be positive (got %s)", time.Duration(c.DrainLimit)))
	}
	if c.Backend != nil && c.Variant != DefaultConfig().Variant {
		errs = append(errs, fmt.Errorf("backend %s implements the correct design only (got -variant %s)", c.Backend.Name(), c.Variant))
	}
	if c.WorkflowEvery < 0 {
		errs = append(errs, fmt.Errorf("workflow-every must be >= 0 (got %d)", c.WorkflowEvery))
	}
	if c.MaxFaults < 0 {
		errs = append(errs, fmt.Errorf("max faults must be >= 0 (got %d)", c.MaxFaults))
	}
	errs = append(errs, c.limitErrors()...) // limits.go
	return errors.Join(errs...)
}

// DocCount is how many documents the run submits.
func (c Config) DocCount() int32 {
	if len(c.Only) > 0 {
		return int32(len(c.Only))
	}
	return c.Docs
}
