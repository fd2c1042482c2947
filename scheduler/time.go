package scheduler

import (
	"strconv"
	"time"
)

// Time is virtual time: nanoseconds since [Epoch].
type Time int64

// Epoch is the fixed wall-clock instant that virtual time 0 maps to. It is a
// constant so traces and reports never depend on when a run happened.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Common durations as virtual time.
const (
	Nanosecond  Time = 1
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
	Minute           = 60 * Second
)

// Wall converts virtual time to the wall-clock instant it stands for.
func (t Time) Wall() time.Time { return Epoch.Add(time.Duration(t)) }

// FromWall converts a wall-clock instant back to virtual time.
func FromWall(w time.Time) Time { return Time(w.Sub(Epoch)) }

// Duration returns t as a time.Duration (useful when t is a span).
func (t Time) Duration() time.Duration { return time.Duration(t) }

// String prints t in milliseconds with up to three decimals, the unit traces
// use ("1234.5ms"). It is stable across platforms.
func (t Time) String() string { return string(t.AppendMillis(nil)) + "ms" }

// AppendMillis appends t as milliseconds (integer part, and a fractional part
// without trailing zeros when t is not a whole millisecond).
func (t Time) AppendMillis(b []byte) []byte {
	neg := t < 0
	if neg {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t/Millisecond), 10)
	frac := int64(t % Millisecond)
	if frac == 0 {
		return b
	}
	frac /= 1000 // microsecond precision is plenty for traces
	if frac == 0 {
		return b
	}
	b = append(b, '.')
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for n > 0 && digits[n-1] == '0' {
		n--
	}
	return append(b, digits[:n]...)
}
