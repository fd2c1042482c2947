//go:build ownqueue_bug_early_redelivery

package ownqueue

// leaseUntil, as first written: the visibility timeout counted from when
// the message became visible (VisibleAt) rather than from the receive. A
// message that waited in the queue longer than the timeout is received
// with its lease already run out, and the next sweep hands it to another
// consumer while the first still works on it.
func leaseUntil(m *Message, now, timeout Time) Time { return m.VisibleAt + timeout }
