package scheduler

import "slices"

// Event is one scheduled occurrence. Actor and Kind are opaque to the
// scheduler; the [Handler] interprets them. Arg carries one small payload
// (a job id, an incarnation) so events need no pointers and no allocation.
type Event struct {
	At    Time
	Actor int32
	Kind  int32
	Arg   int64
	tie   uint64
	seq   uint64
}

// Seq is the event's push sequence number (unique within a run).
func (e Event) Seq() uint64 { return e.seq }

func (e *Event) less(o *Event) bool {
	if e.At != o.At {
		return e.At < o.At
	}
	if e.tie != o.tie {
		return e.tie < o.tie
	}
	return e.seq < o.seq
}

// eventHeap holds the pending events and hands them out in (time, tie,
// seq) order. The order is total, so how they are held cannot change
// which event comes out: only what it costs.
//
// A simulator's queue is small (a standard run keeps about nine events
// pending), and at that size an array kept sorted latest first beats a
// heap: a pop takes the last element, a push shifts the few events due
// before it one slot up and takes their place. Past
// sortedMax events that shifting outgrows the heap's logarithm, so the
// array turns into a typed 4-ary min-heap of events stored by value (an
// array sorted earliest first already is one: reversing it is the whole
// conversion), and back to sorted once it shrinks to sortedMin.
type eventHeap struct {
	items []Event
	heap  bool // items is a 4-ary min-heap; otherwise sorted latest first
}

// The sizes at which the array turns into a heap and back: apart, so a
// queue hovering near one size does not convert at every event.
const (
	sortedMax = 64
	sortedMin = 16
)

func (h *eventHeap) Len() int { return len(h.items) }

// reset empties h, keeping its backing array.
func (h *eventHeap) reset() { *h = eventHeap{items: h.items[:0]} }

// min is the next event to pop; h must not be empty.
func (h *eventHeap) min() *Event {
	if h.heap {
		return &h.items[0]
	}
	return &h.items[len(h.items)-1]
}

func (h *eventHeap) push(e Event) {
	if h.heap {
		h.heapPush(e)
		return
	}
	if len(h.items) == sortedMax {
		slices.Reverse(h.items) // earliest first: a heap
		h.heap = true
		h.heapPush(e)
		return
	}
	h.items = append(h.items, e)
	insertSorted(h.items, e)
}

// insertSorted places e in items, sorted latest first but for its last
// slot, which is free. The events due before e are at the end; a new event
// is most often due before all but one or two of those pending (timers for
// later are many, the next steps few): walk the hole in from the end. (It
// compares with e's keys in registers, on a local slice: stores through
// h.items, or to e by address, would make the compiler reload them at
// every step. Small enough for At to inline.)
func insertSorted(items []Event, e Event) {
	at, tie, seq := e.At, e.tie, e.seq
	i := len(items) - 1
	for ; i > 0; i-- {
		p := &items[i-1]
		if !(p.At < at || p.At == at && (p.tie < tie || p.tie == tie && p.seq < seq)) {
			break // p is due after e: e goes above it
		}
		items[i] = *p
	}
	items[i] = e
}

// pop takes the next event; h must not be empty. (Step does the sorted
// array's pop itself, a load and a length, rather than call this.)
func (h *eventHeap) pop() Event {
	if h.heap {
		return h.popHeap()
	}
	last := len(h.items) - 1
	top := h.items[last]
	h.items = h.items[:last]
	return top
}

func (h *eventHeap) popHeap() Event {
	top := h.heapPop()
	if len(h.items) <= sortedMin {
		slices.SortFunc(h.items, func(a, b Event) int { // latest first
			if b.less(&a) {
				return -1
			}
			return 1 // (no two events are equal: seq is unique)
		})
		h.heap = false
	}
	return top
}

// heapPush and heapPop move a hole instead of swapping: each level of the
// heap copies one event rather than two. Four children per node halve
// the depth of a binary heap, and a node's children share a cache line
// or two.
func (h *eventHeap) heapPush(e Event) {
	h.items = append(h.items, e)
	i := len(h.items) - 1
	for i > 0 {
		parent := (i - 1) / 4
		if !e.less(&h.items[parent]) {
			break
		}
		h.items[i] = h.items[parent]
		i = parent
	}
	h.items[i] = e
}

func (h *eventHeap) heapPop() Event {
	top := h.items[0]
	last := len(h.items) - 1
	moved := h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.siftDown(moved)
	}
	return top
}

// siftDown places e, starting from the root's hole.
func (h *eventHeap) siftDown(e Event) {
	items := h.items
	n, i := len(items), 0
	for {
		first := 4*i + 1
		if first >= n {
			break
		}
		small := first
		end := min(first+4, n)
		for c := first + 1; c < end; c++ {
			if items[c].less(&items[small]) {
				small = c
			}
		}
		if !items[small].less(&e) {
			break
		}
		items[i] = items[small]
		i = small
	}
	items[i] = e
}
