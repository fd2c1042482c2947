package scheduler

import "testing"

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
