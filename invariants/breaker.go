package invariants

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/model"
)

// Circuit breaker (seed 003), replayed by a reference of the oracle's own
// over the attempt outcomes the history shows (an ack is a success; a
// failure the queue decided on — retry, dead letter or cancel — is a
// failure, except a call cut at its job's deadline, which is neither): closed → open when the failures among the last Window outcomes
// reach the threshold (after MinSamples); no lease while open; half-open
// only after the cool-down, with at most Canaries leases per round; closed
// after Canaries successes, open again at a failure. The model announces a
// transition (EvBreaker) just before the outcome event that caused it, so
// an announced transition is judged at the next outcome.

// breakerRef is the oracle's breaker.
type breakerRef struct {
	state       model.BreakerState // as last announced
	seq         uint64             // that announcement
	openedAt    model.Time
	halfAt      model.Time
	halfSeq     uint64 // the half-open announcement
	halfLeases  int32
	halfAcks    int32      // canaries that succeeded since it went half-open
	admitted    int32      // canary slots taken in the current round (a lease; a cancel or dead letter at a lease gives its slot back)
	probeAt     model.Time // when the current round of canaries began
	pending     uint64     // an outcome-driven announcement not yet judged
	pendingTo   model.BreakerState
	pendingFrom model.BreakerState
	window      []bool // outcomes since the last close, a ring; true = failure
	next        int
	filled      int
	failures    int
	lastSeq     uint64 // the last outcome fed
	stopSeq     uint64 // the last announcement of open or half-open
}

// reset makes the reference a closed breaker with an empty window.
func (b *breakerRef) reset(c model.BreakerConfig) {
	w := b.window[:0]
	if n := int(c.Window); n > 0 {
		w = append(w, make([]bool, n)...)
	}
	*b = breakerRef{window: w}
}

// parseBreakerState reads "state=open" and the like.
func parseBreakerState(text string) (model.BreakerState, bool) {
	v, ok := strings.CutPrefix(text, "state=")
	if !ok {
		return 0, false
	}
	for _, st := range [...]model.BreakerState{model.Closed, model.Open, model.HalfOpen} {
		if st.String() == v {
			return st, true
		}
	}
	return 0, false
}

// breakerEvent judges an announced transition.
func (s *Suite) breakerEvent(e *model.Event) {
	to, ok := parseBreakerState(e.Text)
	if !ok || !e.OK {
		return
	}
	b, c := &s.brk, s.cfg.Model.Breaker
	from := b.state
	switch {
	case from == model.Open && to == model.HalfOpen:
		if c.Cooldown > 0 && e.At-b.openedAt < c.Cooldown {
			s.report(Breaker, 0, fmt.Sprintf("breaker half-open at %s, %s after it opened: before the cool-down of %s",
				millis(e.At), millis(e.At-b.openedAt), millis(c.Cooldown)), b.seq, e.Seq)
		}
		b.halfAt, b.halfSeq, b.halfLeases, b.halfAcks = e.At, e.Seq, 0, 0
		b.admitted, b.probeAt = 0, e.At
	case from == model.Closed && to == model.Open, from == model.HalfOpen && to == model.Open,
		from == model.HalfOpen && to == model.Closed:
		b.pending, b.pendingTo, b.pendingFrom = e.Seq, to, from
	default:
		s.report(Breaker, 0, fmt.Sprintf("breaker went from %v to %v", from, to), b.seq, e.Seq)
	}
	if to == model.Open {
		b.openedAt = e.At
	}
	if to != model.Closed {
		b.stopSeq = e.Seq
	}
	b.state, b.seq = to, e.Seq
}

// breakerLease checks a lease against the breaker: none while open, a
// bounded number of canaries while half-open.
func (s *Suite) breakerLease(e *model.Event) {
	b, c := &s.brk, s.cfg.Model.Breaker
	switch b.state {
	case model.Open:
		s.report(Breaker, e.Job, fmt.Sprintf("%v leased while the breaker is open", e.Job), b.seq, e.Seq)
	case model.HalfOpen:
		b.newRound(e.At, c)
		b.admitted++
		b.halfLeases++
		rounds := int32(1)
		if c.Cooldown > 0 {
			rounds += int32((e.At - b.halfAt) / c.Cooldown)
		}
		if c.Canaries > 0 && b.halfLeases > c.Canaries*rounds {
			s.report(Breaker, e.Job, fmt.Sprintf("%v is canary %d of a half-open breaker that admits %d per cool-down",
				e.Job, b.halfLeases, c.Canaries), b.seq, e.Seq)
		}
	}
}

// breakerOutcome feeds one attempt outcome to the reference and judges the
// transition it must (or must not) have caused.
func (s *Suite) breakerOutcome(e *model.Event, failed bool) {
	b, c := &s.brk, s.cfg.Model.Breaker
	if c.Window <= 0 {
		return
	}
	from := s.stateBefore()
	want, to := s.dueTransition(failed)
	wrong := b.pending != 0 && (!want || to != b.pendingTo)
	missed := want && (b.pending == 0 || to != b.pendingTo)
	if wrong || missed {
		why, proof := s.breakerWhy(from, failed)
		if wrong {
			s.report(Breaker, e.Job, fmt.Sprintf("breaker went %v at this outcome, but %s", b.pendingTo, why), proof, b.pending, e.Seq)
		}
		if missed {
			s.report(Breaker, e.Job, fmt.Sprintf("breaker should have gone %v at this outcome: %s", to, why), proof, e.Seq)
			b.clearWindow() // once: the next report needs a window of its own
		}
	}
	if want && to == model.Closed {
		b.clearWindow()
	}
	b.pending, b.lastSeq = 0, e.Seq
}

// breakerWhy explains the reference's verdict and names the event that
// proves it: the window's count in the closed state, the canaries (or the
// failed one) since the half-open announcement.
func (s *Suite) breakerWhy(from model.BreakerState, failed bool) (string, uint64) {
	b := &s.brk
	switch {
	case from == model.HalfOpen && failed:
		return "a canary failed", b.halfSeq
	case from == model.HalfOpen:
		return fmt.Sprintf("%d of the %d canaries it needs succeeded since it went half-open", b.halfAcks, s.cfg.Model.Breaker.Canaries), b.halfSeq
	}
	return b.explain(), b.lastSeq
}

// finishBreaker judges a transition announced after the last outcome:
// every transition but to half-open comes with the outcome that caused it.
func (s *Suite) finishBreaker(out *violations) {
	if b := &s.brk; b.pending != 0 {
		out.add(Breaker, 0, fmt.Sprintf("breaker went %v with no attempt outcome to cause it", b.pendingTo), b.lastSeq, b.pending)
	}
}

// dueTransition feeds the outcome to the reference and says whether the
// breaker must change state now, and to what.
func (s *Suite) dueTransition(failed bool) (bool, model.BreakerState) {
	b, c := &s.brk, s.cfg.Model.Breaker
	switch s.stateBefore() {
	case model.HalfOpen:
		if failed {
			return true, model.Open
		}
		b.halfAcks++
		return c.Canaries > 0 && b.halfAcks >= c.Canaries, model.Closed
	case model.Closed:
		b.observe(failed)
		open := b.filled >= int(c.MinSamples) && int64(b.failures)*1_000_000 >= c.ThresholdPPM*int64(b.filled)
		return open, model.Open
	}
	return false, 0
}

// stateBefore is the breaker's state before a pending announcement.
func (s *Suite) stateBefore() model.BreakerState {
	if b := &s.brk; b.pending != 0 {
		return b.pendingFrom
	}
	return s.brk.state
}

func (b *breakerRef) observe(failed bool) {
	if b.filled == len(b.window) {
		if b.window[b.next] {
			b.failures--
		}
	} else {
		b.filled++
	}
	b.window[b.next] = failed
	if failed {
		b.failures++
	}
	b.next = (b.next + 1) % len(b.window)
}

func (b *breakerRef) clearWindow() {
	clear(b.window)
	b.next, b.filled, b.failures = 0, 0, 0
}

// explain states the reference's count.
func (b *breakerRef) explain() string {
	return fmt.Sprintf("the history counts %d failures in the last %d outcomes", b.failures, b.filled)
}

// newRound starts a new round of canaries when a lease is asked for with
// every slot of the round taken and a cool-down since it began: the slots
// of the canaries that have not succeeded are freed.
func (b *breakerRef) newRound(at model.Time, c model.BreakerConfig) {
	if b.state == model.HalfOpen && b.admitted >= c.Canaries && at-b.probeAt >= c.Cooldown {
		b.admitted, b.probeAt = b.halfAcks, at
	}
}

// breakerAtLease follows a job cancelled or dead-lettered at a lease: the
// breaker admitted it, then gave its slot back.
func (s *Suite) breakerAtLease(e *model.Event) {
	s.brk.newRound(e.At, s.cfg.Model.Breaker)
}

// breakerCut follows an attempt cut at its job's deadline: not an outcome
// of the work, so no sample; a canary gives its slot back.
func (s *Suite) breakerCut(e *model.Event) {
	if b := &s.brk; b.state == model.HalfOpen && b.admitted > 0 {
		b.admitted--
		b.halfLeases--
	}
}

// breakerRefusal judges a lease the breaker refused (a lease event with
// code breaker_open) against the reference: a closed breaker refuses
// nothing, an open one nothing after its cool-down (it goes half-open and
// admits), a half-open one nothing while a canary slot of the round is free.
func (s *Suite) breakerRefusal(e *model.Event) {
	b, c := &s.brk, s.cfg.Model.Breaker
	if c.Window <= 0 {
		return
	}
	switch b.state {
	case model.Closed:
		s.report(Breaker, e.Job, fmt.Sprintf("lease of %v refused as breaker_open, but the breaker is closed", e.Job), b.seq, e.Seq)
	case model.Open:
		if e.At-b.openedAt >= c.Cooldown {
			s.report(Breaker, e.Job, fmt.Sprintf("lease of %v refused %s after the breaker opened, past its cool-down of %s: it goes half-open and admits a canary",
				e.Job, millis(e.At-b.openedAt), millis(c.Cooldown)), b.seq, e.Seq)
		}
	case model.HalfOpen:
		b.newRound(e.At, c)
		if b.admitted < c.Canaries {
			s.report(Breaker, e.Job, fmt.Sprintf("lease of %v refused by a half-open breaker with %d of its %d canary slots taken",
				e.Job, b.admitted, c.Canaries), b.halfSeq, e.Seq)
		}
	}
}
