package ownqueue_test

import (
	"errors"
	"testing"

	"github.com/durasim/durasim/examples/ownqueue"
)

const sec = 1_000_000_000

// The queue's own unit tests, as its author wrote them: each path once,
// on a message received as soon as it is sent. (The planted bugs pass
// them: it takes a message that waited, or a consumer whose timeout ran
// out, to show them, which is what the sweep is for.)

func newQueue() *ownqueue.Queue {
	return ownqueue.New(ownqueue.Config{VisibilityTimeout: 5 * sec, RetryBase: sec, RetryCap: 60 * sec}, func(n int64) int64 { return n / 2 })
}

func status(t *testing.T, q *ownqueue.Queue, id int64) ownqueue.Status {
	t.Helper()
	m, ok := q.Message(id)
	if !ok {
		t.Fatalf("message %d not found", id)
	}
	return m.Status
}

func TestDeleteAfterReceive(t *testing.T) {
	q := newQueue()
	id, _ := q.Send(0, "k", "a", 3, false)
	rs := q.Receive(0, "c1", 10)
	if len(rs) != 1 || rs[0].ID != id || rs[0].Receive != 1 {
		t.Fatalf("Receive = %+v", rs)
	}
	if got := q.Receive(sec, "c2", 10); len(got) != 0 {
		t.Fatalf("an in-flight message was received again: %+v", got)
	}
	if err := q.Delete(sec, rs[0]); err != nil || status(t, q, id) != ownqueue.Done {
		t.Fatalf("Delete: %v, status %d", err, status(t, q, id))
	}
	if err := q.Delete(sec, rs[0]); !errors.Is(err, ownqueue.ErrStaleReceipt) {
		t.Fatalf("a second Delete: %v, want a stale receipt", err)
	}
}

func TestTimeoutRedeliversThenDeadLetters(t *testing.T) {
	q := newQueue()
	id, _ := q.Send(0, "k", "a", 2, false)
	q.Receive(0, "c1", 1)
	if ch := q.Sweep(5*sec - 1); len(ch) != 0 {
		t.Fatalf("swept before the timeout: %+v", ch)
	}
	if ch := q.Sweep(5 * sec); len(ch) != 1 || ch[0].Status != ownqueue.Ready {
		t.Fatalf("Sweep at the timeout = %+v, want ready", ch)
	}
	q.Receive(5*sec, "c2", 1)
	if ch := q.Sweep(10 * sec); len(ch) != 1 || ch[0].Status != ownqueue.DeadLetter {
		t.Fatalf("Sweep after the last receive's timeout = %+v, want a dead letter", ch)
	}
	if m, _ := q.Message(id); m.Receives != 2 || m.Failures != 0 {
		t.Fatalf("receives %d failures %d, want 2 and 0", m.Receives, m.Failures)
	}
}

func TestFailBacksOff(t *testing.T) {
	q := newQueue()
	id, _ := q.Send(0, "k", "a", 3, false)
	r := q.Receive(0, "c1", 1)[0]
	if err := q.Fail(0, r); err != nil {
		t.Fatal(err)
	}
	m, _ := q.Message(id)
	if m.Status != ownqueue.Delayed || m.VisibleAt != sec { // 1s·1² ±20%, the middle drawn
		t.Fatalf("after a failure: status %d visible at %d, want delayed at 1s", m.Status, m.VisibleAt)
	}
	if ch := q.Sweep(sec); len(ch) != 1 || ch[0].Status != ownqueue.Ready {
		t.Fatalf("Sweep when due = %+v", ch)
	}
}

func TestExtendAndSnooze(t *testing.T) {
	q := newQueue()
	id, _ := q.Send(0, "k", "a", 1, false)
	r := q.Receive(0, "c1", 1)[0]
	if err := q.Extend(4*sec, r, 5*sec); err != nil {
		t.Fatal(err)
	}
	if ch := q.Sweep(6 * sec); len(ch) != 0 {
		t.Fatalf("an extended message was swept: %+v", ch)
	}
	if err := q.Snooze(6*sec, r, sec); err != nil || status(t, q, id) != ownqueue.DeadLetter {
		t.Fatalf("a snooze at the last receive: %v, status %d, want a dead letter", err, status(t, q, id))
	}
}

func TestDedupeAndRedrive(t *testing.T) {
	q := newQueue()
	id, _ := q.Send(0, "k", "a", 1, true)
	if again, dup := q.Send(0, "k", "a", 1, true); !dup || again != id {
		t.Fatalf("a live duplicate: %d %v", again, dup)
	}
	r := q.Receive(0, "c1", 1)[0]
	if err := q.Fail(0, r); err != nil || status(t, q, id) != ownqueue.DeadLetter {
		t.Fatalf("a failure at the last receive: %v, status %d", err, status(t, q, id))
	}
	if m, err := q.Redrive(sec, id); err != nil || m.Status != ownqueue.Ready || m.Receives != 0 {
		t.Fatalf("Redrive = %+v, %v", m, err)
	}
	q.Delete(sec, q.Receive(sec, "c1", 1)[0])
	if _, dup := q.Send(2*sec, "k", "a", 1, true); dup {
		t.Fatal("a deleted message still holds its body")
	}
	if _, err := q.Redrive(2*sec, id); !errors.Is(err, ownqueue.ErrDuplicate) {
		t.Fatalf("redriving beside a live duplicate: %v", err)
	}
}

func TestTxCommitsTogether(t *testing.T) {
	q := newQueue()
	id, _ := q.Send(0, "k", "a", 1, false)
	r := q.Receive(0, "c1", 1)[0]
	tx := q.Begin()
	if err := tx.Ack(sec, r); err != nil {
		t.Fatal(err)
	}
	out := tx.Send(sec, "k2", "b", 1)
	if _, ok := q.Message(out); ok || status(t, q, id) != ownqueue.InFlight {
		t.Fatal("a transaction's writes showed before its commit")
	}
	if err := tx.Commit(); err != nil || status(t, q, id) != ownqueue.Done || status(t, q, out) != ownqueue.Ready {
		t.Fatalf("Commit: %v", err)
	}
	rolledBack := q.Begin().Send(sec, "k3", "c", 1) // never committed: its id is not handed out again
	if next, _ := q.Send(sec, "k4", "d", 1, false); next == rolledBack {
		t.Fatalf("id %d handed out twice", next)
	}
}
