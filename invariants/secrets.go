package invariants

import "strings"

// secretWindow is the length of the window a secret is indexed by.
const secretWindow = 12

// secretIndex finds which secret, if any, occurs in a text in time linear
// in the text, however many secrets there are (a run has two per document:
// hundreds of thousands in a large run). Each secret is filed under one of
// its windows, the one whose bucket is emptiest when it is added — secrets
// often share a prefix ("unexpected token near '..."), so a fixed offset
// would pile them into one bucket.
type secretIndex struct {
	secrets []string
	buckets map[string][]placed
	short   []int // secrets shorter than the window: checked one by one
}

// placed is a secret filed at a window starting off bytes into it.
type placed struct {
	secret int
	off    int
}

func newSecretIndex(secrets []string) secretIndex {
	x := secretIndex{secrets: secrets, buckets: make(map[string][]placed, len(secrets))}
	for i, sec := range secrets {
		if sec == "" {
			continue // an empty secret is no secret (it occurs everywhere)
		}
		if len(sec) < secretWindow {
			x.short = append(x.short, i)
			continue
		}
		off := x.emptiestOffset(sec)
		w := sec[off : off+secretWindow]
		x.buckets[w] = append(x.buckets[w], placed{secret: i, off: off})
	}
	return x
}

// emptiestOffset picks, among five spread-out windows, the least used.
func (x *secretIndex) emptiestOffset(sec string) int {
	last := len(sec) - secretWindow
	best, bestLen := 0, -1
	for _, off := range [...]int{0, last / 4, last / 2, 3 * last / 4, last} {
		if n := len(x.buckets[sec[off:off+secretWindow]]); bestLen < 0 || n < bestLen {
			best, bestLen = off, n
		}
	}
	return best
}

// find returns the index of a secret occurring in text, or -1.
func (x *secretIndex) find(text string) int {
	for _, i := range x.short {
		if strings.Contains(text, x.secrets[i]) {
			return i
		}
	}
	if len(x.buckets) == 0 {
		return -1
	}
	for i := 0; i+secretWindow <= len(text); i++ {
		for _, p := range x.buckets[text[i:i+secretWindow]] {
			start := i - p.off
			if start >= 0 && strings.HasPrefix(text[start:], x.secrets[p.secret]) {
				return p.secret
			}
		}
	}
	return -1
}
