package targetsim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/target"
)

// Boundary is a named point between two calls of an actor (or, inside a
// handler's transaction, between two of its statements).
type Boundary uint8

// The boundaries.
const (
	BoundaryNone      Boundary = iota
	AfterFetch                 // a worker holds a fetched job, before its work
	AfterWork                  // the work is done, nothing written
	AfterEffect                // the effect is written (inside the transaction for the transactional designs)
	BeforeCommit               // inside the handler's transaction, after the completion, before COMMIT
	AfterCommit                // the handler's transaction committed, before the completer's report
	AfterReport                // the report is made, before the next fetch
	RescuerAfterStuck          // the rescuer read the stuck jobs, before it rescues them
	boundaryCount
)

var boundaryNames = [boundaryCount]string{"none", "after_fetch", "after_work", "after_effect", "before_commit", "after_commit",
	"after_report", "rescuer_after_stuck"}

func (b Boundary) String() string {
	if b >= boundaryCount {
		return "boundary?"
	}
	return boundaryNames[b]
}

// Boundaries lists every boundary.
func Boundaries() []Boundary {
	out := make([]Boundary, 0, boundaryCount-1)
	for b := AfterFetch; b < boundaryCount; b++ {
		out = append(out, b)
	}
	return out
}

// ParseBoundary reads a boundary's name.
func ParseBoundary(s string) (Boundary, error) {
	for i, n := range boundaryNames {
		if i > 0 && n == s {
			return Boundary(i), nil
		}
	}
	return BoundaryNone, fmt.Errorf("unknown boundary %q (want one of %s)", s, strings.Join(boundaryNames[1:], ", "))
}

// rescuers: the boundaries of the rescuer, not a worker.
func (b Boundary) rescuer() bool { return b == RescuerAfterStuck }

// FaultKind is a kind of fault a target plan injects.
type FaultKind uint8

// The fault kinds.
const (
	FaultNone   FaultKind = iota
	Crash                 // an actor dies at a boundary: its connection closes, an open transaction rolls back
	Pause                 // an actor freezes at a boundary for a while (a zombie once its job is rescued)
	Slow                  // a document's work takes this long, past the stuck horizon, not watching its context
	Error                 // a document's handler returns an error (retried, or discarded at max attempts)
	CancelJob             // a document's handler asks to cancel its job (River's JobCancel)
	SnoozeJob             // a document's handler snoozes its job (River's JobSnooze)
	Duplicate             // a client inserts a document again (unique options: the same job)
	Retry                 // an operator asks a discarded or cancelled job to run again (JobRetry)
	FewAttempts           // a document's job is inserted with max_attempts Max instead of the run's
	faultKindCount
)

var faultNames = [faultKindCount]string{"none", "crash", "pause", "slow", "error", "cancel", "snooze", "dup", "retry", "few"}

func (k FaultKind) String() string {
	if k >= faultKindCount {
		return "fault?"
	}
	return faultNames[k]
}

// FaultKinds lists every fault kind.
func FaultKinds() []FaultKind {
	out := make([]FaultKind, 0, faultKindCount-1)
	for k := Crash; k < faultKindCount; k++ {
		out = append(out, k)
	}
	return out
}

// Fault is one fault. Actor faults (crash, pause) name an actor (Worker
// N from 1, 0 any; or the rescuer) and a boundary's Nth crossing by it;
// document faults name a document (from 1) and its attempt (0 every).
type Fault struct {
	Kind     FaultKind
	Worker   int // crash, pause: 1-based worker, 0 any
	Rescuer  bool
	At       Boundary
	Nth      int // crash, pause: the nth crossing (from 1)
	Doc      int // document faults
	Attempt  int // error, cancel, snooze, slow: that attempt only (0: every attempt)
	For      target.Time
	AtTime   target.Time // dup: when the client sends it again
	Max      int         // few: the document's max_attempts
	consumed bool
}

// String is the fault's text form, which Parse reads back.
func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(f.Kind.String())
	switch f.Kind {
	case Crash, Pause:
		switch {
		case f.Rescuer:
			b.WriteString(" rescuer")
		case f.Worker == 0:
			b.WriteString(" w=*")
		default:
			fmt.Fprintf(&b, " w=%d", f.Worker)
		}
		fmt.Fprintf(&b, " at=%s nth=%d", f.At, f.Nth)
		if f.Kind == Pause {
			fmt.Fprintf(&b, " for=%s", target.FormatSeconds(f.For))
		}
	case Duplicate:
		fmt.Fprintf(&b, " doc=%d at=%s", f.Doc, target.FormatSeconds(f.AtTime))
	case Retry:
		fmt.Fprintf(&b, " doc=%d", f.Doc)
	case FewAttempts:
		fmt.Fprintf(&b, " doc=%d max=%d", f.Doc, f.Max)
	default:
		fmt.Fprintf(&b, " doc=%d", f.Doc)
		if f.Attempt != 0 {
			fmt.Fprintf(&b, " attempt=%d", f.Attempt)
		}
		if f.Kind == Slow || f.Kind == SnoozeJob {
			fmt.Fprintf(&b, " for=%s", target.FormatSeconds(f.For))
		}
	}
	return b.String()
}

// Plan is a list of faults.
type Plan struct{ Faults []Fault }

// String is the plan's text: faults joined by "; ".
func (p Plan) String() string {
	parts := make([]string, len(p.Faults))
	for i, f := range p.Faults {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

// Without is the plan less fault i.
func (p Plan) Without(i int) Plan {
	return Plan{Faults: slices.Delete(slices.Clone(p.Faults), i, i+1)}
}

// maxFor bounds a pause, a slow work or a snooze (one virtual hour).
const maxFor = 3600 * target.Second

// Parse reads a plan: faults separated by ";" or new lines, each a kind
// and key=value fields ("crash w=2 at=after_effect nth=1", "pause rescuer
// at=rescuer_after_stuck nth=1 for=3s", "slow doc=3 for=25s",
// "error doc=2 attempt=1", "cancel doc=4", "snooze doc=5 for=3s",
// "dup doc=1 at=2s", "retry doc=2", "few doc=3 max=1"). Empty text is
// the empty plan.
func Parse(text string) (Plan, error) {
	var p Plan
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return r == ';' || r == '\n' }) {
		if strings.TrimSpace(part) == "" {
			continue
		}
		f, err := parseFault(strings.Fields(part))
		if err != nil {
			return Plan{}, fmt.Errorf("fault %d (%q): %w", len(p.Faults)+1, strings.TrimSpace(part), err)
		}
		p.Faults = append(p.Faults, f)
	}
	return p, nil
}

func parseFault(words []string) (Fault, error) {
	var f Fault
	for i, n := range faultNames {
		if i > 0 && n == words[0] {
			f.Kind = FaultKind(i)
		}
	}
	if f.Kind == FaultNone {
		return f, fmt.Errorf("unknown fault kind %q (want one of %s)", words[0], strings.Join(faultNames[1:], ", "))
	}
	var seen []string
	for _, w := range words[1:] {
		key, val, hasVal := strings.Cut(w, "=")
		if slices.Contains(seen, key) {
			return f, fmt.Errorf("%s given twice", key)
		}
		seen = append(seen, key)
		if err := f.set(key, val, hasVal); err != nil {
			return f, err
		}
	}
	return f, f.validate(seen)
}

func (f *Fault) set(key, val string, hasVal bool) error {
	if key == "rescuer" {
		if hasVal {
			return fmt.Errorf("rescuer takes no value")
		}
		f.Rescuer = true
		return nil
	}
	if !hasVal {
		return fmt.Errorf("%q: want key=value", key)
	}
	var err error
	switch key {
	case "w":
		if val != "*" {
			f.Worker, err = positive(key, val)
		}
	case "at":
		if f.Kind == Duplicate {
			f.AtTime, err = parseSeconds(key, val)
		} else {
			f.At, err = ParseBoundary(val)
		}
	case "nth":
		f.Nth, err = positive(key, val)
	case "doc":
		f.Doc, err = positive(key, val)
	case "attempt":
		f.Attempt, err = positive(key, val)
	case "max":
		f.Max, err = positive(key, val)
		if err == nil && f.Max > MaxMaxAttempts {
			err = fmt.Errorf("max=%s: want at most %d", val, MaxMaxAttempts)
		}
	case "for":
		f.For, err = parseSeconds(key, val)
		if err == nil && (f.For <= 0 || f.For > maxFor) {
			err = fmt.Errorf("for=%s: want above 0 and at most %s", val, target.FormatSeconds(maxFor))
		}
	default:
		err = fmt.Errorf("unknown field %q", key)
	}
	return err
}

// validate checks the fields the kind needs, and only those.
func (f *Fault) validate(seen []string) error {
	allowed := map[FaultKind][]string{
		Crash: {"w", "rescuer", "at", "nth"}, Pause: {"w", "rescuer", "at", "nth", "for"},
		Slow: {"doc", "attempt", "for"}, Error: {"doc", "attempt"}, CancelJob: {"doc", "attempt"},
		SnoozeJob: {"doc", "attempt", "for"}, Duplicate: {"doc", "at"}, Retry: {"doc"}, FewAttempts: {"doc", "max"},
	}[f.Kind]
	required := map[FaultKind][]string{
		Crash: {"at", "nth"}, Pause: {"at", "nth", "for"}, Slow: {"doc", "for"}, Error: {"doc"}, CancelJob: {"doc"},
		SnoozeJob: {"doc", "for"}, Duplicate: {"doc", "at"}, Retry: {"doc"}, FewAttempts: {"doc", "max"},
	}[f.Kind]
	for _, k := range seen {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("%s takes no %s", f.Kind, k)
		}
	}
	for _, k := range required {
		if !slices.Contains(seen, k) {
			return fmt.Errorf("%s needs %s=", f.Kind, k)
		}
	}
	if f.Kind == Crash || f.Kind == Pause {
		switch {
		case f.Rescuer && slices.Contains(seen, "w"):
			return fmt.Errorf("%s names the rescuer or a worker, not both", f.Kind)
		case f.Rescuer != f.At.rescuer():
			return fmt.Errorf("%s at %s: that boundary is the %s's", f.Kind, f.At, map[bool]string{true: "rescuer", false: "workers"}[f.At.rescuer()])
		case f.Kind == Pause && f.At == BeforeCommit:
			return fmt.Errorf("pause at %s: inside the handler's transaction a pause would hold the database for everyone; crash there instead", f.At)
		}
	}
	return nil
}

func positive(key, val string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, fmt.Errorf("%s=%s: want an integer from 1 to 1000000", key, val)
	}
	return n, nil
}

// parseSeconds reads "2s", "1.5s", "250ms" into virtual time.
func parseSeconds(key, val string) (target.Time, error) {
	unit, num := target.Second, strings.TrimSuffix(val, "s")
	if strings.HasSuffix(val, "ms") {
		unit, num = target.Millisecond, strings.TrimSuffix(val, "ms")
	} else if !strings.HasSuffix(val, "s") {
		return 0, fmt.Errorf("%s=%s: want a duration such as 2s or 250ms", key, val)
	}
	whole, frac, _ := strings.Cut(num, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 || w > 1_000_000 || len(frac) > 3 {
		return 0, fmt.Errorf("%s=%s: want a duration such as 2s or 250ms (at most millisecond precision)", key, val)
	}
	t := target.Time(w) * unit
	if frac != "" {
		if unit != target.Second {
			return 0, fmt.Errorf("%s=%s: want whole milliseconds", key, val)
		}
		f, err := strconv.Atoi(frac + strings.Repeat("0", 3-len(frac)))
		if err != nil || f < 0 {
			return 0, fmt.Errorf("%s=%s: want a duration such as 2s or 250ms", key, val)
		}
		t += target.Time(f) * target.Millisecond
	}
	return t, nil
}
