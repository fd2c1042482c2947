package model

// pageSize is how many entries one page of a [pages] table holds.
const pageSize = 1 << 12

// pages is an append-only table kept in pages of pageSize entries. A run
// appends millions of jobs, outbox rows, messages and effects; as one
// slice each would, on growth, copy everything and hold up to twice its
// memory (both arrays are live during the copy). Only the first page
// doubles like a slice, so a small run pays for what it holds.
type pages[T any] struct {
	p [][]T
	n int
}

// len is how many entries the table holds.
func (t *pages[T]) len() int { return t.n }

// at returns entry i (0-based), which must exist.
func (t *pages[T]) at(i int) *T { return &t.p[uint(i)/pageSize][uint(i)%pageSize] } // (unsigned: a shift and a mask)

// push appends v and returns the new entry. Like append, it may move the
// entries of the last page: pointers into the table do not survive a push.
func (t *pages[T]) push(v T) *T {
	k, i := int(uint(t.n)/pageSize), int(uint(t.n)%pageSize)
	if k == len(t.p) {
		t.p = append(t.p, nil)
	}
	pg := t.p[k]
	if i == cap(pg) {
		c := pageSize
		if k == 0 {
			c = min(pageSize, max(16, 2*cap(pg)))
		}
		np := make([]T, i, c)
		copy(np, pg)
		pg = np
	}
	pg = pg[:i+1]
	pg[i] = v
	t.p[k] = pg
	t.n++
	return &pg[i]
}

// keptPages is how many pages reset keeps: enough for a typical short
// seed, without holding a long run's whole table forever.
const keptPages = 2

// reset empties the table for reuse and returns it. The first pages keep
// their arrays (push fills them again); their old entries are zeroed so
// they keep nothing of the last run alive.
func (t pages[T]) reset() pages[T] {
	for k := range t.p {
		clear(t.p[k])
		t.p[k] = t.p[k][:0]
	}
	if len(t.p) > keptPages {
		clear(t.p[keptPages:]) // drop the later pages for the collector
		t.p = t.p[:keptPages]
	}
	return pages[T]{p: t.p}
}
