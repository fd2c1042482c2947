// Package clean is deterministic code that looks like the forbidden
// constructs: the scanner must report nothing here.
package clean

import (
	"maps"
	"math/rand/v2"
	"slices"
	"time"
)

type clock struct{ now time.Time }

func (c clock) Now() time.Time                  { return c.now }
func (c clock) Since(t time.Time) time.Duration { return c.now.Sub(t) }

type dice struct{}

func (dice) IntN(n int) int { return n - 1 }

var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

func Uses(m map[string]int, c clock) []string {
	elapsed := c.Since(epoch) + 3*time.Millisecond
	_ = epoch.Add(elapsed).Before(c.Now())

	var src rand.PCG
	src.Seed(1, 2)
	pcg := rand.NewPCG(3, 4)
	_ = src.Uint64() + pcg.Uint64()

	rand := dice{} // a local name that shadows the import
	_ = rand.IntN(6)
	time := c // likewise
	_ = time.Now()

	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		_ = m[k]
	}
	//det:sorted
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i := range 3 {
		_ = i
	}
	for range "abc" {
	}
	return keys
}
