package sim

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
)

// Summary aggregates the results of many seeds of one configuration.
type Summary struct {
	Design  string
	Seeds   int
	Failed  int
	Drained int
	Events  uint64
	// Traces folds every seed's trace hash, in the order added (seed
	// order): two sweeps of one range print the same value exactly when
	// every seed's trace is the same — across backends, machines, -parallel.
	Traces       uint64
	Injected     [faults.KindCount]int
	BoundaryHits []int          // crash/pause faults per model.Boundary
	ByInvariant  map[string]int // failing seeds per invariant
	First        *Result        // the first failing seed, if any
	FailedSeeds  []uint64       // every failing seed, in order
	// Planned is how many seeds the sweep meant to run (0: Seeds), and
	// Stopped, when not empty, why it stopped before them all: an
	// interrupt, or a test's deadline.
	Planned int
	Stopped string
	pairs   pairCounts // seeds per rare conjunction (pairs.go)
}

// NewSummary returns an empty summary for design.
func NewSummary(design string) *Summary {
	return &Summary{Design: design, Traces: hashSeed, BoundaryHits: make([]int, len(model.Boundaries())+1), ByInvariant: map[string]int{}}
}

// Add folds one result in. Results must be added in seed order for First
// to be the lowest failing seed.
func (s *Summary) Add(r *Result) {
	s.Seeds++
	s.Events += r.Events
	s.Traces = mix(s.Traces, r.Hash)
	s.pairs.add(r.Pairs)
	if r.Drained {
		s.Drained++
	}
	for k, n := range r.Injected {
		s.Injected[k] += n
	}
	for b, n := range r.BoundaryHits {
		if b < len(s.BoundaryHits) {
			s.BoundaryHits[b] += n
		}
	}
	if !r.Failed() {
		return
	}
	s.Failed++
	s.FailedSeeds = append(s.FailedSeeds, r.Seed)
	if s.First == nil {
		s.First = r
	}
	seen := map[string]bool{}
	for _, v := range r.Violations {
		if !seen[v.Invariant] {
			seen[v.Invariant] = true
			s.ByInvariant[v.Invariant]++
		}
	}
}

// Unfaulted lists the boundaries of design that received no fault.
func (s *Summary) Unfaulted(d *model.Design) []model.Boundary {
	var out []model.Boundary
	for _, b := range DesignBoundaries(d) {
		if s.BoundaryHits[b] == 0 {
			out = append(out, b)
		}
	}
	return out
}

// DesignBoundaries lists the boundaries a design's actors cross.
func DesignBoundaries(d *model.Design) []model.Boundary {
	var out []model.Boundary
	for _, b := range model.Boundaries() {
		switch {
		case b == model.AfterDBWriteBeforePublish && !hasStep(d, model.StepDBWrite),
			b == model.RelayAfterPublishBeforeMark && d.Relay[0] != model.RelayPublish,
			b == model.RelayAfterMarkBeforePublish && d.Relay[0] != model.RelayMark:
			continue
		}
		out = append(out, b)
	}
	return out
}

func hasStep(d *model.Design, st model.Step) bool {
	for _, s := range d.Protocol.Steps {
		if s == st {
			return true
		}
	}
	return false
}

// Write prints the summary as aligned text, with the boundaries design d
// crosses; d nil means the design the summary is named after (and no
// boundary lines if that name is unknown).
func (s *Summary) Write(w io.Writer, d *model.Design) {
	fmt.Fprintf(w, "design      %s\n", s.Design)
	if s.Stopped != "" {
		fmt.Fprintf(w, "interrupted %s: %d of %d seeds ran, each to its end; the summary is of those\n", s.Stopped, s.Seeds, max(s.Planned, s.Seeds))
	}
	fmt.Fprintf(w, "seeds       %d (%d drained)\n", s.Seeds, s.Drained)
	fmt.Fprintf(w, "events      %d\n", s.Events)
	fmt.Fprintf(w, "traces      %016x (the seeds' trace hashes, folded in seed order)\n", s.Traces)
	fmt.Fprintf(w, "faults      %s\n", s.faultLine())
	if d == nil {
		d, _ = model.LookupDesign(s.Design)
	}
	if d != nil {
		s.writeBoundaries(w, d)
	}
	if line := s.pairs.rarestLine(s.Seeds); line != "" {
		fmt.Fprintf(w, "rarest      %s\n", line)
	}
	fmt.Fprintf(w, "violations  %d seed(s)%s\n", s.Failed, s.invariantLine())
	if s.Failed > 0 {
		fmt.Fprintf(w, "failing     %s\n", s.failingLine())
	}
}

// listedSeeds is how many failing seeds the summary names.
const listedSeeds = 20

// failingLine names the failing seeds: all of them, or the first
// listedSeeds and how many more.
func (s *Summary) failingLine() string {
	n := min(len(s.FailedSeeds), listedSeeds)
	parts := make([]string, n)
	for i, seed := range s.FailedSeeds[:n] {
		parts[i] = strconv.FormatUint(seed, 10)
	}
	line := strings.Join(parts, " ")
	if more := len(s.FailedSeeds) - n; more > 0 {
		line += fmt.Sprintf(" and %d more (the first %d of %d; -json lists them all)", more, n, len(s.FailedSeeds))
	}
	return line
}

func (s *Summary) writeBoundaries(w io.Writer, d *model.Design) {
	fmt.Fprintf(w, "boundaries  %s\n", s.boundaryLine(d))
	if missing := s.Unfaulted(d); len(missing) > 0 {
		names := make([]string, len(missing))
		for i, b := range missing {
			names[i] = b.String()
		}
		fmt.Fprintf(w, "unfaulted   %s\n", strings.Join(names, ", "))
	} else {
		fmt.Fprintf(w, "coverage    every named boundary received a fault\n")
	}
}

func (s *Summary) faultLine() string {
	var parts []string
	for k := faults.Kind(0); k < faults.KindCount; k++ {
		if n := s.Injected[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

func (s *Summary) boundaryLine(d *model.Design) string {
	var parts []string
	for _, b := range DesignBoundaries(d) {
		parts = append(parts, fmt.Sprintf("%s=%d", b, s.BoundaryHits[b]))
	}
	return strings.Join(parts, " ")
}

func (s *Summary) invariantLine() string {
	if len(s.ByInvariant) == 0 {
		return ""
	}
	names := make([]string, 0, len(s.ByInvariant))
	//det:sorted
	for name := range s.ByInvariant {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%d", name, s.ByInvariant[name])
	}
	return ": " + strings.Join(parts, " ")
}
