package invariants

import "github.com/durasim/durasim/model"

// bucket is a token bucket replayed over the history: a burst of
// Capacity, then one token every Refill, none banked while full — so a
// bucket full at time 0 is the same as one created full at the first
// request. It judges both directions of a rate limit: a call it lets
// through had a token ([bucket.take]), and a call refused as
// rate_limited had none ([bucket.free]).
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

// limited reports whether the configuration gives a limit at all (a zero
// capacity or refill means unknown: nothing is checked).
func (b *bucket) limited() bool { return b.cfg.Capacity > 0 && b.cfg.Refill > 0 }

// refill adds the tokens the refill has brought by now. A full bucket
// banks no refill time, so the next token comes a whole refill after now.
func (b *bucket) refill(now model.Time) {
	if n := (now - b.last) / b.cfg.Refill; n > 0 {
		b.tokens = min(int64(b.cfg.Capacity), b.tokens+n)
		b.last += n * b.cfg.Refill
	}
	if b.tokens >= int64(b.cfg.Capacity) {
		b.last = now
	}
}

// take spends a token at now; ok is false when none is left (or the
// configuration gives no limit, in which case nothing is checked).
func (b *bucket) take(now model.Time, seq uint64) (ok bool) {
	if !b.limited() {
		return true
	}
	b.refill(now)
	if b.tokens <= 0 {
		return false
	}
	b.tokens--
	b.taken = append(b.taken, seq)
	return true
}

// free reports whether a token is left at now, without spending it: a
// call refused as rate_limited then was refused with the limit unspent.
// (With no limit configured nothing is known, and nothing is free.)
// Refilling here changes nothing a later take sees: the refill depends
// only on the times of the takes.
func (b *bucket) free(now model.Time) bool {
	if !b.limited() {
		return false
	}
	b.refill(now)
	return b.tokens > 0
}

// nextToken is when the next token comes, once the bucket is empty.
func (b *bucket) nextToken() model.Time { return b.last + b.cfg.Refill }

// recent returns the last Capacity events that took a token.
func (b *bucket) recent() []uint64 {
	return b.taken[max(0, len(b.taken)-int(b.cfg.Capacity)):]
}
