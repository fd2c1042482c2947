package faults

import (
	"math"

	"github.com/durasim/durasim/boundary"
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
	Worker   int32          // Crash, Pause: worker index from 0 (text wN) or AnyWorker (text *)
	Nth      int32          // 1-based: crossing of Boundary, broker publish or commit
	Doc      int32          // document faults: 1-based document
	Attempt  int32          // Transient, Slow, Cancel, Snooze: the attempt it strikes, 0 = every attempt (text *)
	At       model.Time     // RateLimit: burst start; ResubmitAt: when; both since the run started
	For      model.Time     // Pause, Delay, RateLimit, Slow, Snooze: duration; DeadlinePressure: deadline after creation
	Max      int32          // FewAttempts: the document's max attempts
}

// Validate reports the first thing wrong with f as a fault of the
// pipeline ([Pipeline]): a kind or boundary the pipeline does not have, a
// field out of range for the kind, or a field the kind does not use that
// is not zero. [Vocabulary.Check] does the same for another system.
func (f Fault) Validate() error { return Pipeline.Check(f) }

// shape checks the fields of a fault of a known kind at a real boundary:
// those the kind uses in range, the others zero (or AnyWorker).
func (f Fault) shape() error {
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
	case fNth, fDoc, fMax:
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

// onWorkerBoundary reports whether the fault's boundary is crossed by
// workers: only then does it name one (worker=).
func (f Fault) onWorkerBoundary() bool {
	return f.Kind.atBoundary() && f.Boundary.Actor() == boundary.Worker
}
