package main

import (
	"fmt"
	"strconv"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// hashRecorder numbers events, hashes their trace lines (FNV-1a, as sim
// does) and feeds the invariant suite. Callers serialise Record.
type hashRecorder struct {
	seq   uint64
	hash  uint64
	line  []byte
	suite *invariants.Suite
}

func newHashRecorder(suite *invariants.Suite) *hashRecorder {
	return &hashRecorder{hash: 14695981039346656037, line: make([]byte, 0, 256), suite: suite}
}

// Record implements model.Recorder.
func (r *hashRecorder) Record(e *model.Event) {
	r.seq++
	e.Seq = r.seq
	b := append(r.line[:0], "t="...)
	b = scheduler.AppendMillis(b, e.At)
	b = append(b, "ms #"...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, ' ')
	b = e.AppendText(b)
	r.line = b
	h := r.hash
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	r.hash = (h ^ '\n') * 1099511628211
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
