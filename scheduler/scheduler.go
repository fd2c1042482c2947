package scheduler

import "time"

// Handler runs events as the scheduler pops them.
type Handler interface {
	Handle(ev Event)
}

// Scheduler is a single-threaded discrete-event loop over virtual time.
type Scheduler struct {
	now     Time
	seq     uint64
	steps   uint64
	heap    eventHeap
	tie     *Stream
	handler Handler
}

// New returns a scheduler whose same-instant ties are broken by the given
// scheduling stream, dispatching events to h.
func New(tie *Stream, h Handler) *Scheduler {
	return &Scheduler{tie: tie, handler: h}
}

// Reset makes s what New(tie, h) returns, keeping the heap's backing array:
// a runner of many seeds then schedules without growing it again.
func (s *Scheduler) Reset(tie *Stream, h Handler) {
	q := s.heap
	q.reset()
	*s = Scheduler{tie: tie, handler: h, heap: q}
}

// Now is the current virtual time.
func (s *Scheduler) Now() Time { return s.now }

// Steps is how many events have run.
func (s *Scheduler) Steps() uint64 { return s.steps }

// Pending is how many events are scheduled and not yet run.
func (s *Scheduler) Pending() int { return s.heap.Len() }

// At schedules ev at absolute time at. Scheduling in the past is a bug in the
// caller and panics, because it would make time run backwards.
func (s *Scheduler) At(at Time, ev Event) {
	if at < s.now {
		panic("scheduler: event scheduled in the past")
	}
	s.seq++
	ev.At, ev.tie, ev.seq = at, s.tie.Uint64(), s.seq
	h := &s.heap
	if n := len(h.items); !h.heap && n < sortedMax && n < cap(h.items) {
		// The common case, without a call: the sorted array has room.
		h.items = h.items[:n+1]
		insertSorted(h.items, ev)
		return
	}
	h.push(ev)
}

// After schedules ev d after now.
func (s *Scheduler) After(d Time, ev Event) { s.At(s.now+d, ev) }

// NextAt is the time of the next event; ok is false when none is pending.
func (s *Scheduler) NextAt() (at Time, ok bool) {
	if s.heap.Len() == 0 {
		return 0, false
	}
	return s.heap.min().At, true
}

// Step runs the next event and reports whether there was one.
func (s *Scheduler) Step() bool {
	items := s.heap.items
	n := len(items)
	if n == 0 {
		return false
	}
	if s.heap.heap {
		s.run(s.heap.popHeap())
		return true
	}
	s.heap.items = items[:n-1] // the sorted array's pop, without a call
	s.run(items[n-1])
	return true
}

// run runs ev, just taken off the queue.
func (s *Scheduler) run(ev Event) {
	s.now = ev.At
	s.steps++
	s.handler.Handle(ev)
}

// RunUntil runs events due at or before limit, then sets the clock to limit
// if it is later than the last event run.
func (s *Scheduler) RunUntil(limit Time) {
	for s.heap.Len() > 0 && s.heap.min().At <= limit {
		s.Step()
	}
	if s.now < limit {
		s.now = limit
	}
}

// Clock returns the scheduler's virtual clock.
func (s *Scheduler) Clock() Clock { return Clock{s: s} }

// Clock is the scheduler's time seen through the Now/Since/Until part of
// github.com/benbjohnson/clock's Clock interface. Timers are deliberately
// absent: in simulation they are events in the heap.
type Clock struct{ s *Scheduler }

// Now returns the current virtual instant as wall-clock time.
func (c Clock) Now() time.Time { return c.s.now.Wall() }

// epochUnixNanoOf is Epoch in Unix nanoseconds.
var epochUnixNanoOf = Epoch.UnixNano()

// UnixNano is Now().UnixNano() without building a time.Time: the model
// reads time on every event, and this is its fast path.
func (c Clock) UnixNano() int64 { return epochUnixNanoOf + int64(c.s.now) }

// NowRef lets a reader that asks for the time on every event (the model)
// read it without a call: *ref + epochUnixNano is UnixNano(). The caller
// must only read through ref.
func (c Clock) NowRef() (ref *int64, epochUnixNano int64) {
	return (*int64)(&c.s.now), epochUnixNanoOf
}

// Since returns the virtual time elapsed since t.
func (c Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Until returns the virtual time remaining until t.
func (c Clock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }
