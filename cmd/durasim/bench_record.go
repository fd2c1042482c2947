package main

import (
	"fmt"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// hashRecorder formats and hashes every event as sim does (sim.TraceHasher)
// and feeds the invariant suite. Callers serialise Record.
type hashRecorder struct {
	*sim.TraceHasher
	suite *invariants.Suite
}

func newHashRecorder(suite *invariants.Suite) *hashRecorder {
	return &hashRecorder{TraceHasher: sim.NewTraceHasher(), suite: suite}
}

// Record implements model.Recorder.
func (r *hashRecorder) Record(e *model.Event) {
	r.Add(e)
	r.suite.Record(e)
}

// goSummary folds the results of many goroutine runs.
type goSummary struct {
	seeds      int
	events     uint64
	firstHash  uint64
	violations int
	firstErr   string
}

func (s *goSummary) add(seed uint64, r goResult) {
	if s.seeds == 0 {
		s.firstHash = r.hash
	}
	s.seeds++
	s.events += r.events
	s.violations += len(r.violations)
	if len(r.violations) > 0 && s.firstErr == "" {
		s.firstErr = fmt.Sprintf("seed %d: %s", seed, r.violations[0])
	}
}
