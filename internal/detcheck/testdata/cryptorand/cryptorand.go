// Package cryptorand reads entropy from the operating system.
package cryptorand

import (
	"crypto/rand" // want crypto-rand
)

func Nonce() []byte {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return b
}
