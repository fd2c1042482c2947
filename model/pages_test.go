package model

import "testing"

// A paged table holds what a slice would, across page boundaries, and only
// its first page grows by doubling.
func TestPagesAppendAndIndex(t *testing.T) {
	var p pages[int]
	const n = 3*pageSize + 5
	for i := range n {
		if got := p.push(i); *got != i {
			t.Fatalf("push(%d) returned %d", i, *got)
		}
	}
	if p.len() != n {
		t.Fatalf("len %d, want %d", p.len(), n)
	}
	for i := range n {
		if *p.at(i) != i {
			t.Fatalf("at(%d) = %d", i, *p.at(i))
		}
	}
	for k, pg := range p.p {
		if k > 0 && cap(pg) != pageSize {
			t.Fatalf("page %d has capacity %d, want %d", k, cap(pg), pageSize)
		}
	}
	*p.at(pageSize) = -1
	if *p.at(pageSize) != -1 || *p.at(pageSize - 1) != pageSize-1 {
		t.Fatal("at does not address the entry in place")
	}
}
