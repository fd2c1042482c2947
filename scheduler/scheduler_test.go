package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// recorder is a Handler that keeps the events it ran and the time it saw.
type recorder struct {
	s    *Scheduler
	ran  []Event
	nows []Time
	then func(ev Event)
}

func (r *recorder) Handle(ev Event) {
	r.ran = append(r.ran, ev)
	r.nows = append(r.nows, r.s.Now())
	if r.then != nil {
		r.then(ev)
	}
}

func newRecorded(seed uint64) (*Scheduler, *recorder) {
	r := &recorder{}
	r.s = New(Derive(seed, StreamSchedule), r)
	return r.s, r
}

func TestEventsPopInTimeTieSeqOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		ats := rapid.SliceOfN(rapid.Int64Range(0, 20), 0, 200).Draw(t, "ats")
		s, r := newRecorded(seed)
		for i, at := range ats {
			s.At(Time(at), Event{Actor: int32(i % 7), Kind: 1, Arg: int64(i)})
		}
		if s.Pending() != len(ats) {
			t.Fatalf("Pending = %d, want %d", s.Pending(), len(ats))
		}
		for s.Step() {
		}
		if len(r.ran) != len(ats) {
			t.Fatalf("ran %d events, pushed %d", len(r.ran), len(ats))
		}
		seen := make([]bool, len(ats))
		for i, ev := range r.ran {
			if seen[ev.Arg] {
				t.Fatalf("event %d ran twice", ev.Arg)
			}
			seen[ev.Arg] = true
			if ev.At != Time(ats[ev.Arg]) {
				t.Fatalf("event %d ran at %v, scheduled at %d", ev.Arg, ev.At, ats[ev.Arg])
			}
			if r.nows[i] != ev.At {
				t.Fatalf("Now() = %v while running an event due at %v", r.nows[i], ev.At)
			}
			if ev.Seq() != uint64(ev.Arg)+1 {
				t.Fatalf("event %d has seq %d, want push order %d", ev.Arg, ev.Seq(), ev.Arg+1)
			}
			if i == 0 {
				continue
			}
			prev := r.ran[i-1]
			if prev.At > ev.At {
				t.Fatalf("time went backwards: %v then %v", prev.At, ev.At)
			}
			if !prev.less(&ev) {
				t.Fatalf("events %d and %d popped out of (At, tie, seq) order", prev.Arg, ev.Arg)
			}
		}
		if s.Steps() != uint64(len(ats)) || s.Pending() != 0 {
			t.Fatalf("Steps = %d, Pending = %d after draining %d events", s.Steps(), s.Pending(), len(ats))
		}
	})
}

// sameInstantOrder pushes ten events due at one instant and returns the
// order (by Arg) in which they run.
func sameInstantOrder(seed uint64) []int64 {
	s, r := newRecorded(seed)
	for i := range 10 {
		s.At(5*Millisecond, Event{Arg: int64(i)})
	}
	for s.Step() {
	}
	order := make([]int64, len(r.ran))
	for i, ev := range r.ran {
		order[i] = ev.Arg
	}
	return order
}

func TestSameInstantTiesDependOnTheSeedOnly(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	orders := make([][]int64, len(seeds))
	for i, seed := range seeds {
		orders[i] = sameInstantOrder(seed)
		if again := sameInstantOrder(seed); !slices.Equal(orders[i], again) {
			t.Fatalf("seed %d gave two orders: %v and %v", seed, orders[i], again)
		}
		sorted := slices.Clone(orders[i])
		slices.Sort(sorted)
		if !slices.Equal(sorted, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
			t.Fatalf("seed %d lost or duplicated events: %v", seed, orders[i])
		}
	}
	differ := false
	for i := range orders {
		for j := i + 1; j < len(orders); j++ {
			differ = differ || !slices.Equal(orders[i], orders[j])
		}
	}
	if !differ {
		t.Fatalf("every seed ran same-instant events in the same order %v: ties are not seeded", orders[0])
	}
}

func TestAtInThePastPanics(t *testing.T) {
	s, _ := newRecorded(1)
	s.At(10*Millisecond, Event{})
	s.Step()
	s.At(10*Millisecond, Event{}) // now is allowed
	mustPanic(t, "At(before now)", func() { s.At(9*Millisecond, Event{}) })
}

func TestAfterIsRelativeToNow(t *testing.T) {
	s, r := newRecorded(1)
	s.At(3*Millisecond, Event{Arg: 1})
	s.Step()
	s.After(2*Millisecond, Event{Arg: 2})
	if at, ok := s.NextAt(); !ok || at != 5*Millisecond {
		t.Fatalf("NextAt = %v, %v; want 5ms, true", at, ok)
	}
	s.Step()
	if got := r.ran[1].At; got != 5*Millisecond {
		t.Fatalf("After(2ms) at 3ms ran at %v", got)
	}
}

func TestEmptySchedulerHasNoNextEvent(t *testing.T) {
	s, _ := newRecorded(1)
	if _, ok := s.NextAt(); ok {
		t.Fatal("NextAt reported an event on an empty heap")
	}
	if s.Step() {
		t.Fatal("Step ran an event on an empty heap")
	}
	if s.Now() != 0 || s.Steps() != 0 {
		t.Fatalf("empty Step moved the scheduler: now %v, steps %d", s.Now(), s.Steps())
	}
}

func TestRunUntil(t *testing.T) {
	s, r := newRecorded(1)
	r.then = func(ev Event) {
		if ev.Arg == 1 { // an event due inside the window it is run in
			s.After(Millisecond, Event{Arg: 10})
		}
	}
	for _, at := range []Time{5, 10, 15} {
		s.At(at*Millisecond, Event{Arg: int64(at / 5)})
	}

	s.RunUntil(10 * Millisecond)
	if got := args(r.ran); !slices.Equal(got, []int64{1, 10, 2}) {
		t.Fatalf("RunUntil(10ms) ran %v, want [1 10 2] (the limit is inclusive, new events inside it run)", got)
	}
	if s.Now() != 10*Millisecond || s.Pending() != 1 {
		t.Fatalf("after RunUntil(10ms): now %v, pending %d; want 10ms, 1", s.Now(), s.Pending())
	}

	s.RunUntil(12 * Millisecond)
	if s.Now() != 12*Millisecond || len(r.ran) != 3 {
		t.Fatalf("RunUntil(12ms) with nothing due: now %v, ran %d; want 12ms, 3", s.Now(), len(r.ran))
	}

	s.RunUntil(Millisecond)
	if s.Now() != 12*Millisecond {
		t.Fatalf("RunUntil into the past moved time back to %v", s.Now())
	}

	s.RunUntil(Minute)
	if s.Now() != Minute || s.Pending() != 0 || len(r.ran) != 4 {
		t.Fatalf("final RunUntil: now %v, pending %d, ran %d", s.Now(), s.Pending(), len(r.ran))
	}
}

func args(evs []Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Arg
	}
	return out
}

// The shape of github.com/benbjohnson/clock's Clock that the model reads.
type nowSinceUntil interface {
	Now() time.Time
	Since(time.Time) time.Duration
	Until(time.Time) time.Duration
}

var _ nowSinceUntil = Clock{}

func TestClockShowsVirtualTime(t *testing.T) {
	s, _ := newRecorded(1)
	var c nowSinceUntil = s.Clock()
	if !c.Now().Equal(Epoch) {
		t.Fatalf("Now() at virtual 0 = %v, want Epoch %v", c.Now(), Epoch)
	}
	s.At(1500*Millisecond, Event{})
	s.Step()
	if want := Epoch.Add(1500 * time.Millisecond); !c.Now().Equal(want) {
		t.Fatalf("Now() = %v, want %v", c.Now(), want)
	}
	if got := c.Since(Epoch); got != 1500*time.Millisecond {
		t.Errorf("Since(Epoch) = %v, want 1.5s", got)
	}
	if got := c.Until(Epoch.Add(2 * time.Second)); got != 500*time.Millisecond {
		t.Errorf("Until(Epoch+2s) = %v, want 500ms", got)
	}
	if got := FromWall(c.Now()); got != s.Now() {
		t.Errorf("FromWall(Now()) = %v, want %v", got, s.Now())
	}
}

// The fast path and the time.Time path agree.
func TestClockUnixNanoMatchesNow(t *testing.T) {
	s := New(NewStream(1), &recorder{})
	s.RunUntil(1234567 * Microsecond)
	c := s.Clock()
	if c.UnixNano() != c.Now().UnixNano() {
		t.Fatalf("UnixNano %d, Now().UnixNano() %d", c.UnixNano(), c.Now().UnixNano())
	}
}

// NowRef reads the time the clock shows, and follows it as it moves.
func TestClockNowRefFollowsNow(t *testing.T) {
	s := New(NewStream(1), &recorder{})
	c := s.Clock()
	ref, epoch := c.NowRef()
	for _, at := range []Time{0, 1234567 * Microsecond, 5 * Second} {
		s.RunUntil(at)
		if got := *ref + epoch; got != c.Now().UnixNano() {
			t.Fatalf("at %v: *ref + epoch = %d, Now().UnixNano() = %d", at, got, c.Now().UnixNano())
		}
	}
	s.Reset(NewStream(2), &recorder{}) // a reset scheduler is read through the same ref
	if *ref != 0 {
		t.Fatalf("after Reset *ref = %d, want 0", *ref)
	}
}

// A reset scheduler runs a schedule exactly as a new one does.
func TestSchedulerResetIsNew(t *testing.T) {
	trace := func(s *Scheduler, h *recordingHandler) []string {
		for i := range 50 {
			s.At(Time(i%7)*Millisecond, Event{Actor: int32(i)})
		}
		for s.Step() {
		}
		return h.seen
	}
	h1 := &recordingHandler{}
	fresh := trace(New(NewStream(9), h1), h1)

	h2 := &recordingHandler{}
	dirty := New(NewStream(3), h2)
	dirty.At(5*Second, Event{Actor: 99}) // left pending
	dirty.Step()
	dirty.At(9*Second, Event{Actor: 98})
	h3 := &recordingHandler{}
	dirty.Reset(NewStream(9), h3)
	if dirty.Now() != 0 || dirty.Steps() != 0 || dirty.Pending() != 0 {
		t.Fatalf("reset left now=%d steps=%d pending=%d", dirty.Now(), dirty.Steps(), dirty.Pending())
	}
	again := trace(dirty, h3)
	if fmt.Sprint(fresh) != fmt.Sprint(again) {
		t.Fatalf("reset scheduler ran\n%v\nnew one ran\n%v", again, fresh)
	}
}

type recordingHandler struct{ seen []string }

func (h *recordingHandler) Handle(ev Event) {
	h.seen = append(h.seen, fmt.Sprintf("%d@%d#%d", ev.Actor, ev.At, ev.Seq()))
}

func TestResetDerivedIsDerive(t *testing.T) {
	s := NewStream(77)
	s.Uint64()
	s.ResetDerived(42, StreamFaults)
	d := Derive(42, StreamFaults)
	for range 10 {
		if a, b := s.Uint64(), d.Uint64(); a != b {
			t.Fatalf("ResetDerived gives %x, Derive %x", a, b)
		}
	}
}
