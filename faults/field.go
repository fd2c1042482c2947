package faults

import "fmt"

// field names one part of a fault's text form. Keyed fields print in this
// order, after the kind and the (positional) boundary.
type field uint8

const (
	fKind field = iota
	fBoundary
	fNth
	fWorker
	fDoc
	fAttempt
	fAt
	fFor
	fMax
	fieldCount
)

var fieldNames = [fieldCount]string{"kind", "boundary", "nth", "worker", "doc", "attempt", "at", "for", "max"}

func (fd field) bit() uint16 { return 1 << fd }

// name is the field's key in the text form: a deadline's duration is
// "within", everything else's is "for".
func (fd field) name(k Kind) string {
	if fd == fFor && k == DeadlinePressure {
		return "within"
	}
	return fieldNames[fd]
}

// kindFields is the set of fields each kind uses (worker is added for
// boundaries that workers cross).
var kindFields = [KindCount]uint16{
	Crash:            fBoundary.bit() | fNth.bit(),
	Pause:            fBoundary.bit() | fNth.bit() | fFor.bit(),
	Duplicate:        fNth.bit(),
	Delay:            fNth.bit() | fFor.bit(),
	Reorder:          fNth.bit(),
	Transient:        fDoc.bit() | fAttempt.bit(),
	Permanent:        fDoc.bit(),
	Poison:           fDoc.bit(),
	RateLimit:        fAt.bit() | fFor.bit(),
	AmbiguousCommit:  fNth.bit(),
	DeadlinePressure: fDoc.bit() | fFor.bit(),
	Resubmit:         fDoc.bit(),
	ResubmitEdited:   fDoc.bit(),
	CrashLoop:        fDoc.bit(),
	Malformed:        fDoc.bit(),
	Slow:             fDoc.bit() | fAttempt.bit() | fFor.bit(),
	Cancel:           fDoc.bit() | fAttempt.bit(),
	Snooze:           fDoc.bit() | fAttempt.bit() | fFor.bit(),
	ResubmitAt:       fDoc.bit() | fAt.bit(),
	Redrive:          fDoc.bit(),
	FewAttempts:      fDoc.bit() | fMax.bit(),
	ClockAhead:       fWorker.bit() | fAt.bit() | fFor.bit(),
	ClockBehind:      fWorker.bit() | fAt.bit() | fFor.bit(),
	Zone:             fFor.bit(),
	DST:              fAt.bit() | fFor.bit(),
	OutsideCancel:    fDoc.bit() | fAttempt.bit(),
	Delete:           fDoc.bit(),
	Metadata:         fDoc.bit(),
	OutOfBand:        fDoc.bit() | fAttempt.bit(),
	BatchInsert:      fDoc.bit() | fAt.bit(),
	WorkerTimeout:    fDoc.bit() | fFor.bit(),
	NoTimeout:        fDoc.bit(),
}

// fields is the set of fields f's kind uses at f's boundary.
func (f Fault) fields() uint16 {
	if f.Kind >= KindCount {
		return 0
	}
	uses := kindFields[f.Kind]
	if f.onWorkerBoundary() {
		uses |= fWorker.bit()
	}
	return uses
}

// value is a field's value as an int64.
func (f Fault) value(fd field) int64 {
	switch fd {
	case fKind:
		return int64(f.Kind)
	case fBoundary:
		return int64(f.Boundary)
	case fNth:
		return int64(f.Nth)
	case fWorker:
		return int64(f.Worker)
	case fDoc:
		return int64(f.Doc)
	case fAttempt:
		return int64(f.Attempt)
	case fAt:
		return f.At
	case fFor:
		return f.For
	case fMax:
		return int64(f.Max)
	}
	return 0
}

// fieldError is a problem with one field; Parse turns the field into the
// column of its token.
type fieldError struct {
	field field
	msg   string
}

func (e *fieldError) Error() string { return e.msg }

func fieldErrorf(fd field, format string, args ...any) error {
	return &fieldError{field: fd, msg: fmt.Sprintf(format, args...)}
}
