package faults

import (
	"fmt"
	"slices"
	"strings"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/model"
)

// Vocabulary is what one system's fault plans may say: the boundaries it
// has (its [boundary.Set], whose name names the system in messages), the
// fault kinds it has, and the limits of its plans. One grammar reads every
// system's plans ([Vocabulary.Parse]); [Parse] reads the pipeline's.
type Vocabulary struct {
	boundaries boundary.Set
	kinds      []Kind
	limits     Limits
}

// Limits are a system's rules for its plans beyond each kind's fields.
type Limits struct {
	// CrashOnly are boundaries where a pause is refused, for the reason
	// Why (inside a transaction, a pause would hold the database).
	CrashOnly []boundary.Boundary
	Why       string
	// Tick: every duration (at=, for=) is a whole multiple of it; 0: any.
	Tick model.Time
	// MaxFor bounds every for= duration; 0: no bound.
	MaxFor model.Time
}

// maxZone is the farthest a time zone is behind UTC (Pacific/Pago_Pago,
// UTC-11, and a day's worth of margin up to UTC-12).
const maxZone = 12 * 3600 * 1_000_000_000

// NewVocabulary declares a system's vocabulary: its boundaries, its kinds
// (in the order messages list them and generators draw them) and limits.
// It panics on an unknown or repeated kind, two kinds of one name, or a
// crash-only boundary the set lacks: a declaration is code.
func NewVocabulary(bs boundary.Set, kinds []Kind, l Limits) *Vocabulary {
	for i, k := range kinds {
		if k >= KindCount || slices.ContainsFunc(kinds[:i], func(o Kind) bool { return o.String() == k.String() }) {
			panic(fmt.Sprintf("faults: NewVocabulary(%q): bad or repeated kind %v", bs.System(), k))
		}
	}
	for _, b := range l.CrashOnly {
		if !bs.Has(b) {
			panic(fmt.Sprintf("faults: NewVocabulary(%q): crash-only boundary %v is not the system's", bs.System(), b))
		}
	}
	l.CrashOnly = slices.Clone(l.CrashOnly)
	return &Vocabulary{boundaries: bs, kinds: slices.Clone(kinds), limits: l}
}

// Pipeline is the pipeline's vocabulary (package model): its boundaries
// and the fifteen kinds its simulator injects.
var Pipeline = NewVocabulary(model.BoundarySet, []Kind{Crash, Pause, Duplicate, Delay, Reorder, Transient, Permanent,
	Poison, RateLimit, AmbiguousCommit, DeadlinePressure, Resubmit, ResubmitEdited, CrashLoop, Malformed}, Limits{})

// System names the vocabulary's system, for messages.
func (v *Vocabulary) System() string { return v.boundaries.System() }

// Boundaries is the system's boundary set.
func (v *Vocabulary) Boundaries() boundary.Set { return v.boundaries }

// Kinds lists the system's fault kinds, in declaration order.
func (v *Vocabulary) Kinds() []Kind { return slices.Clone(v.kinds) }

// Has reports whether the system has fault kind k.
func (v *Vocabulary) Has(k Kind) bool { return slices.Contains(v.kinds, k) }

// kindNames lists the system's kind names, comma-separated, for messages.
func (v *Vocabulary) kindNames() string {
	names := make([]string, len(v.kinds))
	for i, k := range v.kinds {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

// LookupKind finds the system's kind of a name. The error is one line: an
// unknown name, or a kind of another system, with the system's kinds.
func (v *Vocabulary) LookupKind(name string) (Kind, error) {
	known := false
	for k := range KindCount {
		if k.String() != name {
			continue
		}
		if v.Has(k) {
			return k, nil
		}
		known = true
	}
	if known {
		return 0, fmt.Errorf("%s has no fault kind %s (it has %s)", v.System(), name, v.kindNames())
	}
	return 0, fmt.Errorf("unknown fault kind %q (%s has %s)", name, v.System(), v.kindNames())
}

// Check reports the first thing wrong with f as a fault of this system: a
// kind or boundary it does not have, a field out of range for the kind
// or past the system's limits, or a field the kind does not use that is
// not zero.
func (v *Vocabulary) Check(f Fault) error {
	switch {
	case f.Kind >= KindCount:
		return fieldErrorf(fKind, "unknown fault kind %d", f.Kind)
	case !v.Has(f.Kind):
		return fieldErrorf(fKind, "%s has no fault kind %s (it has %s)", v.System(), f.Kind, v.kindNames())
	case f.Kind.atBoundary() && (f.Boundary == boundary.None || f.Boundary >= boundary.Count):
		return fieldErrorf(fBoundary, "%s needs a boundary (%s has %s)", f.Kind, v.System(), v.boundaries.Names())
	case f.Kind.atBoundary() && !v.boundaries.Has(f.Boundary):
		return fieldErrorf(fBoundary, "%s has no boundary %s (it has %s)", v.System(), f.Boundary, v.boundaries.Names())
	}
	if err := f.shape(); err != nil {
		return err
	}
	return v.checkLimits(f)
}

// checkLimits applies the system's limits to a well-formed fault.
func (v *Vocabulary) checkLimits(f Fault) error {
	l := v.limits
	if f.Kind == Pause && slices.Contains(l.CrashOnly, f.Boundary) {
		return fieldErrorf(fBoundary, "pause at %s: %s", f.Boundary, l.Why)
	}
	uses := f.fields()
	for _, fd := range [...]field{fAt, fFor} {
		switch d := f.value(fd); {
		case uses&fd.bit() == 0:
		case l.Tick > 0 && d%l.Tick != 0:
			return fieldErrorf(fd, "%s=%s: %s takes whole multiples of %s", fd.name(f.Kind), duration(d), v.System(), duration(l.Tick))
		case fd == fFor && f.Kind == Zone && d > maxZone:
			return fieldErrorf(fd, "a zone is at most %s behind UTC, got %s", duration(maxZone), duration(d))
		case fd == fFor && l.MaxFor > 0 && d > l.MaxFor && f.Kind != Zone:
			return fieldErrorf(fd, "%s must be at most %s, got %s", fd.name(f.Kind), duration(l.MaxFor), duration(d))
		}
	}
	return nil
}

// Validate reports the plan's first fault that is not this system's,
// prefixed with its number.
func (v *Vocabulary) Validate(p Plan) error {
	for i, f := range p.Faults {
		if err := v.Check(f); err != nil {
			return fmt.Errorf("fault %d (%s): %w", i+1, f, err)
		}
	}
	return nil
}
