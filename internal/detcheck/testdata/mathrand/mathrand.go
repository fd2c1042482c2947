// Package mathrand uses math/rand v1 and its global source.
package mathrand

import (
	"math/rand" // want math-rand
)

func Roll() int { return rand.Intn(6) }
