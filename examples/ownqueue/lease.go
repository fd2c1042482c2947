//go:build !ownqueue_bug_early_redelivery

package ownqueue

// leaseUntil is when a message received at now becomes visible again:
// the visibility timeout runs from the receive.
func leaseUntil(m *Message, now, timeout Time) Time { return now + timeout }
