package reuse

import "testing"

func TestSliceKeepsArrayZeroesEntries(t *testing.T) {
	s := []string{"a", "b", "c"}
	r := Slice(s)
	if len(r) != 0 || cap(r) != 3 {
		t.Fatalf("len %d cap %d, want 0 and 3", len(r), cap(r))
	}
	if s[0] != "" || s[2] != "" {
		t.Fatalf("old entries survive: %q", s)
	}
}

func TestMapEmptiesOrReplaces(t *testing.T) {
	small := map[int]int{1: 1}
	if m := Map(small); len(m) != 0 || len(small) != 0 {
		t.Fatal("small map not emptied in place")
	}
	if m := Map[map[int]int](nil); m == nil {
		t.Fatal("nil map not made")
	}
	big := make(map[int]int)
	for i := range maxKeptMap + 1 {
		big[i] = i
	}
	if m := Map(big); len(m) != 0 || len(big) == 0 {
		t.Fatal("a huge map must be replaced, not cleared")
	}
}

func TestResized(t *testing.T) {
	s := []int{1, 2, 3, 4}
	r := Resized(s, 2)
	if len(r) != 2 || r[0] != 0 || r[1] != 0 || &r[0] != &s[0] {
		t.Fatalf("Resized(4 -> 2) = %v, want zeroed and in place", r)
	}
	if r := Resized(s, 9); len(r) != 9 {
		t.Fatalf("Resized(4 -> 9) has length %d", len(r))
	}
}
