package scheduler

import (
	"fmt"
	"testing"
)

// selfRescheduler reschedules every event it runs one millisecond later,
// so the heap stays the same size: the steady state of a simulation.
type selfRescheduler struct{ s *Scheduler }

func (h *selfRescheduler) Handle(ev Event) { h.s.After(Millisecond, ev) }

func newSteadyState(pending int) *Scheduler {
	h := &selfRescheduler{}
	h.s = New(NewStream(1), h)
	for i := range pending {
		h.s.At(Time(i), Event{Actor: int32(i), Arg: int64(i)})
	}
	for range 4 * pending { // let the heap's backing array reach its size
		h.s.Step()
	}
	return h.s
}

func BenchmarkSchedulerEvent(b *testing.B) {
	s := newSteadyState(1024)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Step()
	}
}

func TestSchedulerEventDoesNotAllocate(t *testing.T) {
	s := newSteadyState(1024)
	if allocs := testing.AllocsPerRun(10_000, func() { s.Step() }); allocs != 0 {
		t.Fatalf("push+pop of one event allocates %.2f times, want 0", allocs)
	}
}

// jitterRescheduler reschedules every event a random delay later, as the
// bare loop of `durasim bench` does, on a heap of the size a standard run
// keeps: the same work as that floor, through the real scheduler.
type jitterRescheduler struct {
	s *Scheduler
	r *Stream
}

func (h *jitterRescheduler) Handle(ev Event) { h.s.After(1+Time(h.r.Uint64N(1_000_000)), ev) }

func BenchmarkSchedulerEventJitter(b *testing.B) {
	// 9 is the mean number of pending events of a standard run, 96 the
	// floor's (about the largest a standard run reaches).
	for _, pending := range []int{9, 96} {
		b.Run(fmt.Sprint(pending), func(b *testing.B) {
			h := &jitterRescheduler{r: NewStream(2)}
			h.s = New(NewStream(1), h)
			for i := range pending {
				h.s.At(Time(i), Event{Actor: int32(i)})
			}
			b.ReportAllocs()
			for b.Loop() {
				h.s.Step()
			}
		})
	}
}
