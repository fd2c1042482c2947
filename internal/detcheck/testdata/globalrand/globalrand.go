// Package globalrand uses math/rand/v2's randomly seeded package-level
// functions, and the PCG it may use.
package globalrand

import (
	"math/rand/v2"
	r2 "math/rand/v2"
)

func Uses() uint64 {
	n := rand.IntN(10)                              // want global-rand
	u := rand.Uint64()                              // want global-rand
	g := rand.New(rand.NewPCG(1, 2))                // want global-rand
	var s rand.Source = rand.NewChaCha8([32]byte{}) // want global-rand global-rand
	shuffle := rand.Shuffle                         // want global-rand
	m := r2.N(100)                                  // want global-rand
	pcg := rand.NewPCG(3, 4)                        // the seeded PCG is allowed
	var own rand.PCG                                // so is its type
	own.Seed(5, 6)
	_, _ = s, shuffle
	return uint64(n+m) + u + g.Uint64() + pcg.Uint64() + own.Uint64()
}
