package faults

import (
	"strconv"
	"strings"
	"time"

	"github.com/durasim/durasim/model"
)

// boundary reads the positional boundary that follows a crash or pause.
func (p *faultParser) boundary(toks []token) *posError {
	if len(toks) < 2 || strings.Contains(toks[1].text, "=") {
		col := toks[0].col
		if len(toks) > 1 {
			col = toks[1].col
		}
		bs := p.v.boundaries
		return errorAt(col, "%s needs a boundary before its fields (%s has %s)", p.f.Kind, bs.System(), bs.Names())
	}
	b, err := p.v.boundaries.Lookup(toks[1].text)
	if err != nil {
		return errorAt(toks[1].col, "%v", err)
	}
	p.f.Boundary, p.f.Worker = b, AnyWorker
	p.cols[fBoundary] = toks[1].col
	return nil
}

// keyValue reads one key=value field.
func (p *faultParser) keyValue(t token) *posError {
	key, val, ok := strings.Cut(t.text, "=")
	if !ok {
		return errorAt(t.col, "expected key=value, got %q", t.text)
	}
	fd, ok := p.key(key)
	switch {
	case !ok && key == "worker" && p.f.Kind.atBoundary():
		return errorAt(t.col, "worker given for non-worker boundary %s", p.f.Boundary)
	case !ok:
		return errorAt(t.col, "unknown key %q for %s (want %s)", key, p.f.Kind, p.keys())
	case p.seen&fd.bit() != 0:
		return errorAt(t.col, "duplicate key %s", key)
	}
	p.seen |= fd.bit()
	p.cols[fd] = t.col + len(key) + 1
	if msg := p.set(fd, val); msg != "" {
		return errorAt(p.cols[fd], "%s", msg)
	}
	return nil
}

// key finds the field a key names among those the fault uses.
func (p *faultParser) key(key string) (field, bool) {
	uses := p.f.fields()
	for fd := fNth; fd < fieldCount; fd++ {
		if uses&fd.bit() != 0 && fd.name(p.f.Kind) == key {
			return fd, true
		}
	}
	return 0, false
}

// keys lists the keys the fault takes, for error messages.
func (p *faultParser) keys() string {
	var names []string
	uses := p.f.fields()
	for fd := fNth; fd < fieldCount; fd++ {
		if uses&fd.bit() != 0 {
			names = append(names, fd.name(p.f.Kind))
		}
	}
	if len(names) == 0 {
		return "no keys"
	}
	return strings.Join(names, ", ")
}

// set parses a field's value into the fault; it returns a message on error.
func (p *faultParser) set(fd field, val string) string {
	name := fd.name(p.f.Kind)
	var ok bool
	switch fd {
	case fNth:
		p.f.Nth, ok = parseInt32(val)
	case fDoc:
		p.f.Doc, ok = parseInt32(val)
	case fMax:
		p.f.Max, ok = parseInt32(val)
	case fWorker:
		if p.f.Worker, ok = parseWorker(val); !ok {
			return "malformed worker " + strconv.Quote(val) + " (want * or wN)"
		}
	case fAttempt:
		if p.f.Attempt, ok = parseAttempt(val); !ok {
			return "bad attempt " + strconv.Quote(val) + " (want a number >= 1, or * for every attempt)"
		}
	case fAt, fFor:
		return p.setDuration(fd, val)
	}
	if !ok {
		return "bad number " + strconv.Quote(val) + " for " + name + " (want an integer)"
	}
	return ""
}

func (p *faultParser) setDuration(fd field, val string) string {
	d, err := time.ParseDuration(val)
	if err != nil {
		return "bad duration " + strconv.Quote(val) + " for " + fd.name(p.f.Kind) + " (want e.g. 500ms or 2s)"
	}
	if fd == fAt {
		p.f.At = model.Time(d)
	} else {
		p.f.For = model.Time(d)
	}
	return ""
}

// parseInt32 reads a decimal integer with an optional '-' (no '+').
func parseInt32(s string) (int32, bool) {
	if s == "" || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int32(n), err == nil
}

// parseWorker reads * (any worker) or wN.
func parseWorker(s string) (int32, bool) {
	if s == "*" {
		return AnyWorker, true
	}
	digits, ok := strings.CutPrefix(s, "w")
	if !ok || digits == "" || digits[0] < '0' || digits[0] > '9' {
		return 0, false
	}
	return parseInt32(digits)
}

// parseAttempt reads * (every attempt, 0) or a number >= 1.
func parseAttempt(s string) (int32, bool) {
	if s == "*" {
		return 0, true
	}
	n, ok := parseInt32(s)
	return n, ok && n >= 1
}
