package invariants

import "github.com/durasim/durasim/model"

// bucket is a token bucket replayed over the history: a burst of
// Capacity, then one token every Refill, none banked while full — so a
// bucket full at time 0 is the same as one created full at the first
// request.
type bucket struct {
	cfg    model.BucketConfig
	tokens int64
	last   model.Time
	taken  []uint64 // the events that took a token, for proofs
}

func newBucket(c model.BucketConfig) bucket {
	return bucket{cfg: c, tokens: int64(c.Capacity)}
}

// reset makes b what newBucket(c) returns, keeping its log's array.
func (b *bucket) reset(c model.BucketConfig) {
	*b = bucket{cfg: c, tokens: int64(c.Capacity), taken: b.taken[:0]}
}

// take spends a token at now; ok is false when none is left (or the
// configuration gives no limit, in which case nothing is checked).
func (b *bucket) take(now model.Time, seq uint64) (ok bool) {
	if b.cfg.Capacity <= 0 || b.cfg.Refill <= 0 {
		return true
	}
	if n := (now - b.last) / b.cfg.Refill; n > 0 {
		b.tokens = min(int64(b.cfg.Capacity), b.tokens+n)
		b.last += n * b.cfg.Refill
	}
	if b.tokens >= int64(b.cfg.Capacity) {
		b.last = now // full: no refill time is banked, so full at 0 is full at the first request
	}
	if b.tokens <= 0 {
		return false
	}
	b.tokens--
	b.taken = append(b.taken, seq)
	return true
}

// recent returns the last Capacity events that took a token.
func (b *bucket) recent() []uint64 {
	return b.taken[max(0, len(b.taken)-int(b.cfg.Capacity)):]
}
