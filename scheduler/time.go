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
func (t Time) AppendMillis(b []byte) []byte { return AppendMillis(b, int64(t)) }

// AppendMillis appends ns nanoseconds as milliseconds with microsecond
// precision ("1.5", "-3", "0"); it works on the unsigned magnitude so the
// most negative value prints correctly, and never prints "-0".
func AppendMillis(b []byte, ns int64) []byte {
	mag := uint64(ns)
	if ns < 0 {
		mag = -mag
	}
	us := mag / 1000
	if us == 0 {
		return append(b, '0')
	}
	if ns < 0 {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	return append(append(b, '.'), digits[:n]...)
}
