package model

import "testing"

// TestBucketBanksNoRefillWhileFull: a bucket full since its creation
// gives its next token a whole refill after a take, however long it sat
// full before (seed 003's per-tenant limit: one reprocess a minute).
func TestBucketBanksNoRefillWhileFull(t *testing.T) {
	minute := 60_000 * Millisecond
	b := newBucket(BucketConfig{Capacity: 1, Refill: minute}, 0)
	steps := []struct {
		at   Time
		want bool
	}{
		{6_000 * Millisecond, true},            // full since 0: take
		{60_000 * Millisecond, false},          // a minute after creation, 54 s after the take: no token yet
		{65_999 * Millisecond, false},          // just short of a minute after the take
		{66_000 * Millisecond, true},           // a minute after the take
		{66_000*Millisecond + 2*minute, true},  // two minutes idle refill one token (capacity 1)
		{66_001*Millisecond + 2*minute, false}, // and only one
	}
	for _, s := range steps {
		if got := b.take(s.at); got != s.want {
			t.Fatalf("take at %v = %v, want %v", s.at, got, s.want)
		}
	}
}
