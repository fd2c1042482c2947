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

// eventHeap is a typed binary min-heap of events stored by value: no
// interfaces, no per-event allocation once its backing array has grown.
type eventHeap struct{ items []Event }

func (h *eventHeap) Len() int { return len(h.items) }

func (h *eventHeap) push(e Event) {
	h.items = append(h.items, e)
	i := len(h.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.items[i].less(&h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *eventHeap) pop() Event {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	h.down(0)
	return top
}

func (h *eventHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		small := l
		if r := l + 1; r < n && h.items[r].less(&h.items[l]) {
			small = r
		}
		if !h.items[small].less(&h.items[i]) {
			return
		}
		h.items[i], h.items[small] = h.items[small], h.items[i]
		i = small
	}
}
