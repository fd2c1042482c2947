//go:build !ownqueue_bug_ack_wrong_receipt

package ownqueue

// holds reports whether receipt r is the latest receive of message m, in
// flight: a consumer whose message was taken back and received again
// holds it no more.
func holds(m *Message, r Receipt) bool {
	return m.Status == InFlight && m.Receives == r.Receive && m.ReceivedAt == r.Received
}
