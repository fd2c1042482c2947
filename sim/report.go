package sim

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/durasim/durasim/model"
)

// Reproducer prints the commands that reproduce a failure from where the
// user is. Its zero value prints them as from the root of durasim's
// checkout, from flags alone.
type Reproducer struct {
	CLI     string // how the user runs durasim there ("": DefaultCLI)
	Install string // how to install that CLI, printed under its commands ("": nothing to say)
	Test    string // the go test command that reruns the seed ("" outside go test)
	// Base is the repro file the configuration was read from (the CLI's
	// -repro), if any: commands may read it and change settings by flag.
	Base *ReproBase
	// Save writes the repro file of cfg on seed (name tells the files of
	// one failure apart: "seed-7", "seed-7-shrunk") and returns its path
	// as the user types it. nil: no file can be written, and a
	// configuration with a setting no flag sets gets no durasim command.
	Save  func(name string, cfg Config, seed uint64) (string, error)
	saved []ReproBase
}

// ReproBase is a repro file and what it holds.
type ReproBase struct {
	File   string
	Config Config
	Seed   uint64
}

// Line is the durasim command that runs verb on seed with cfg: the flags
// alone where every setting has one, else a repro file (the base, or one
// written for it: name) and flags for what differs from it. It is ""
// with the reason when no durasim command can run it (a backend of the
// user's own, or a setting no flag sets and no file written).
func (r *Reproducer) Line(verb, name string, cfg Config, seed uint64) (string, error) {
	if _, err := backendName(cfg.Backend); err != nil {
		return "", err
	}
	cli := r.CLI
	if cli == "" {
		cli = DefaultCLI
	}
	bases := []ReproBase{{Config: DefaultConfig()}}
	if r.Base != nil {
		bases = append(bases, *r.Base)
	}
	var missing error
	for _, b := range append(bases, r.saved...) {
		args, err := FlagsFrom(cfg, b.Config)
		if err == nil {
			return commandLine(cli, verb, b.File, seed, b.File == "" || seed != b.Seed, args), nil
		}
		if missing == nil {
			missing = err
		}
	}
	if r.Save == nil {
		return "", fmt.Errorf("%v, and no repro file is written here", missing)
	}
	file, err := r.Save(name, cfg, seed)
	if err != nil {
		return "", fmt.Errorf("%v, and its repro file could not be written: %v", missing, err)
	}
	r.saved = append(r.saved, ReproBase{File: file, Config: cfg, Seed: seed})
	return commandLine(cli, verb, file, seed, false, nil), nil
}

// Files lists the repro files Line wrote.
func (r *Reproducer) Files() []string {
	var out []string
	for _, b := range r.saved {
		out = append(out, b.File)
	}
	return out
}

// Lines are the commands that reproduce a failing seed of cfg, and its
// shrunk counterexample sh (nil: none): the go test line, the durasim
// run of the seed as the sweep ran it, the replay of the shrunk run, then
// a note for what cannot be printed and how to install the CLI.
func (r *Reproducer) Lines(cfg Config, seed uint64, sh *Shrunk) []string {
	var out, notes []string
	if r.Test != "" {
		out = append(out, r.Test)
	}
	wrote := false
	add := func(verb, name string, c Config, what string) {
		line, err := r.Line(verb, name, c, seed)
		switch {
		case err == nil:
			out, wrote = append(out, line), true
		case errors.Is(err, ErrOwnBackend):
			if !slices.Contains(notes, "("+err.Error()+")") {
				notes = append(notes, "("+err.Error()+")")
			}
		default:
			notes = append(notes, fmt.Sprintf("(no durasim command for %s: %v)", what, err))
		}
	}
	add("run", fmt.Sprintf("seed-%d", seed), cfg, "the seed")
	if sh != nil {
		add("replay", fmt.Sprintf("seed-%d-shrunk", seed), sh.Config, "the shrunk counterexample")
	}
	if wrote && r.Install != "" {
		notes = append(notes, "("+r.Install+")")
	}
	return append(out, notes...)
}

// WriteFailure prints the story of a failing seed: the whole run's
// violations, swarm and realized plan; the shrunk counterexample with its
// own violation, and its critical path with the events that violation
// names marked; the commands that reproduce both (rp nil: from the root
// of durasim's checkout, by flags).
func WriteFailure(w io.Writer, cfg Config, res *Result, sh *Shrunk, rp *Reproducer) {
	if rp == nil {
		rp = &Reproducer{}
	}
	fmt.Fprintf(w, "FAIL seed %d (design %s)\n", res.Seed, cfg.Variant)
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  violation: %s\n", v)
	}
	if res.Swarm() != "" {
		fmt.Fprintf(w, "  %s\n", res.Swarm())
	}
	fmt.Fprintf(w, "  plan (%d faults took effect):\n%s", res.Realized.Len(), indent(res.Realized.String(), "    "))
	if sh != nil {
		writeShrunk(w, sh)
	}
	fmt.Fprintf(w, "  reproduce:\n")
	for _, line := range rp.Lines(cfg, res.Seed, sh) {
		fmt.Fprintf(w, "    %s\n", line)
	}
}

// writeShrunk prints the shrunk counterexample: its size, plan, its own
// violation (with the shrunk run's event numbers) and its critical path.
func writeShrunk(w io.Writer, sh *Shrunk) {
	c := sh.Config
	fmt.Fprintf(w, "  shrunk after %d runs to %d fault(s), %d job(s), %d worker(s), %d tenant(s), %d events; breaks %s\n",
		sh.Runs, c.Plan.Len(), c.DocCount(), c.Workers, c.Tenants, sh.Result.Events, sh.Invariant)
	fmt.Fprintf(w, "  shrunk plan:\n%s", indent(c.Plan.String(), "    "))
	for _, v := range sh.Result.Violations {
		if v.Invariant == sh.Invariant {
			fmt.Fprintf(w, "  shrunk violation: %s\n", v)
		}
	}
	fmt.Fprintf(w, "  counterexample (the shrunk run: its event numbers and ids are its own, renumbered by the shrink; > marks the events its violation names):\n")
	named := NamedEvents(sh.Result, sh.Invariant)
	for _, k := range storyIndices(sh.Result, sh.Invariant) {
		mark := "  "
		if named[sh.Result.History[k].Seq] {
			mark = "> "
		}
		fmt.Fprintf(w, "    %s%s\n", mark, sh.Result.Trace[k])
	}
}

// NamedEvents is the set of events (by sequence number) that the
// violations of invariant in res name.
func NamedEvents(res *Result, invariant string) map[uint64]bool {
	named := map[uint64]bool{}
	for _, v := range res.Violations {
		if v.Invariant == invariant {
			for _, seq := range v.Events {
				named[seq] = true
			}
		}
	}
	return named
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

// wholeTail is how many events a violation that names none (a final
// state a backend disagrees with) shows: the end of the run.
const wholeTail = 40

// storyIndices is the counterexample a failure prints: [TimelineIndices],
// or for violations that name no event and no job (a backend's final
// state that disagrees) the run's last events, routine heartbeats left
// out, rather than the faults alone.
func storyIndices(res *Result, invariant string) []int {
	for _, v := range res.Violations {
		if v.Invariant == invariant && (v.Job != 0 || len(v.Events) > 0) {
			return TimelineIndices(res, invariant)
		}
	}
	return tail(res)
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

// tail is the last wholeTail events of res but routine heartbeats.
func tail(res *Result) []int {
	var out []int
	for i := len(res.History) - 1; i >= 0 && len(out) < wholeTail; i-- {
		if e := &res.History[i]; e.Kind != model.EvHeartbeat || !e.OK {
			out = append(out, i)
		}
	}
	slices.Reverse(out)
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
