package scheduler

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

// eventHeap is a typed 4-ary min-heap of events stored by value: no
// interfaces, no per-event allocation once its backing array has grown.
// Four children per node halve the depth of a binary heap: a pop moves
// half as many 40-byte events, and a node's children share a cache line
// or two. The order is total (time, tie, seq), so the arity cannot change
// which event comes out.
type eventHeap struct{ items []Event }

func (h *eventHeap) Len() int { return len(h.items) }

// push and pop move a hole instead of swapping: each level of the heap
// copies one event rather than two.
func (h *eventHeap) push(e Event) {
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

func (h *eventHeap) pop() Event {
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
