package reports

import (
	"reflect"

	"github.com/durasim/durasim/sim"
)

// Replayable reports whether c can be rebuilt from the command-line flags
// sim.Command prints (c.Flags()): every setting it has is either a flag or
// the default. A scenario arm that tunes anything else (the arrival gap,
// the circuit breaker) can only be run with -scenario.
//
// It copies the settings Flags covers onto the default config and compares;
// cmd/durasim's test checks the other direction, that the printed flags
// parse back to the same config.
func Replayable(c sim.Config) bool {
	d := sim.DefaultConfig()
	d.Variant, d.Workers, d.Docs, d.Only, d.Tenants = c.Variant, c.Workers, c.Docs, c.Only, c.Tenants
	d.Model.Lease, d.Model.HeartbeatEvery, d.Model.MaxAttempts = c.Model.Lease, c.Model.HeartbeatEvery, c.Model.MaxAttempts
	d.Model.Retry.Strategy, d.Model.Ordered = c.Model.Retry.Strategy, c.Model.Ordered
	d.Resubmit, d.Swarm, d.Plan = c.Resubmit, c.Swarm, c.Plan
	d.KeepTrace, d.StopOnViolation = c.KeepTrace, c.StopOnViolation
	return reflect.DeepEqual(d, c)
}
