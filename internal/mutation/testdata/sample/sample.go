// Package sample is the mutated package of the mutation tool's end-to-end
// test: each function is there for one outcome (see run_test.go).
package sample

// Clamp limits v to [lo, hi].
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Back returns the i-th element from the end.
func Back(xs []int, i int) int { return xs[len(xs)-1-i] }

// Spin counts down from n; a mutant that counts up never ends.
func Spin(n int) int {
	steps := 0
	for n > 0 {
		n--
		steps++
	}
	return steps
}

// Twice keeps v in a variable that only its call uses.
func Twice(v int) int {
	x := v
	sink(x)
	return 2 * v
}

var last int

func sink(v int) { last = v }

// Unused is never called by the killer: its mutants are not covered.
func Unused(a int) int { return a * 3 }
