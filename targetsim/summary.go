package targetsim

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"github.com/durasim/durasim/invariants"
)

// Summary is a sweep's account: seeds, ops, the traces' folded hash, the
// faults and paths taken, the exposures and every check's verdict.
type Summary struct {
	Target     string         `json:"target"`
	Design     string         `json:"design"`
	Seeds      int            `json:"seeds"`
	Ops        int            `json:"ops"`
	Traces     string         `json:"traces"` // the seeds' trace hashes folded in seed order
	Faults     map[string]int `json:"faults"`
	Paths      Counts         `json:"paths"`
	Exposures  int            `json:"exposures"`       // overlaps: two workers on one job at once
	Exposed    int            `json:"exposed_seeds"`   // seeds with one
	Violations map[string]int `json:"violating_seeds"` // per check: seeds that violate it
	Failing    []uint64       `json:"failing_seeds"`
	// Reach is the reach table: per feature (Features), the seeds that
	// reached it.
	Reach []Reach `json:"reach"`
	// HandlerFailing are the failing seeds where a check of the handler's
	// effects failed; the others failed only the queue's own guarantees.
	HandlerFailing []uint64 `json:"handler_failing_seeds"`
	// Interrupted is the signal that stopped the sweep ("": it ran every
	// seed); Planned is how many seeds it was to run (0: not said).
	Interrupted string `json:"interrupted,omitempty"`
	Planned     int    `json:"planned,omitempty"`
	// Races mode: the seeds in which a call waited on another actor's
	// lock (Paths.LockWaits counts the calls).
	Races       bool `json:"races,omitempty"`
	WaitedSeeds int  `json:"waited_seeds,omitempty"`
	fold        foldHash
}

// NewSummary starts an empty summary.
func NewSummary() *Summary {
	return &Summary{Faults: map[string]int{}, Violations: map[string]int{}, Failing: []uint64{}, HandlerFailing: []uint64{}, fold: newFold()}
}

// Add folds one seed's result in (call in seed order).
func (s *Summary) Add(r *Result) {
	s.Target, s.Design = r.Target, r.Config.Design.String()
	s.Seeds++
	s.Ops += r.Lines
	s.fold.add(r.Hash)
	s.Traces = fmt.Sprintf("%016x", s.fold.sum())
	for _, f := range r.Realized.Faults {
		s.Faults[f.Kind.String()]++
	}
	s.Paths.add(r.Counts)
	s.addReach(r.Counts)
	s.Races = s.Races || r.Config.Races
	if r.Counts.LockWaits > 0 {
		s.WaitedSeeds++
	}
	if n := len(r.Exposures); n > 0 {
		s.Exposures += n
		s.Exposed++
	}
	seen := map[string]bool{}
	for _, v := range r.Violations {
		if !seen[v.Invariant] {
			seen[v.Invariant] = true
			s.Violations[v.Invariant]++
		}
	}
	if r.Failed() {
		s.Failing = append(s.Failing, r.Seed)
	}
	if r.HandlerFailed() {
		s.HandlerFailing = append(s.HandlerFailing, r.Seed)
	}
}

func (c *Counts) add(o Counts) {
	c.Inserts += o.Inserts
	c.UniqueSkipped += o.UniqueSkipped
	c.Polls += o.Polls
	c.Fetches += o.Fetches
	c.Reports += o.Reports
	c.Refused += o.Refused
	c.Rollbacks += o.Rollbacks
	c.StaleCompletions += o.StaleCompletions
	c.Stuck += o.Stuck
	c.Rescued += o.Rescued
	c.Scheduled += o.Scheduled
	c.Crashes += o.Crashes
	c.Pauses += o.Pauses
	c.Retries += o.Retries
	c.ZombieWrites += o.ZombieWrites
	c.Timeouts += o.Timeouts
	c.OutsideCancels += o.OutsideCancels
	c.WorkerTimeouts += o.WorkerTimeouts
	c.NoTimeouts += o.NoTimeouts
	c.Deletes += o.Deletes
	c.MetadataUpdates += o.MetadataUpdates
	c.OutOfBand += o.OutOfBand
	c.LongErrors += o.LongErrors
	c.BatchInserts += o.BatchInserts
	c.LockWaits += o.LockWaits
	c.RaceRollbacks += o.RaceRollbacks
	c.Deadlocks += o.Deadlocks
}

// Print writes the summary as the CLI shows it.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "target      %s\n", s.Target)
	fmt.Fprintf(w, "design      %s\n", s.Design)
	if s.Interrupted != "" {
		fmt.Fprintf(w, "seeds       %d of %d: INTERRUPTED by %s (every one run drained or ran out its quiescence window)\n", s.Seeds, s.Planned, s.Interrupted)
	} else {
		fmt.Fprintf(w, "seeds       %d (every one drained or ran out its quiescence window)\n", s.Seeds)
	}
	fmt.Fprintf(w, "ops         %d\n", s.Ops)
	fmt.Fprintf(w, "traces      %s (the seeds' trace hashes, folded in seed order)\n", s.Traces)
	var faults []string
	for _, k := range FaultKinds() {
		faults = append(faults, fmt.Sprintf("%s=%d", k, s.Faults[k.String()]))
	}
	fmt.Fprintf(w, "faults      %s\n", strings.Join(faults, " "))
	p := s.Paths
	fmt.Fprintf(w, "paths       inserts=%d unique-skipped=%d polls=%d fetches=%d reports=%d refused=%d rollbacks=%d stale-completions=%d stuck=%d rescued=%d scheduled=%d crashes=%d pauses=%d retries=%d zombie-writes=%d timeouts=%d\n",
		p.Inserts, p.UniqueSkipped, p.Polls, p.Fetches, p.Reports, p.Refused, p.Rollbacks, p.StaleCompletions, p.Stuck, p.Rescued,
		p.Scheduled, p.Crashes, p.Pauses, p.Retries, p.ZombieWrites, p.Timeouts)
	if s.Races {
		fmt.Fprintf(w, "races       %d seed(s) with a call that waited on another actor's lock: lock-waits=%d race-rollbacks=%d deadlocks=%d\n",
			s.WaitedSeeds, p.LockWaits, p.RaceRollbacks, p.Deadlocks)
	}
	fmt.Fprintf(w, "exposure    %d overlaps in %d seeds (two workers on one job at once: an at-least-once queue allows it; counted, not failed)\n",
		s.Exposures, s.Exposed)
	for _, name := range invariants.TargetChecks() {
		verdict := "holds"
		if n := s.Violations[name]; n > 0 {
			verdict = fmt.Sprintf("VIOLATED in %d seed(s)", n)
		}
		whose := "the queue's guarantee"
		if invariants.TargetHandlerCheck(name) {
			whose = "the handler's effects"
		}
		fmt.Fprintf(w, "  %-26s %-22s %s\n", name, whose, verdict)
	}
	fmt.Fprintf(w, "violations  %d seed(s): %d of the handler's effects, %d of the queue's guarantees only\n", len(s.Failing),
		len(s.HandlerFailing), len(s.Failing)-len(s.HandlerFailing))
}

// foldHash folds 64-bit hashes in order.
type foldHash struct {
	h interface {
		Write([]byte) (int, error)
		Sum64() uint64
	}
}

func newFold() foldHash { return foldHash{h: fnv.New64a()} }

func (f foldHash) add(v uint64) {
	var b [8]byte
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	_, _ = f.h.Write(b[:])
}

func (f foldHash) sum() uint64 { return f.h.Sum64() }
