// Package reuse empties slices and maps for the next seed while keeping
// their storage: sim.Runner, model.System.Reset and invariants.Suite.Reset
// carry a run's memory to the next one, and must carry nothing else.
package reuse
