package sim

import (
	"fmt"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"

	"github.com/google/go-cmp/cmp"
)

// Divergence describes two runs of one seed that differed.
type Divergence struct {
	Line   int    // 1-based index of the first differing trace line
	First  string // that line in the first run ("" if the run ended)
	Second string // that line in the second run
	Diff   string // go-cmp diff of the two traces around it
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("nondeterminism: trace line %d differs: %q vs %q", d.Line, d.First, d.Second)
}

// CheckDeterminism runs seed twice and compares the traces (madsim's
// check). It returns the hash and, if the runs differed, the first
// diverging line.
func CheckDeterminism(cfg Config, seed uint64) (uint64, *Divergence, error) {
	cfg.KeepTrace = true
	a, err := Run(cfg, seed)
	if err != nil {
		return 0, nil, err
	}
	b, err := Run(cfg, seed)
	if err != nil {
		return 0, nil, err
	}
	if a.Hash == b.Hash && len(a.Trace) == len(b.Trace) {
		return a.Hash, nil, nil
	}
	return a.Hash, firstDivergence(a.Trace, b.Trace), nil
}

func firstDivergence(a, b []string) *Divergence {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	d := &Divergence{Line: i + 1}
	if i < len(a) {
		d.First = a[i]
	}
	if i < len(b) {
		d.Second = b[i]
	}
	lo, hi := max(0, i-2), i+3
	d.Diff = cmp.Diff(window(a, lo, hi), window(b, lo, hi))
	return d
}

func window(s []string, lo, hi int) []string { return s[min(lo, len(s)):min(hi, len(s))] }

// Replicate is the self-check every sweep ends with (FoundationDB's
// "unseed" check, on one seed): it runs seed again with its trace kept and
// compares the trace hash with want, the hash of the sweep's run, and the
// trace's lines with its events, rehashed from the kept history. A sweep
// whose seeds do not replay byte for byte, or whose traces do not hash as
// their lines read, is worthless; this says so before anyone relies on it.
func Replicate(cfg Config, seed, want uint64) error {
	cfg.KeepTrace = true
	r, err := Run(cfg, seed)
	if err != nil {
		return err
	}
	if r.Hash != want {
		return fmt.Errorf("nondeterminism: seed %d hashed %016x in the sweep and %016x again with its trace kept (durasim run -seed %d -check-determinism shows where)",
			seed, want, r.Hash, seed)
	}
	h := NewTraceHasher()
	var torn [2]uint64 // the kinds of line checked cut short, refused and accepted
	for i := range r.History {
		e := r.History[i]
		h.Add(&e)
		if line := string(h.Line(&e)); line != r.Trace[i] {
			return fmt.Errorf("seed %d: trace line %d reads %q, its event formats as %q", seed, i+1, r.Trace[i], line)
		}
		back, err := ParseTraceLine(r.Trace[i])
		if err != nil {
			return fmt.Errorf("seed %d: %v", seed, err)
		}
		if want := printed(e); back != want {
			return fmt.Errorf("seed %d: trace line %d %q reads back as another event:\n%s", seed, i+1, r.Trace[i], cmp.Diff(want, back))
		}
		if ok, bit := b2i(e.OK), uint64(1)<<e.Kind; torn[ok]&bit == 0 {
			torn[ok] |= bit
			if err := tornLine(ParseTraceLine, seed, i+1, r.Trace[i], back); err != nil {
				return err
			}
		}
	}
	if h.Sum() != want || uint64(len(r.Trace)) != r.Events {
		return fmt.Errorf("seed %d: its %d kept trace lines hash to %016x, the run to %016x over %d events", seed, len(r.Trace), h.Sum(), want, r.Events)
	}
	return replayPrinted(r, want)
}

// replayPrinted runs what a failure's replay command prints for r: the
// swarm off, the options it drew as flags (r.Config), and the faults that
// took effect as plan text, parsed back. It must give the same trace.
func replayPrinted(r *Result, want uint64) error {
	if !r.Config.Swarm {
		return nil
	}
	plan, err := faults.Parse(r.Realized.OneLine())
	if err != nil {
		return fmt.Errorf("seed %d: its realized plan does not parse back: %v", r.Seed, err)
	}
	c := r.Config
	c.Swarm, c.Plan, c.KeepTrace = false, plan, false
	again, err := Run(c, r.Seed)
	if err != nil {
		return fmt.Errorf("seed %d: its replay command is refused: %v", r.Seed, err)
	}
	if again.Hash != want {
		return fmt.Errorf("nondeterminism: seed %d replayed from its printed plan hashes %016x, the run %016x (%s)",
			r.Seed, again.Hash, want, Command("replay", c, r.Seed))
	}
	return nil
}

// tornLine checks that no proper prefix of a trace line reads back as the
// event the whole line reads as: the last line of a trace cut short (a
// process killed mid-write, a file truncated) must be refused or read as
// another event, never pass for the line it was. Every byte of a line
// says something: a field cut short is malformed or holds another value,
// and a line that lost its last field lost what that field said.
func tornLine(parse func(string) (model.Event, error), seed uint64, n int, line string, whole model.Event) error {
	for cut := len(line) - 1; cut >= 0; cut-- {
		if e, err := parse(line[:cut]); err == nil && e == whole {
			return fmt.Errorf("seed %d: trace line %d %q cut to its first %d bytes still reads back as the whole line's event: a torn line would pass for a whole one", seed, n, line, cut)
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
