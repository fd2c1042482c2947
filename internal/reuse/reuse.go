package reuse

// maxKeptMap bounds the maps Map keeps: clearing a map costs its capacity,
// not its length, so one huge run must not slow every later small one.
const maxKeptMap = 1 << 14

// Map returns m emptied, or a new map if m is nil or was very large.
func Map[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil || len(m) > maxKeptMap {
		return make(M)
	}
	clear(m)
	return m
}

// Slice returns s emptied, its array kept; the old entries are zeroed so
// they keep nothing of the last run alive.
func Slice[S ~[]E, E any](s S) S {
	clear(s)
	return s[:0]
}

// Resized returns s with length n, every element zero, reusing its array
// when it is large enough.
func Resized[S ~[]E, E any](s S, n int) S {
	if cap(s) < n {
		return make(S, n)
	}
	s = s[:n]
	clear(s)
	return s
}
