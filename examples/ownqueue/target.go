package ownqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/durasim/durasim/target"
)

// Target is the queue as durasim drives it: a [target.Queue] over a
// [Queue] and the handlers' effects table, which share one store so that
// a handler's effect and its message's delete commit together.
type Target struct {
	cfg     Config
	q       *Queue
	effects []target.Effect
}

var _ target.Queue = (*Target)(nil)

// DefaultConfig is the settings of the sweep: a 5s visibility timeout,
// retries after 1s·n², at most a minute.
func DefaultConfig() Config {
	return Config{VisibilityTimeout: 5 * target.Second, RetryBase: target.Second, RetryCap: 60 * target.Second}
}

// NewTarget is the queue with cfg's settings as a target.
func NewTarget(cfg Config) *Target { return &Target{cfg: cfg} }

func (t *Target) Name() string    { return "ownqueue" }
func (t *Target) Version() string { return "example" }
func (t *Target) Backend() string { return "memory" }
func (t *Target) Close() error    { return nil }

// Policy is the queue's rules, unlike River's: a receive's visibility
// timeout runs out on its own and the sweep takes the message back (no
// rescuer); only the latest receipt may delete, fail or snooze a message;
// a snooze keeps its receive counted (dead-lettered at the last); a
// cancel records no failure; a redrive starts the receive count again; a
// deduplicated body is held only by a live message (a deleted one lets it
// go); a transactional ack of a message no longer held fails; retries
// after 1s·n² ±20%, none made ready early.
func (t *Target) Policy() target.Policy {
	return target.Policy{
		Lease:              t.cfg.VisibilityTimeout,
		Backoff:            target.Backoff{Base: t.cfg.RetryBase, Exponent: 2, Cap: t.cfg.RetryCap, JitterPPM: 200_000},
		Snooze:             target.AttemptCounted,
		CancelCountsError:  false,
		Retry:              target.RetryResetsAttempts,
		UniqueStates:       []target.State{target.Available, target.Scheduled, target.Running, target.Retryable},
		CompleteNotRunning: target.CompletionFails,
		Receipts:           true,
	}
}

func (t *Target) Reset(_ context.Context, rand target.Rand) error {
	t.q, t.effects = New(t.cfg, rand.Int64N), nil
	return nil
}

func (t *Target) Conn(actor string) target.Conn { return &conn{t: t, actor: actor} }

func (t *Target) Snapshot(context.Context) (target.Snapshot, error) {
	var s target.Snapshot
	for _, m := range t.q.Messages() {
		j, err := jobOf(m)
		if err != nil {
			return s, err
		}
		s.Jobs = append(s.Jobs, j)
	}
	s.Effects = slices.Clone(t.effects)
	return s, nil
}

// statuses are the queue's statuses in the seam's words.
var statuses = [...]target.State{Ready: target.Available, Delayed: target.Retryable, Snoozed: target.Scheduled, InFlight: target.Running,
	Done: target.Completed, Cancelled: target.Cancelled, DeadLetter: target.Discarded}

func jobOf(m Message) (target.Job, error) {
	var a target.Args
	if err := json.Unmarshal([]byte(m.Body), &a); err != nil {
		return target.Job{}, fmt.Errorf("ownqueue: message %d: body: %w", m.ID, err)
	}
	return target.Job{ID: target.JobID(m.ID), Kind: m.Kind, Args: a, State: statuses[m.Status], Attempt: m.Receives,
		MaxAttempts: m.MaxReceives, AttemptedBy: m.ReceivedBy, AttemptedAt: m.ReceivedAt, ScheduledAt: m.VisibleAt,
		FinalizedAt: m.FinishedAt, Errors: m.Failures, Unique: m.Dedupe}, nil
}

// receipt is the receive a fetched job stands for.
func receipt(j target.Job) Receipt {
	return Receipt{ID: int64(j.ID), Receive: j.Attempt, Received: j.AttemptedAt}
}

func body(a target.Args) string {
	b, _ := json.Marshal(a) // plain strings and ints: cannot fail
	return string(b)
}

type conn struct {
	t     *Target
	actor string
}

func (c *conn) Insert(_ context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	id, dup := c.t.q.Send(now, r.Kind, body(r.Args), r.MaxAttempts, r.Unique)
	return target.Inserted{Job: target.JobID(id), Skipped: dup}, nil
}

func (c *conn) Fetch(_ context.Context, now target.Time, max int) ([]target.Job, error) {
	var out []target.Job
	for _, r := range c.t.q.Receive(now, c.actor, max) {
		j, err := c.t.job(r.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

func (t *Target) job(id int64) (target.Job, error) {
	m, ok := t.q.Message(id)
	if !ok {
		return target.Job{}, target.ErrNotFound
	}
	return jobOf(m)
}

// Report is the consumer's end of a receive: delete, fail (backoff or
// dead letter), cancel, or snooze; a stale receipt changes nothing.
func (c *conn) Report(_ context.Context, now target.Time, j target.Job, r target.Report) (target.Reported, error) {
	var err error
	switch rc := receipt(j); r.Outcome {
	case target.Done:
		err = c.t.q.Delete(now, rc)
	case target.Errored:
		err = c.t.q.Fail(now, rc)
	case target.Cancel:
		err = c.t.q.Cancel(now, rc)
	case target.Snooze:
		err = c.t.q.Snooze(now, rc, r.Snooze)
	default:
		return target.Reported{}, fmt.Errorf("ownqueue: unknown outcome %s", r.Outcome)
	}
	if err != nil && !errors.Is(err, ErrStaleReceipt) {
		return target.Reported{}, err
	}
	row, jerr := c.t.job(int64(j.ID))
	if jerr != nil {
		return target.Reported{}, jerr
	}
	return target.Reported{Applied: err == nil, State: row.State, ScheduledAt: row.ScheduledAt, Attempt: row.Attempt}, nil
}

// Stuck finds nothing: the queue has no rescuer, its visibility timeouts
// run out on their own (Policy.Lease) and Schedule takes them back.
func (c *conn) Stuck(context.Context, target.Time) ([]target.Job, error) { return nil, nil }

// Rescue is never given a job (Stuck finds none).
func (c *conn) Rescue(_ context.Context, _ target.Time, stuck []target.Job) ([]target.Rescued, error) {
	if len(stuck) > 0 {
		return nil, errors.New("ownqueue: no rescuer: leases run out on their own")
	}
	return nil, nil
}

// Schedule is the queue's sweep.
func (c *conn) Schedule(_ context.Context, now target.Time) ([]target.Rescued, error) {
	var out []target.Rescued
	for _, ch := range c.t.q.Sweep(now) {
		row, err := c.t.job(ch.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, target.Rescued{Job: row.ID, State: row.State, ScheduledAt: row.ScheduledAt, Applied: true})
	}
	return out, nil
}

// Retry is a dead-letter redrive.
func (c *conn) Retry(_ context.Context, now target.Time, id target.JobID) (target.Job, error) {
	m, err := c.t.q.Redrive(now, int64(id))
	switch {
	case errors.Is(err, ErrNoMessage):
		return target.Job{}, target.ErrNotFound
	case errors.Is(err, ErrDuplicate):
		return target.Job{}, target.ErrUniqueConflict
	case err != nil:
		return target.Job{}, err
	}
	return jobOf(m)
}

func (c *conn) Begin(context.Context) (target.Tx, error) { return &tx{c: c, qtx: c.t.q.Begin()}, nil }

// tx is a handler's transaction: its effects and the queue's batch
// commit together.
type tx struct {
	c       *conn
	qtx     *Tx
	effects []target.Effect
	done    bool
}

func (t *tx) Effect(_ context.Context, e target.Effect) (bool, error) {
	if e.Dedupe && slices.ContainsFunc(append(slices.Clone(t.c.t.effects), t.effects...), func(x target.Effect) bool { return x.Key == e.Key }) {
		return false, nil
	}
	e.Dedupe = false // stored as written
	t.effects = append(t.effects, e)
	return true, nil
}

// Complete acks the job in the transaction: the row as it will be once
// committed, or ErrNotRunning for a receipt that no longer holds it.
func (t *tx) Complete(_ context.Context, now target.Time, j target.Job) (target.Job, error) {
	if err := t.qtx.Ack(now, receipt(j)); errors.Is(err, ErrStaleReceipt) {
		return target.Job{}, target.ErrNotRunning
	} else if err != nil {
		return target.Job{}, err
	}
	row, err := t.c.t.job(int64(j.ID))
	row.State, row.FinalizedAt = target.Completed, now
	return row, err
}

func (t *tx) Insert(_ context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	if r.Unique {
		return target.Inserted{}, errors.New("ownqueue: no deduplicated send in a transaction")
	}
	return target.Inserted{Job: target.JobID(t.qtx.Send(now, r.Kind, body(r.Args), r.MaxAttempts))}, nil
}

func (t *tx) Commit(context.Context) error {
	if t.done {
		return errors.New("ownqueue: transaction already ended")
	}
	t.done = true
	// Effects are numbered in commit order, as a table's id would be.
	if err := t.qtx.Commit(); err != nil {
		return err
	}
	for _, e := range t.effects {
		e.Seq = int64(len(t.c.t.effects) + 1)
		t.c.t.effects = append(t.c.t.effects, e)
	}
	return nil
}

func (t *tx) Rollback(context.Context) error {
	t.done = true
	return nil
}
