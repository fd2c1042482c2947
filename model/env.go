package model

import "time"

// Clock is the Now/Since/Until part of github.com/benbjohnson/clock's Clock.
// The scheduler's virtual clock, clock.New() and *clock.Mock all satisfy it.
type Clock interface {
	Now() time.Time
	Since(t time.Time) time.Duration
	Until(t time.Time) time.Duration
}

// Rand is the randomness the model needs (retry jitter only).
type Rand interface {
	Int64N(n int64) int64
}

// Time is a model instant: nanoseconds since the system's epoch.
type Time = int64

// Recorder receives every event the model produces. The simulator hashes,
// prints and checks them; tests may collect them in a slice.
type Recorder interface {
	Record(e *Event)
}

// Discard is a Recorder that drops events.
var Discard Recorder = discard{}

type discard struct{}

func (discard) Record(*Event) {}
