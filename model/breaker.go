package model

// BreakerState is the circuit breaker's state (seed 003).
type BreakerState uint8

// Breaker states.
const (
	Closed BreakerState = iota
	Open
	HalfOpen
)

func (b BreakerState) String() string {
	return enumName([]string{"closed", "open", "half-open"}, b, "breaker")
}

// Breaker is the per-queue circuit breaker: closed → open when the failure
// ratio over the last Window outcomes crosses the threshold (no leases while
// open) → half-open after the cool-down, admitting at most Canaries jobs →
// closed when they all succeed, open again when one fails. A canary whose
// worker died never reports, so a round of canaries that gave no verdict
// within a cool-down is given up and a new round admitted; without that, a
// single crashed canary would keep the queue closed for good.
type Breaker struct {
	cfg      BreakerConfig
	state    BreakerState
	window   []bool // ring of recent outcomes, true = failure
	next     int
	filled   int
	failures int
	openedAt Time
	probeAt  Time  // when the current round of canaries was admitted
	admitted int32 // canaries leased while half-open
	passed   int32 // canaries that succeeded
}

// newBreaker returns a closed breaker; its window reuses buf's array when
// it is large enough.
func newBreaker(c BreakerConfig, buf []bool) Breaker {
	w := buf[:0]
	if cap(w) < int(c.Window) {
		w = make([]bool, c.Window)
	}
	w = w[:c.Window]
	clear(w)
	return Breaker{cfg: c, window: w}
}

// allow says whether a lease may be granted now, consuming a canary slot
// while half-open.
func (b *Breaker) allow(s *System, now Time) bool {
	switch b.state {
	case Open:
		if now-b.openedAt < b.cfg.Cooldown {
			return false
		}
		b.transition(s, HalfOpen)
		b.probeAt = now
		fallthrough
	case HalfOpen:
		if b.admitted >= b.cfg.Canaries && now-b.probeAt >= b.cfg.Cooldown {
			b.admitted, b.probeAt = b.passed, now
		}
		if b.admitted >= b.cfg.Canaries {
			return false
		}
		b.admitted++
	}
	return true
}

// release returns a canary slot that was not used for a lease.
func (b *Breaker) release() {
	if b.state == HalfOpen && b.admitted > 0 {
		b.admitted--
	}
}

// report feeds one attempt's outcome.
func (b *Breaker) report(s *System, now Time, failure bool) {
	switch b.state {
	case HalfOpen:
		if failure {
			b.openedAt = now
			b.transition(s, Open)
			return
		}
		b.passed++
		if b.passed >= b.cfg.Canaries {
			b.transition(s, Closed)
		}
	case Closed:
		b.observe(failure)
		if b.filled >= int(b.cfg.MinSamples) && int64(b.failures)*1_000_000 >= b.cfg.ThresholdPPM*int64(b.filled) {
			b.openedAt = now
			b.transition(s, Open)
		}
	}
}

func (b *Breaker) observe(failure bool) {
	if b.filled == len(b.window) {
		if b.window[b.next] {
			b.failures--
		}
	} else {
		b.filled++
	}
	b.window[b.next] = failure
	if failure {
		b.failures++
	}
	b.next = (b.next + 1) % len(b.window)
}

func (b *Breaker) transition(s *System, to BreakerState) {
	b.state = to
	b.admitted, b.passed = 0, 0
	if to == Closed {
		clear(b.window)
		b.next, b.filled, b.failures = 0, 0, 0
	}
	e := s.event(EvBreaker, Actor{Role: RoleSim})
	e.Text, e.OK = "state="+to.String(), true
	s.emit(e)
}
