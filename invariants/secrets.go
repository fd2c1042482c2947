package invariants

import (
	"math/bits"
	"slices"
	"strings"
)

// secretWindow is the length of the window a secret is indexed by.
const secretWindow = 12

// secretIndex finds which secret, if any, occurs in a text in time linear
// in the text, however many secrets there are (a run has two per document:
// millions in a large run). Each secret is filed under one of its windows,
// the one whose bucket is emptiest when it is added — secrets often share a
// prefix ("unexpected token near '..."), so a fixed offset would pile them
// into one bucket.
//
// The index refers to the secrets, it copies none of them: a bucket is
// found through an open-addressing table of 4-byte slots and keeps its
// 12-byte window; a secret is read back (or built, when its source builds
// texts on demand) only when a window of the text matched. A Go map of
// windows to slices cost about a hundred bytes per secret, as much as the
// secrets themselves.
type secretIndex struct {
	secrets SecretSource
	// The index is built at the first text long enough to hold a secret
	// that shares a window with one (leak asks only then): most texts
	// checked are shorter than any document or share none, and most runs
	// never check one that does.
	built   bool
	minLen  int         // no secret is shorter (0: unknown)
	scratch []byte      // the secret being filed or compared
	slots   []int32     // bucket index + 1, by window hash (0: empty)
	buckets []bucketRef // in the order created
	placed  []placed
	short   []int // secrets shorter than the window: checked one by one
	// firsts has bit gram(w) set for the first four bytes of every
	// bucket's window w: find probes the table only at a position of the
	// text whose four bytes have their bit set (a window equal to a
	// bucket's starts as it does), and skips most without hashing.
	firsts [1 << 16 / 64]uint64
}

// bucketRef is a bucket: its window, its first and last entry in placed,
// and its size.
type bucketRef struct {
	window         [secretWindow]byte
	first, last, n int32
}

// placed is a secret filed at a window starting off bytes into it; next is
// the following entry of its bucket (-1: none).
type placed struct {
	secret, off, next int32
}

func newSecretIndex(secrets SecretSource) secretIndex {
	var x secretIndex
	x.reset(secrets)
	return x
}

// reset makes x an index of secrets, to be built when first needed.
func (x *secretIndex) reset(secrets SecretSource) {
	x.secrets, x.built, x.minLen = secrets, false, 0
	if m, ok := secrets.(interface{ MinLen() int }); ok {
		x.minLen = m.MinLen()
	}
}

// build indexes the secrets, reusing the arrays of the previous index (none
// of them holds a string, so truncating them forgets the old secrets).
func (x *secretIndex) build() {
	x.built = true
	secrets := x.secrets
	x.scratch = x.scratch[:0]
	x.buckets = x.buckets[:0]
	x.placed = x.placed[:0]
	x.short = x.short[:0]
	clear(x.firsts[:])
	// Sized for every secret, short ones included: building each secret
	// once costs more than the few slots it saves.
	long := secrets.Len()
	if long == 0 {
		x.slots = x.slots[:0]
		return
	}
	// At most half full, so probes stay short.
	if n := 1 << bits.Len(uint(2*long)); n <= cap(x.slots) {
		x.slots = x.slots[:n]
		clear(x.slots)
	} else {
		x.slots = make([]int32, n)
	}
	x.buckets = slices.Grow(x.buckets, long)
	x.placed = slices.Grow(x.placed, long)
	for i := range secrets.Len() {
		sec := x.secret(i)
		if len(sec) == 0 {
			continue // an empty secret is no secret (it occurs everywhere)
		}
		if len(sec) < secretWindow {
			x.short = append(x.short, i)
			continue
		}
		off := x.emptiestOffset(sec)
		p := int32(len(x.placed))
		x.placed = append(x.placed, placed{secret: int32(i), off: int32(off), next: -1})
		at := slot(x, sec[off:off+secretWindow])
		if b := x.slots[at]; b != 0 {
			ref := &x.buckets[b-1]
			x.placed[ref.last].next = p
			ref.last = p
			ref.n++
		} else {
			ref := bucketRef{first: p, last: p, n: 1}
			copy(ref.window[:], sec[off:off+secretWindow])
			g := gram(load4(sec, off))
			x.firsts[g/64] |= 1 << (g % 64)
			x.buckets = append(x.buckets, ref)
			x.slots[at] = int32(len(x.buckets))
		}
	}
}

// secret builds secret i into the scratch buffer; valid until the next call.
func (x *secretIndex) secret(i int) []byte {
	x.scratch = x.secrets.AppendSecret(x.scratch[:0], i)
	return x.scratch
}

// hashWindow mixes the window's twelve bytes (a fixed function: the
// table's layout, unlike a Go map's, is the same in every process).
func hashWindow[S string | []byte](w S) uint64 { return mixWindow(windowWords(w)) }

// windowWords are the window's first eight and last four bytes,
// little-endian, spelled out so that the compiler reads each with one
// load (a loop over the bytes cost about a hundred instructions a window,
// at every byte of every string the excerpt check indexes). Two windows
// are equal exactly when their words are.
func windowWords[S string | []byte](w S) (a, b uint64) {
	_ = w[11]
	a = uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	b = uint64(w[8]) | uint64(w[9])<<8 | uint64(w[10])<<16 | uint64(w[11])<<24
	return a, b
}

// mixWindow is hashWindow of the window whose words are a and b.
func mixWindow(a, b uint64) uint64 {
	h := a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// slot returns the table slot of window w: the one holding its bucket, or
// the empty one where it would go.
func slot[S string | []byte](x *secretIndex, w S) int {
	mask := len(x.slots) - 1
	for i := int(hashWindow(w)) & mask; ; i = (i + 1) & mask {
		if b := x.slots[i]; b == 0 || string(x.buckets[b-1].window[:]) == string(w) {
			return i
		}
	}
}

// bucket returns the bucket of window w, if any.
func findBucket[S string | []byte](x *secretIndex, w S) (*bucketRef, bool) {
	if b := x.slots[slot(x, w)]; b != 0 {
		return &x.buckets[b-1], true
	}
	return nil, false
}

// emptiestOffset picks, among five spread-out windows, the least used.
func (x *secretIndex) emptiestOffset(sec []byte) int {
	last := len(sec) - secretWindow
	best, bestLen := 0, int32(-1)
	for _, off := range [...]int{0, last / 4, last / 2, 3 * last / 4, last} {
		var n int32
		if b, ok := findBucket(x, sec[off:off+secretWindow]); ok {
			n = b.n
		}
		if bestLen < 0 || n < bestLen {
			best, bestLen = off, n
		}
	}
	return best
}

// find returns the index of a secret occurring in text, or -1.
func (x *secretIndex) find(text string) int {
	if len(text) < x.minLen { // shorter than every secret
		return -1
	}
	if !x.built {
		x.build()
	}
	for _, i := range x.short {
		if strings.Contains(text, string(x.secret(i))) {
			return i
		}
	}
	if len(x.buckets) == 0 {
		return -1
	}
	for i := 0; i+secretWindow <= len(text); i++ {
		if g := gram(load4(text, i)); x.firsts[g/64]&(1<<(g%64)) == 0 {
			continue
		}
		b, ok := findBucket(x, text[i:i+secretWindow])
		if !ok {
			continue
		}
		for k := b.first; k >= 0; k = x.placed[k].next {
			p := &x.placed[k]
			start := i - int(p.off)
			if start >= 0 && strings.HasPrefix(text[start:], string(x.secret(int(p.secret)))) {
				return int(p.secret)
			}
		}
	}
	return -1
}
