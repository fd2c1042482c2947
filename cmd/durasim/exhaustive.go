package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// runExhaustive is `durasim run -exhaustive`: every single-fault plan and
// every pair of them on the small workload, for the design of -variant.
func runExhaustive(variant string, seed uint64, stdout io.Writer) error {
	rep, err := sim.Exhaustive(sim.ExhaustiveConfig(variant), seed, true)
	if err != nil {
		return usageErr("%v", err)
	}
	d, _ := model.LookupDesign(variant)
	covered, total := rep.Coverage(d)
	fmt.Fprintf(stdout, "design      %s\n", d.Name)
	fmt.Fprintf(stdout, "workload    2 tenants, 3 documents, 2 workers, base plan %q, seed %d\n", "poison doc=3", seed)
	fmt.Fprintf(stdout, "plans       %d (%d single faults, %d pairs)\n", rep.Plans(), rep.Singles, rep.Pairs)
	fmt.Fprintf(stdout, "coverage    %d/%d boundaries (%d%%)\n", covered, total, 100*covered/max(total, 1))
	for _, b := range sim.DesignBoundaries(d) {
		fmt.Fprintf(stdout, "  %-32s crossings %-3d plans with a fault there %d\n", b, rep.Crossings[b], rep.Faulted[b])
	}
	fmt.Fprintf(stdout, "kinds       %d of %d fault kinds enumerated (single plans, plans in which the kind took effect, failing plans)\n",
		kindsEnumerated(rep), len(faults.Pipeline.Kinds()))
	for _, k := range faults.Pipeline.Kinds() {
		fmt.Fprintf(stdout, "  %-32s singles %-4d took effect in %-6d failing %d\n", k, rep.Kinds[k], rep.KindFaulted[k], rep.KindExposing[k])
	}
	fmt.Fprintf(stdout, "violations  %d plan(s)%s\n", rep.Failures, invariantCounts(rep.Invariants))
	if rep.First == nil {
		return nil
	}
	fmt.Fprintf(stdout, "first failing plan: %s\n  %s\n", rep.FirstPlan.OneLine(), rep.First.Violations[0])
	return errViolation
}

// kindsEnumerated is how many fault kinds have single plans.
func kindsEnumerated(rep *sim.ExhaustiveReport) int {
	n := 0
	for _, c := range rep.Kinds {
		if c > 0 {
			n++
		}
	}
	return n
}

func invariantCounts(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, m[n])
	}
	return ": " + strings.Join(parts, " ")
}

// mutantsExhaustive lists, per variant, the boundaries at which a single
// fault exposes it on the small workload.
func mutantsExhaustive(names []string, asJSON bool, stdout io.Writer) error {
	rows := make([]mutantRow, len(names))
	errs := make([]error, len(names))
	parallelDo(len(names), func(i int) {
		rep, err := sim.Exhaustive(sim.ExhaustiveConfig(names[i]), 1, false)
		if err != nil {
			errs[i] = err
			return
		}
		rows[i] = exposure(names[i], rep)
	})
	for _, err := range errs {
		if err != nil {
			return usageErr("%v", err)
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"workload": "2 tenants, 3 documents, 2 workers, poison doc=3", "variants": rows})
	}
	caught := 0
	for _, r := range rows {
		if r.Caught {
			caught++
		}
		fmt.Fprintf(stdout, "%-22s %s\n", r.Name, strings.Join(r.Exposing, ", "))
	}
	fmt.Fprintf(stdout, "\n%d of %d variants exposed by at most one fault on the small workload\n", caught, len(rows))
	return nil
}

func exposure(name string, rep *sim.ExhaustiveReport) mutantRow {
	row := mutantRow{Name: name}
	if rep.BaseFails {
		row.Caught = true
		row.Exposing = []string{"(no fault needed)"}
		return row
	}
	for _, b := range model.Boundaries() {
		if rep.Exposing[b] > 0 {
			row.Exposing = append(row.Exposing, fmt.Sprintf("%s (%s)", b, sim.Counted(rep.Exposing[b], "plan")))
		}
	}
	if rep.Failures > 0 && len(row.Exposing) == 0 {
		row.Exposing = []string{fmt.Sprintf("(%s, by faults at no boundary)", sim.Counted(rep.Failures, "plan"))}
	}
	row.Caught = rep.Failures > 0
	if !row.Caught {
		row.Exposing = []string{"not exposed by a single fault on this workload (the swarm catches it)"}
	}
	return row
}
