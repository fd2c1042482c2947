package targetsim

import (
	"fmt"

	"github.com/durasim/durasim/faults"
)

// Config is one target run's workload, handler design and faults.
type Config struct {
	Design      Design
	Workers     int // worker actors
	Docs        int // documents the clients insert, one job each (unique by args)
	Tenants     int // tenants the documents belong to (they share document names)
	MaxAttempts int // each job's max_attempts
	// Plan is the explicit faults, in the seam's vocabulary (Vocabulary).
	Plan faults.Plan
	// Swarm adds the seed's own faults to Plan: each kind on or off by
	// seed, with its own count and aim.
	Swarm bool
	// SwarmClocks lets the swarm draw the clock faults the queue's clocks
	// take (target.Policy.Clocks); off, it draws none (a plan's still
	// strike).
	SwarmClocks bool
	// Only keeps these documents (1-based) of the workload, as the
	// shrinker prints it; nil keeps all.
	Only []int
	// Races runs the actors' calls overlapping inside the database
	// (target.Racer: each actor on a connection of its own, a call that
	// waits on another's lock left in flight while the others go on),
	// and splits a handler's transaction into a call per step with a gap
	// the seed draws between them. PostgreSQL only.
	Races bool
	// KeepTrace keeps the trace lines and the operations in the result.
	KeepTrace bool
}

// DefaultConfig is a standard sweep's: the correct handler, swarm on.
func DefaultConfig() Config {
	return Config{Design: TxChecked, Workers: 4, Docs: 8, Tenants: 2, MaxAttempts: 4, Swarm: true, SwarmClocks: true}
}

// Limits of a target run's sizes.
const (
	MaxWorkers     = 64
	MaxDocs        = 1000
	MaxTenants     = 3 // len(tenantNames)
	MaxMaxAttempts = 25
)

// tenantNames are the tenants; their documents share names (d1, d2, …),
// so a key without its tenant collides.
var tenantNames = []string{"acme", "globex", "initech"}

// Validate reports the first setting out of range.
func (c Config) Validate() error {
	switch {
	case c.Design >= designCount:
		return fmt.Errorf("unknown handler design %d", c.Design)
	case c.Workers < 1 || c.Workers > MaxWorkers:
		return fmt.Errorf("invalid -workers %d: want 1 to %d", c.Workers, MaxWorkers)
	case c.Docs < 1 || c.Docs > MaxDocs:
		return fmt.Errorf("invalid -docs %d: want 1 to %d", c.Docs, MaxDocs)
	case c.Tenants < 1 || c.Tenants > MaxTenants:
		return fmt.Errorf("invalid -tenants %d: want 1 to %d", c.Tenants, MaxTenants)
	case c.MaxAttempts < 1 || c.MaxAttempts > MaxMaxAttempts:
		return fmt.Errorf("invalid -max-attempts %d: want 1 to %d", c.MaxAttempts, MaxMaxAttempts)
	}
	if err := seam.Validate(c.Plan); err != nil {
		return err
	}
	for i, f := range c.Plan.Faults {
		switch {
		case f.Worker >= int32(c.Workers):
			return fmt.Errorf("fault %d (%s): worker w%d, but -workers is %d (workers w0 to w%d)", i+1, f, f.Worker, c.Workers, c.Workers-1)
		case int(f.Doc) > c.Docs:
			return fmt.Errorf("fault %d (%s): document %d, but -docs is %d", i+1, f, f.Doc, c.Docs)
		case f.Max > MaxMaxAttempts:
			return fmt.Errorf("fault %d (%s): max %d, but a job's max attempts is at most %d", i+1, f, f.Max, MaxMaxAttempts)
		}
	}
	for _, d := range c.Only {
		if d < 1 || d > c.Docs {
			return fmt.Errorf("invalid -only %d: want documents 1 to %d", d, c.Docs)
		}
	}
	return nil
}
