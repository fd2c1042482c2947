package scheduler

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Pushes and pops interleaved, through both forms of the queue (a sorted
// array below sortedMax events, a heap above, back to sorted at
// sortedMin): every pop is the earliest pending event in (At, tie, seq)
// order, as a plain sorted reference says.
func TestQueuePopsTheEarliestThroughBothForms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h eventHeap
		var ref []Event // the pending events, any order
		var seq uint64
		steps := rapid.IntRange(1, 2000).Draw(t, "steps")
		// Phases of mostly pushes then mostly pops make the queue grow
		// past sortedMax and shrink below sortedMin.
		pushBias := rapid.IntRange(20, 80).Draw(t, "pushBias")
		flip := rapid.IntRange(50, 300).Draw(t, "flip")
		for i := range steps {
			bias := pushBias
			if i/flip%2 == 1 {
				bias = 100 - pushBias
			}
			if len(ref) == 0 || rapid.IntRange(0, 99).Draw(t, "op") < bias {
				seq++
				// Few distinct times and ties: the later fields decide often.
				e := Event{At: Time(rapid.IntRange(0, 30).Draw(t, "at")), tie: uint64(rapid.IntRange(0, 3).Draw(t, "tie")), seq: seq}
				h.push(e)
				ref = append(ref, e)
			} else {
				want := slices.MinFunc(ref, func(a, b Event) int {
					if a.less(&b) {
						return -1
					}
					return 1
				})
				if m := h.min(); *m != want {
					t.Fatalf("min is seq %d, want seq %d", m.seq, want.seq)
				}
				got := h.pop()
				if got != want {
					t.Fatalf("popped seq %d (at %d, tie %d), want seq %d (at %d, tie %d)", got.seq, got.At, got.tie, want.seq, want.At, want.tie)
				}
				ref = slices.DeleteFunc(ref, func(e Event) bool { return e.seq == want.seq })
			}
			if h.Len() != len(ref) {
				t.Fatalf("Len = %d, want %d", h.Len(), len(ref))
			}
		}
	})
}

// The conversions happen: a queue grown past sortedMax is a heap, and one
// shrunk to sortedMin is sorted again.
func TestQueueChangesForm(t *testing.T) {
	var h eventHeap
	for i := range sortedMax + 1 {
		h.push(Event{At: Time(i * 7 % 13), seq: uint64(i + 1)})
	}
	if !h.heap {
		t.Fatalf("%d events pending and still a sorted array", h.Len())
	}
	for h.Len() > sortedMin {
		h.pop()
	}
	if h.heap || !slices.IsSortedFunc(h.items, func(a, b Event) int {
		if b.less(&a) {
			return -1
		}
		return 1
	}) {
		t.Fatalf("%d events pending: heap=%v, want a sorted array, latest first", h.Len(), h.heap)
	}
	h.reset()
	if h.heap || h.Len() != 0 {
		t.Fatal("reset leaves a non-empty queue or a heap")
	}
}
