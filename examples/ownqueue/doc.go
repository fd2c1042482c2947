// Package ownqueue is an example of testing one's own queue with durasim:
// a small queue written as a user would (in memory, plain Go, in the
// style of SQS), its [target.Queue] adapter, the rules it promises as its
// [target.Policy], and a go test sweep of it (sweep_test.go).
//
// # The queue
//
// [Queue] keeps messages in memory. A receive hides a message for the
// visibility timeout and counts ([Message.Receives]); the consumer
// deletes it ([Queue.Delete]), fails it (retried after a backoff, or
// dead-lettered at its last receive), cancels it, snoozes it, or extends
// its timeout. A message whose timeout runs out is made visible again by
// the next [Queue.Sweep], the queue's reaper, or dead-lettered if that
// receive was its last; a redrive brings a dead letter back. Only the
// latest receive's [Receipt] may act on a message. A [Tx] deletes
// messages and sends new ones together with the caller's writes.
//
// # The target
//
// [Target] maps the seam's calls onto the queue: Insert is a send (a
// unique insert deduplicates the body), Fetch a receive, Report a
// delete, fail, cancel or snooze by the fetched job's receipt, Schedule
// the sweep, Retry a redrive; Stuck finds nothing and Rescue is never
// given a job, since the queue has no rescuer. Its Policy declares what
// differs from River's rules: a lease that runs out on its own
// (Policy.Lease), receipts (Policy.Receipts), a counted snooze, no
// failure for a cancel, a redrive that starts the count again, a body
// held only by a live message, a failing transactional ack.
//
// # Planted bugs
//
// Two bugs a user might write sit behind build tags, each replacing one
// function: ownqueue_bug_early_redelivery (lease_bug.go: the timeout
// counted from when the message became visible, not from the receive)
// and ownqueue_bug_ack_wrong_receipt (receipt_bug.go: any receipt of an
// in-flight message holds it). The sweep passes without them and catches
// each with a shrunk counterexample and the command that replays it.
package ownqueue
