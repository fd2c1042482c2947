package faults

// Shrinking a plan: the two searches the pipeline's and the targets'
// shrinkers share. fails runs a plan and reports whether it still fails
// the way the original did; an error stops the search and is returned.

// FirstFailingSubset tries the plans made of k of p's faults, in the
// lexicographic order of the faults' indices, and, for each such choice,
// every combination of the variants of its faults (variants(f) lists the
// versions of f to try, the first fault's outermost; nil: f itself). It
// returns the first plan that fails, and whether there was one.
func FirstFailingSubset(p Plan, k int, variants func(Fault) []Fault, fails func(Plan) (bool, error)) (Plan, bool, error) {
	if variants == nil {
		variants = func(f Fault) []Fault { return []Fault{f} }
	}
	n := len(p.Faults)
	if k < 1 || k > n {
		return Plan{}, false, nil
	}
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for {
		if got, ok, err := firstFailingChoice(p, idx, variants, fails); ok || err != nil {
			return got, ok, err
		}
		// The next k-subset: bump the last index that can move.
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return Plan{}, false, nil
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// firstFailingChoice tries every combination of variants of the faults
// idx names, the first fault's variants outermost.
func firstFailingChoice(p Plan, idx []int, variants func(Fault) []Fault, fails func(Plan) (bool, error)) (Plan, bool, error) {
	choices := make([][]Fault, len(idx))
	for i, j := range idx {
		if choices[i] = variants(p.Faults[j]); len(choices[i]) == 0 {
			return Plan{}, false, nil
		}
	}
	pick := make([]int, len(idx))
	for {
		fs := make([]Fault, len(idx))
		for i := range fs {
			fs[i] = choices[i][pick[i]]
		}
		try := Plan{Faults: fs}
		if ok, err := fails(try); ok || err != nil {
			return try, ok, err
		}
		i := len(pick) - 1
		for i >= 0 && pick[i] == len(choices[i])-1 {
			pick[i] = 0
			i--
		}
		if i < 0 {
			return Plan{}, false, nil
		}
		pick[i]++
	}
}

// Minimize is delta debugging over the plan's faults: it removes chunks
// of faults while the plan still fails, halving the chunk size down to
// single faults, and returns the smallest failing plan it found (p if
// none smaller fails).
func Minimize(p Plan, fails func(Plan) (bool, error)) (Plan, error) {
	for chunk := max(p.Len()/2, 1); chunk >= 1; chunk /= 2 {
		for start := 0; start < p.Len(); {
			keep := make([]bool, p.Len())
			for i := range keep {
				keep[i] = i < start || i >= start+chunk
			}
			try := p.Subset(keep)
			ok, err := fails(try)
			if err != nil {
				return p, err
			}
			if ok {
				p = try
				continue
			}
			start += chunk
		}
		if chunk == 1 {
			break
		}
	}
	return p, nil
}
