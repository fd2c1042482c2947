package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// ParseTraceLine reads a trace line ("t=12.5ms #7 lease w1 j3 ...") back
// into its event, at the precision the line prints (see
// model.ParseEventText): the inverse that makes a kept trace a record of
// the run rather than a rendering of it.
func ParseTraceLine(line string) (model.Event, error) {
	at, rest, ok := strings.Cut(strings.TrimPrefix(line, "t="), "ms #")
	if !ok || !strings.HasPrefix(line, "t=") {
		return model.Event{}, fmt.Errorf("trace line %q has no t=...ms #seq prefix", line)
	}
	seq, text, _ := strings.Cut(rest, " ")
	n, err := strconv.ParseUint(seq, 10, 64)
	if err != nil {
		return model.Event{}, fmt.Errorf("trace line %q: bad sequence number", line)
	}
	e, err := model.ParseEventText(text)
	if err != nil {
		return e, fmt.Errorf("trace line %q: %v", line, err)
	}
	if e.At, err = model.ParseMillis(at + "ms"); err != nil {
		return e, fmt.Errorf("trace line %q: %v", line, err)
	}
	e.Seq = n
	return e, nil
}

// printed is e as its trace line can carry it: times and durations to the
// microsecond, the payload's low 32 bits.
func printed(e model.Event) model.Event {
	us := func(t model.Time) model.Time { return t / 1000 * 1000 }
	e.At, e.Payload = us(e.At), uint64(uint32(e.Payload))
	if e.IsDuration(0) {
		e.N = us(e.N)
	}
	if e.IsDuration(1) {
		e.N2 = us(e.N2)
	}
	return e
}
