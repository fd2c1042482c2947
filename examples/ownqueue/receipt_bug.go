//go:build ownqueue_bug_ack_wrong_receipt

package ownqueue

// holds, as first written: any receipt of an in-flight message holds it,
// since it names the message. A consumer whose visibility timeout ran out
// can then delete (or fail, or snooze) the message another consumer has
// received since.
func holds(m *Message, r Receipt) bool { return m.Status == InFlight && m.ID == r.ID }
