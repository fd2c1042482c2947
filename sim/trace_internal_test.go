package sim

import "testing"

// The trace hash is part of the replay contract: pin it, so a change to it
// is a deliberate one (and GOARCH=386 computes the same values).
func TestHashLinePinned(t *testing.T) {
	h := uint64(hashSeed)
	for _, line := range []string{"", "t=0ms #1 enqueue api j1 tenant=acme key=acme:d1:v1 ok", "1234567"} {
		h = hashLine(h, []byte(line))
	}
	if h != 0x936caf606cc553ba {
		t.Fatalf("hash = %#x", h)
	}
}

// Lines that differ only in their split, or by one byte, hash differently.
func TestHashLineSeparatesLines(t *testing.T) {
	one := hashLine(hashSeed, []byte("abcdefgh12345678"))
	two := hashLine(hashLine(hashSeed, []byte("abcdefgh")), []byte("12345678"))
	other := hashLine(hashSeed, []byte("abcdefgh12345679"))
	if one == two || one == other {
		t.Fatalf("collisions: %#x %#x %#x", one, two, other)
	}
}
