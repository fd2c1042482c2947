package faults

import (
	"math"

	"github.com/durasim/durasim/model"
)

// AnyWorker in [Fault.Worker] means the fault is not tied to one worker: it
// counts crossings of its boundary across all actors.
const AnyWorker int32 = -1

// Fault is one fault of a [Plan]. Which fields a kind uses is fixed (see the
// package documentation); fields a kind does not use are zero, except that a
// crash or pause at a boundary that is not a worker's has Worker ==
// [AnyWorker].
type Fault struct {
	Kind     Kind
	Boundary model.Boundary // Crash, Pause
	Worker   int32          // Crash, Pause: worker index (text wN) or AnyWorker (text *)
	Nth      int32          // 1-based: crossing of Boundary, broker publish or commit
	Doc      int32          // Transient, Permanent, Poison, DeadlinePressure: 1-based document
	Attempt  int32          // Transient: failing attempt, 0 = every attempt (text *)
	At       model.Time     // RateLimit: burst start since the run started
	For      model.Time     // Pause, Delay, RateLimit: duration; DeadlinePressure: deadline after creation
}

// Validate reports the first field that is out of range for the fault's
// kind, or a field the kind does not use that is not zero.
func (f Fault) Validate() error {
	if f.Kind >= KindCount {
		return fieldErrorf(fKind, "unknown fault kind %d", f.Kind)
	}
	if f.Kind.atBoundary() && (f.Boundary == model.NoBoundary || f.Boundary.Role() == model.RoleNone) {
		return fieldErrorf(fBoundary, "%s needs a boundary (%s)", f.Kind, boundaryList())
	}
	uses := f.fields()
	for fd := fBoundary; fd < fieldCount; fd++ {
		if err := f.check(fd, uses&fd.bit() != 0); err != nil {
			return err
		}
	}
	if f.Kind == RateLimit && f.For > math.MaxInt64-f.At {
		return fieldErrorf(fFor, "429 burst end at+for overflows")
	}
	return nil
}

// check validates one field: its range when the kind uses it, its zero (or
// AnyWorker) value when it does not.
func (f Fault) check(fd field, used bool) error {
	if !used {
		if f.value(fd) != f.unusedValue(fd) {
			return fieldErrorf(fd, "%s does not apply to %s", fd.name(f.Kind), f.describe())
		}
		return nil
	}
	switch fd {
	case fNth, fDoc:
		if f.value(fd) < 1 {
			return fieldErrorf(fd, "%s must be >= 1, got %d", fd.name(f.Kind), f.value(fd))
		}
	case fWorker:
		if f.Worker < AnyWorker {
			return fieldErrorf(fd, "malformed worker %d (want * or wN)", f.Worker)
		}
	case fAttempt:
		if f.Attempt < 0 {
			return fieldErrorf(fd, "attempt must be >= 1 or *, got %d", f.Attempt)
		}
	case fAt:
		if f.At < 0 {
			return fieldErrorf(fd, "at must be >= 0, got %s", duration(f.At))
		}
	case fFor:
		if f.For <= 0 {
			return fieldErrorf(fd, "%s must be > 0, got %s", fd.name(f.Kind), duration(f.For))
		}
	}
	return nil
}

// unusedValue is what a field the kind does not use must hold.
func (f Fault) unusedValue(fd field) int64 {
	if fd == fWorker && f.Kind.atBoundary() {
		return int64(AnyWorker)
	}
	return 0
}

// describe names the kind, and the boundary for a crash or pause, in messages.
func (f Fault) describe() string {
	if f.Kind.atBoundary() {
		return f.Kind.String() + " at " + f.Boundary.String()
	}
	return f.Kind.String()
}

// onWorkerBoundary reports whether the fault's boundary is crossed by workers.
func (f Fault) onWorkerBoundary() bool {
	return f.Kind.atBoundary() && f.Boundary.Role() == model.RoleWorker
}
