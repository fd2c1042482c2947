package model

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseEventText reads an event back from its trace form ([Event.AppendText]):
// the inverse that makes a trace a faithful record. It recovers every field
// at the precision the line prints: the low 32 bits of Payload, and
// durations (the '~' numbers) to the microsecond. Text is the rest of the
// line before a final " ok"; a Text that itself ended in " ok", or began
// like a number label of its kind when that number is zero, would read
// back otherwise (no event the simulator makes does either).
func ParseEventText(line string) (Event, error) {
	p := eventParser{rest: line}
	kind, _ := p.word()
	var e Event
	var ok bool
	if e.Kind, ok = kindByName(kind); !ok {
		return e, fmt.Errorf("unknown event kind %q", kind)
	}
	p.actor(&e)
	p.fields(&e)
	if err := p.numbers(&e); err != nil {
		return e, err
	}
	if t, isOK := strings.CutSuffix(p.rest, " ok"); isOK || p.rest == "ok" {
		e.OK, p.rest = true, strings.TrimSuffix(t, "ok")
	}
	e.Text = strings.TrimPrefix(p.rest, " ")
	return e, p.err
}

// eventParser consumes a trace line from the front.
type eventParser struct {
	rest string
	err  error
}

// word takes the next space-separated word.
func (p *eventParser) word() (string, bool) {
	s := strings.TrimPrefix(p.rest, " ")
	if s == "" {
		return "", false
	}
	w, after, _ := strings.Cut(s, " ")
	p.rest = " " + after
	if after == "" {
		p.rest = ""
	}
	return w, true
}

// field takes " key=value" if the line goes on with it.
func (p *eventParser) field(key string) (string, bool) {
	prefix := " " + key + "="
	if !strings.HasPrefix(p.rest, prefix) {
		return "", false
	}
	v, after, more := strings.Cut(p.rest[len(prefix):], " ")
	p.rest = ""
	if more {
		p.rest = " " + after
	}
	return v, true
}

// actor takes the actor, if the next word is one.
func (p *eventParser) actor(e *Event) {
	s := strings.TrimPrefix(p.rest, " ")
	w, _, _ := strings.Cut(s, " ")
	if a, ok := parseActor(w); ok {
		e.Actor = a
		p.word()
	}
}

// parseActor reads "w3", "w3.2", "relay.1", "client4"...
func parseActor(w string) (Actor, bool) {
	name, inc, hasInc := strings.Cut(w, ".")
	var a Actor
	if hasInc {
		n, err := strconv.ParseInt(inc, 10, 32)
		if err != nil || n <= 0 {
			return a, false
		}
		a.Incarnation = int32(n)
	}
	for r := RoleNone + 1; r < roleCount; r++ {
		id, ok := strings.CutPrefix(name, roleNames[r])
		if !ok {
			continue
		}
		if r != RoleWorker && r != RoleClient {
			if id == "" {
				a.Role = r
				return a, true
			}
			continue
		}
		if n, err := strconv.ParseInt(id, 10, 32); err == nil && id != "" {
			a.Role, a.ID = r, int32(n)
			return a, true
		}
	}
	return a, false
}

// fields takes the identifying fields, in the order AppendText writes them.
func (p *eventParser) fields(e *Event) {
	if strings.HasPrefix(p.rest, " j") {
		if n, err := strconv.ParseInt(firstWord(p.rest[2:]), 10, 64); err == nil {
			e.Job = JobID(n)
			p.word()
		}
	}
	if v, ok := p.field("other"); ok {
		e.Other = JobID(p.int(strings.TrimPrefix(v, "j")))
	}
	if v, ok := p.field("tenant"); ok {
		e.Tenant = v
	}
	if v, ok := p.field("key"); ok {
		e.Key = v
	}
	if v, ok := p.field("payload"); ok {
		n, err := strconv.ParseUint(v, 16, 32)
		p.fail(err)
		e.Payload = n
	}
	if v, ok := p.field("stage"); ok {
		st, found := byName(stageNames[:], v)
		p.failIf(!found, "stage", v)
		e.Stage, e.HasStage = Stage(st), true
	}
	if v, ok := p.field("fence"); ok {
		n, err := strconv.ParseUint(v, 10, 64)
		p.fail(err)
		e.Fence = n
	}
	if v, ok := p.field("attempt"); ok {
		e.Attempt = int32(p.int(v))
	}
	if v, ok := p.field("event"); ok {
		e.EventID = EventID(p.int(strings.TrimPrefix(v, "e")))
	}
	if v, ok := p.field("code"); ok {
		c, found := byName(codeNames[:], v)
		p.failIf(!found, "code", v)
		e.Code = Code(c)
	}
	if v, ok := p.field("at"); ok {
		b, found := byName(boundaryNames[:], v)
		p.failIf(!found, "boundary", v)
		e.Boundary = Boundary(b)
	}
}

// numbers takes N and N2 under their kind's labels.
func (p *eventParser) numbers(e *Event) error {
	labels := e.labels()
	for i, dst := range [2]*int64{&e.N, &e.N2} {
		label := labels[i]
		v, ok := p.field(strings.TrimPrefix(label, "~"))
		if !ok {
			continue
		}
		if label[0] != '~' {
			*dst = p.int(v)
			continue
		}
		ns, err := ParseMillis(v)
		if err != nil {
			return err
		}
		*dst = ns
	}
	return nil
}

// ParseMillis reads appendMillis's "12.345ms" back into nanoseconds.
func ParseMillis(v string) (Time, error) {
	num, ok := strings.CutSuffix(v, "ms")
	if !ok {
		return 0, fmt.Errorf("duration %q is not in milliseconds", v)
	}
	neg := strings.HasPrefix(num, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(num, "-"), ".")
	ms, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || len(frac) > 3 {
		return 0, fmt.Errorf("bad duration %q", v)
	}
	us := int64(0)
	if frac != "" {
		if us, err = strconv.ParseInt((frac + "00")[:3], 10, 64); err != nil {
			return 0, fmt.Errorf("bad duration %q", v)
		}
	}
	ns := ms*int64(Millisecond) + us*1000
	if neg {
		ns = -ns
	}
	return ns, nil
}

func (p *eventParser) int(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	p.fail(err)
	return n
}

func (p *eventParser) fail(err error) {
	if err != nil && p.err == nil {
		p.err = err
	}
}

func (p *eventParser) failIf(bad bool, what, v string) {
	if bad {
		p.fail(errors.New("unknown " + what + " " + strconv.Quote(v)))
	}
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// byName finds name among an enum's names.
func byName(names []string, name string) (int, bool) {
	for i, n := range names {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

func kindByName(name string) (EventKind, bool) {
	k, ok := byName(eventKindNames[:], name)
	return EventKind(k), ok && k != int(EvNone)
}

// IsDuration reports whether e's number i (0: N, 1: N2) is a duration,
// which its trace line prints in milliseconds.
func (e *Event) IsDuration(i int) bool { return strings.HasPrefix(e.labels()[i], "~") }
