package faults

import (
	"strconv"
	"time"

	"github.com/durasim/durasim/model"
)

// String is the fault's canonical one-line text form, which [Parse] reads
// back: the kind, the boundary for a crash or pause, then key=value fields
// in a fixed order.
func (f Fault) String() string { return string(f.appendText(nil)) }

func (f Fault) appendText(b []byte) []byte {
	b = append(b, f.Kind.String()...)
	if f.Kind.atBoundary() {
		b = append(b, ' ')
		b = append(b, f.Boundary.String()...)
	}
	uses := f.fields()
	for fd := fNth; fd < fieldCount; fd++ {
		if uses&fd.bit() == 0 {
			continue
		}
		b = append(b, ' ')
		b = append(b, fd.name(f.Kind)...)
		b = append(b, '=')
		b = f.appendValue(b, fd)
	}
	return b
}

// appendValue prints one field's value: workers as * or wN, attempt 0 as *,
// times as Go durations.
func (f Fault) appendValue(b []byte, fd field) []byte {
	switch {
	case fd == fWorker && f.Worker == AnyWorker, fd == fAttempt && f.Attempt == 0:
		return append(b, '*')
	case fd == fWorker:
		return strconv.AppendInt(append(b, 'w'), int64(f.Worker), 10)
	case fd == fAt || fd == fFor:
		return append(b, duration(f.value(fd))...)
	}
	return strconv.AppendInt(b, f.value(fd), 10)
}

// String prints one fault per line, each ending in a newline; the empty plan
// prints as "".
func (p Plan) String() string {
	var b []byte
	for _, f := range p.Faults {
		b = append(f.appendText(b), '\n')
	}
	return string(b)
}

// OneLine prints the faults joined by "; ", to fit one shell argument.
func (p Plan) OneLine() string {
	var b []byte
	for i, f := range p.Faults {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = f.appendText(b)
	}
	return string(b)
}

// duration prints a span the way time.ParseDuration reads it back exactly.
func duration(d model.Time) string { return time.Duration(d).String() }
