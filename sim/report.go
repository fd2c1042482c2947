package sim

import (
	"fmt"
	"io"
	"strings"

	"github.com/durasim/durasim/model"
)

// WriteFailure prints everything needed to understand and reproduce a
// failing seed: the violations, the swarm, the realized plan, the shrunk
// counterexample as a timeline, and the exact commands.
func WriteFailure(w io.Writer, cfg Config, res *Result, sh *Shrunk, testCmd string) {
	fmt.Fprintf(w, "FAIL seed %d (design %s)\n", res.Seed, cfg.Variant)
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  violation: %s\n", v)
	}
	if res.Swarm != "" {
		fmt.Fprintf(w, "  %s\n", res.Swarm)
	}
	fmt.Fprintf(w, "  plan (%d faults took effect):\n%s", res.Realized.Len(), indent(res.Realized.String(), "    "))
	if sh != nil {
		c := sh.Config
		fmt.Fprintf(w, "  shrunk after %d runs to %d fault(s), %d job(s), %d worker(s), %d tenant(s), %d events; breaks %s\n",
			sh.Runs, c.Plan.Len(), c.DocCount(), c.Workers, c.Tenants, sh.Result.Events, sh.Invariant)
		fmt.Fprintf(w, "  shrunk plan:\n%s", indent(c.Plan.String(), "    "))
		fmt.Fprintf(w, "  counterexample:\n")
		for _, line := range Timeline(sh.Result, sh.Invariant) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	fmt.Fprintf(w, "  reproduce:\n")
	if testCmd != "" {
		fmt.Fprintf(w, "    %s\n", testCmd)
	}
	fmt.Fprintf(w, "    %s\n", Command("run", cfg, res.Seed))
	if sh != nil {
		fmt.Fprintf(w, "    %s\n", Command("replay", sh.Config, sh.Seed))
	}
}

func indent(text, prefix string) string {
	if text == "" {
		return prefix + "(none)\n"
	}
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	return prefix + strings.Join(lines, prefix) + "\n"
}

// Timeline is the critical path of a violation in a run kept with its
// trace: the events of the job it concerns, the events it names, and every
// crash, pause and injected fault, up to the last event that proves it.
func Timeline(res *Result, invariant string) []string {
	idx := TimelineIndices(res, invariant)
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = res.Trace[k]
	}
	return out
}

// TimelineIndices is [Timeline] as positions in res.History: the events of
// the jobs the violations of invariant concern, the events they name, and
// every crash, pause and injected fault, up to the last named event.
func TimelineIndices(res *Result, invariant string) []int {
	jobs, named := map[model.JobID]bool{}, map[uint64]bool{}
	var last uint64
	for _, v := range res.Violations {
		if v.Invariant != invariant {
			continue
		}
		if v.Job != 0 {
			jobs[v.Job] = true
		}
		for _, seq := range v.Events {
			named[seq] = true
			last = max(last, seq)
		}
	}
	var out []int
	for i := range res.History {
		e := &res.History[i]
		if last > 0 && e.Seq > last {
			break
		}
		if onPath(e, jobs, named) {
			out = append(out, i)
		}
	}
	return out
}

func onPath(e *model.Event, jobs map[model.JobID]bool, named map[uint64]bool) bool {
	switch e.Kind {
	case model.EvCrash, model.EvPause, model.EvResume, model.EvFault:
		return true
	case model.EvStatus:
		return named[e.Seq]
	case model.EvHeartbeat:
		if e.OK { // routine lease extensions are noise in a counterexample
			return named[e.Seq]
		}
	}
	return named[e.Seq] || jobs[e.Job] || jobs[e.Other]
}
