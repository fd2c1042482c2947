package ownqueue

import (
	"errors"
	"slices"
)

// Time is the queue's clock: nanoseconds, passed into every call by its
// caller (the queue reads no clock of its own).
type Time = int64

// Config is the queue's settings.
type Config struct {
	// VisibilityTimeout is how long a receive hides a message: unless it
	// is deleted, released or extended before, it becomes visible again
	// once the timeout has passed (at the next Sweep).
	VisibilityTimeout Time
	// RetryBase and RetryCap shape the delay after a failure: RetryBase·n²
	// after the n-th failure, at most RetryCap, ±20%.
	RetryBase, RetryCap Time
}

// Status is where a message is in its life.
type Status uint8

// The statuses.
const (
	Ready      Status = iota // visible: the next Receive may take it
	Delayed                  // waiting out its backoff after a failure
	Snoozed                  // released by its consumer to be received later
	InFlight                 // received, hidden until its visibility timeout
	Done                     // deleted: acknowledged
	Cancelled                // deleted: its consumer gave up on it
	DeadLetter               // failed or timed out at its last receive: kept for an operator's redrive
)

// Gone reports whether a message in s is deleted or dead-lettered: only a
// redrive brings it back.
func (s Status) Gone() bool { return s == Done || s == Cancelled || s == DeadLetter }

// Message is one message as the queue keeps it.
type Message struct {
	ID          int64
	Kind        string
	Body        string
	Dedupe      bool // sent with deduplication: one live message per (Kind, Body)
	MaxReceives int  // dead-lettered after its MaxReceives-th receive fails or times out
	Status      Status
	Receives    int      // receives so far: each one counts, whatever ends it
	Failures    int      // failures reported
	ReceivedBy  []string // consumers, in receive order
	ReceivedAt  Time     // the latest receive (0: never received)
	VisibleAt   Time     // when it became (or, delayed or snoozed, becomes) ready
	LeaseUntil  Time     // an in-flight message's visibility timeout
	FinishedAt  Time     // when it was deleted or dead-lettered
}

// Receipt names one receive of a message: only the consumer holding the
// latest receive may delete, release or extend it.
type Receipt struct {
	ID       int64
	Receive  int
	Received Time
}

// ErrStaleReceipt is what a call with a receipt that no longer holds its
// message returns: the message was received again, released, deleted or
// taken back when its visibility timeout passed.
var ErrStaleReceipt = errors.New("ownqueue: stale receipt")

// ErrNoMessage is what a redrive of an unknown message returns.
var ErrNoMessage = errors.New("ownqueue: no such message")

// ErrDuplicate is what a redrive returns when another live message has
// the same deduplicated body.
var ErrDuplicate = errors.New("ownqueue: a live message has the same body")

// Queue is an in-memory queue with visibility timeouts, receive counts,
// retry backoff and a dead letter. It is not safe for concurrent use:
// the caller serializes its calls.
type Queue struct {
	cfg    Config
	msgs   []*Message // in id order
	lastID int64      // ids are handed out once, as a sequence (a rolled-back send leaves a gap)
	rand   func(n int64) int64
}

// New is an empty queue; rand draws the retry jitter (uniform in [0, n)).
func New(cfg Config, rand func(n int64) int64) *Queue { return &Queue{cfg: cfg, rand: rand} }

// Messages are the queue's messages, in id order (copies).
func (q *Queue) Messages() []Message {
	out := make([]Message, len(q.msgs))
	for i, m := range q.msgs {
		out[i] = *m
		out[i].ReceivedBy = slices.Clone(m.ReceivedBy)
	}
	return out
}

// Message is the message id (a copy), if there is one.
func (q *Queue) Message(id int64) (Message, bool) {
	if m := q.find(id); m != nil {
		c := *m
		c.ReceivedBy = slices.Clone(m.ReceivedBy)
		return c, true
	}
	return Message{}, false
}

func (q *Queue) find(id int64) *Message {
	i, ok := slices.BinarySearchFunc(q.msgs, id, func(m *Message, id int64) int { return int(m.ID - id) })
	if !ok {
		return nil
	}
	return q.msgs[i]
}

// Send adds a message, ready at once. With dedupe, a live message of the
// same kind and body (not deleted nor dead-lettered) is returned instead,
// duplicate true.
func (q *Queue) Send(now Time, kind, body string, maxReceives int, dedupe bool) (id int64, duplicate bool) {
	if dedupe {
		if m := q.twin(kind, body, 0); m != nil {
			return m.ID, true
		}
	}
	m := q.newMessage(now, kind, body, maxReceives)
	m.Dedupe = dedupe
	q.msgs = append(q.msgs, m)
	return m.ID, false
}

func (q *Queue) newMessage(now Time, kind, body string, maxReceives int) *Message {
	q.lastID++
	return &Message{ID: q.lastID, Kind: kind, Body: body, MaxReceives: maxReceives, VisibleAt: now}
}

// twin is a live deduplicated message of kind and body other than id.
func (q *Queue) twin(kind, body string, id int64) *Message {
	for _, m := range q.msgs {
		if m.ID != id && m.Dedupe && m.Kind == kind && m.Body == body && !m.Status.Gone() {
			return m
		}
	}
	return nil
}

// Receive takes up to max ready messages, oldest first, for consumer:
// each receive counts, and hides the message for the visibility timeout.
func (q *Queue) Receive(now Time, consumer string, max int) []Receipt {
	var out []Receipt
	for _, m := range q.msgs {
		if len(out) == max {
			break
		}
		if m.Status != Ready {
			continue
		}
		m.Status, m.Receives, m.ReceivedAt = InFlight, m.Receives+1, now
		m.ReceivedBy = append(m.ReceivedBy, consumer)
		m.LeaseUntil = leaseUntil(m, now, q.cfg.VisibilityTimeout)
		out = append(out, Receipt{ID: m.ID, Receive: m.Receives, Received: now})
	}
	return out
}

// holder is the in-flight message r still holds (nil: stale).
func (q *Queue) holder(r Receipt) *Message {
	m := q.find(r.ID)
	if m == nil || !holds(m, r) {
		return nil
	}
	return m
}

// Delete acknowledges a message: done.
func (q *Queue) Delete(now Time, r Receipt) error { return q.finish(now, r, Done) }

// Cancel deletes a message its consumer gives up on.
func (q *Queue) Cancel(now Time, r Receipt) error { return q.finish(now, r, Cancelled) }

func (q *Queue) finish(now Time, r Receipt, s Status) error {
	m := q.holder(r)
	if m == nil {
		return ErrStaleReceipt
	}
	m.Status, m.FinishedAt = s, now
	return nil
}

// Fail reports a failed receive: the message waits out its backoff, or,
// at its last receive, is dead-lettered.
func (q *Queue) Fail(now Time, r Receipt) error {
	m := q.holder(r)
	if m == nil {
		return ErrStaleReceipt
	}
	m.Failures++
	if m.Receives >= m.MaxReceives {
		m.Status, m.FinishedAt = DeadLetter, now
		return nil
	}
	m.Status, m.VisibleAt = Delayed, now+q.backoff(m.Failures)
	return nil
}

// Snooze releases a message to be received again after d; the receive
// stays counted, so at its last receive the message is dead-lettered.
func (q *Queue) Snooze(now Time, r Receipt, d Time) error {
	m := q.holder(r)
	if m == nil {
		return ErrStaleReceipt
	}
	if m.Receives >= m.MaxReceives {
		m.Status, m.FinishedAt = DeadLetter, now
		return nil
	}
	m.Status, m.VisibleAt = Snoozed, now+d
	return nil
}

// Extend keeps a message hidden for d more from now (a consumer's
// heartbeat on long work).
func (q *Queue) Extend(now Time, r Receipt, d Time) error {
	m := q.holder(r)
	if m == nil {
		return ErrStaleReceipt
	}
	m.LeaseUntil = now + d
	return nil
}

// backoff is the delay after the n-th failure: RetryBase·n², at most
// RetryCap, ±20%, in whole milliseconds.
func (q *Queue) backoff(n int) Time {
	d := min(q.cfg.RetryBase*Time(n)*Time(n), q.cfg.RetryCap)
	j := d / 5
	return (d - j + q.rand(2*j+1)) / 1_000_000 * 1_000_000
}

// Change is one message a sweep made ready or dead-lettered.
type Change struct {
	ID     int64
	Status Status
}

// Sweep is the queue's reaper, run every so often: delayed and snoozed
// messages whose time has come become ready, and in-flight messages whose
// visibility timeout passed become ready again, or, after their last
// receive, dead letters.
func (q *Queue) Sweep(now Time) []Change {
	var out []Change
	for _, m := range q.msgs {
		switch {
		case (m.Status == Delayed || m.Status == Snoozed) && m.VisibleAt <= now:
			m.Status = Ready
		case m.Status == InFlight && m.LeaseUntil <= now && m.Receives >= m.MaxReceives:
			m.Status, m.FinishedAt = DeadLetter, now
		case m.Status == InFlight && m.LeaseUntil <= now:
			m.Status, m.VisibleAt = Ready, now
		default:
			continue
		}
		out = append(out, Change{ID: m.ID, Status: m.Status})
	}
	return out
}

// Redrive brings a deleted or dead-lettered message back, ready, with
// its receive count started again (as a dead-letter redrive does).
func (q *Queue) Redrive(now Time, id int64) (Message, error) {
	m := q.find(id)
	switch {
	case m == nil:
		return Message{}, ErrNoMessage
	case !m.Status.Gone():
		return *m, nil
	case m.Dedupe && q.twin(m.Kind, m.Body, m.ID) != nil:
		return Message{}, ErrDuplicate
	}
	m.Status, m.Receives, m.VisibleAt, m.FinishedAt = Ready, 0, now, 0
	return *m, nil
}

// Tx is a batch of acknowledgements and sends that commit together or
// not at all (with the caller's own writes: see the target adapter).
// Calls are serialized, so nothing moves between a Tx's Ack and its
// Commit, as if the message were locked.
type Tx struct {
	q     *Queue
	acks  []Receipt
	sends []*Message
	at    Time // the latest time its calls were given: when it commits
}

// Begin opens a transaction.
func (q *Queue) Begin() *Tx { return &Tx{q: q} }

// Ack checks that r holds its message and deletes it at the commit.
func (t *Tx) Ack(now Time, r Receipt) error {
	if t.q.holder(r) == nil {
		return ErrStaleReceipt
	}
	t.at = max(t.at, now)
	t.acks = append(t.acks, r)
	return nil
}

// Send sends a message at the commit; its id is handed out now.
func (t *Tx) Send(now Time, kind, body string, maxReceives int) int64 {
	m := t.q.newMessage(now, kind, body, maxReceives)
	t.at = max(t.at, now)
	t.sends = append(t.sends, m)
	return m.ID
}

// Commit applies the transaction, at the time of its latest call.
func (t *Tx) Commit() error {
	for _, r := range t.acks {
		if t.q.holder(r) == nil {
			return ErrStaleReceipt
		}
	}
	for _, r := range t.acks {
		m := t.q.holder(r)
		m.Status, m.FinishedAt = Done, t.at
	}
	t.q.msgs = append(t.q.msgs, t.sends...)
	t.acks, t.sends = nil, nil
	return nil
}
