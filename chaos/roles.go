package chaos

import (
	"context"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// Job keys carry the job's behaviour so that every process, restarted or
// not, agrees on it without asking anyone: ".poison" jobs fail permanently
// at extract (DLQ, never retried); ".flakyN" jobs fail transiently at
// validate on their first N attempts (Retry with backoff).
const (
	poisonSuffix = ".poison"
	flakyMark    = ".flaky"
)

// JobKey is the idempotency key of the orchestrator's ith job.
func JobKey(i int, poison bool, flaky int) string {
	k := "chaos-" + pad(i)
	switch {
	case poison:
		k += poisonSuffix
	case flaky > 0:
		k += flakyMark + string(rune('0'+flaky))
	}
	return k
}

func pad(i int) string {
	s := []byte("000000")
	for p := len(s) - 1; p >= 0 && i > 0; p-- {
		s[p] = byte('0' + i%10)
		i /= 10
	}
	return string(s)
}

// IsPoison reports whether the key marks a permanently failing job.
func IsPoison(key string) bool { return strings.HasSuffix(key, poisonSuffix) }

// Flaky is how many first attempts of the key's job fail transiently.
func Flaky(key string) int32 {
	i := strings.LastIndex(key, flakyMark)
	if i < 0 || i+len(flakyMark) >= len(key) {
		return 0
	}
	c := key[i+len(flakyMark)]
	if c < '0' || c > '9' {
		return 0
	}
	return int32(c - '0')
}

// StageValue is the deterministic result of a stage of a key: a retried or
// re-leased job must commit the same value (the store dedupes on it).
func StageValue(key string, s model.Stage) uint64 {
	h := fnv.New64a()
	h.Write([]byte(model.StageKey(key, s)))
	return h.Sum64()
}

func now(c clock.Clock) model.Time { return model.Time(c.Now().UnixNano()) }

// wall is the history's time base: the same clock the role runs on.
func wall(c clock.Clock) int64 { return c.Now().UnixNano() }

// Worker is the worker role: lease a job, run its remaining stages (work,
// commit the result with its outbox event, advance), ack. All time comes
// from Clock: clock.New() in a process, *clock.Mock in tests.
type Worker struct {
	Ops     sqlstore.Ops
	Clock   clock.Clock
	Name    string
	Lease   time.Duration // lease length; heartbeats renew it
	Work    time.Duration // simulated work per stage (0: none)
	Backoff time.Duration // first retry delay, doubled per attempt
	Idle    time.Duration // wait when nothing is visible
	Hist    *History
	Kill    *Killer
	// Hook, when set, runs at every point (tests use it to move a mock
	// clock or interleave another worker deterministically).
	Hook func(Point, Entry)
}

func (w *Worker) cross(p Point, e Entry) {
	if w.Hook != nil {
		w.Hook(p, e)
	}
	w.Kill.Cross(p, e)
}

// Run processes jobs until ctx is done; it returns nil then, or the first
// error that is not a refusal the protocol expects.
func (w *Worker) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		worked, err := w.ProcessOne(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if !worked && w.Idle > 0 {
			sleep(ctx, w.Clock, w.Idle)
		}
	}
	return nil
}

// Outcome is how ProcessOne left its job.
type Outcome int

// ProcessOne's outcomes.
const (
	Idle      Outcome = iota // nothing to lease
	Succeeded                // acked
	Retried                  // transient failure, back in the queue later
	DeadLettered
	Fenced // another worker holds the job now: we stopped touching it
)

// ProcessOne leases one job and runs it as far as it goes. worked is false
// when no job was visible.
func (w *Worker) ProcessOne(ctx context.Context) (worked bool, err error) {
	o, err := w.Step(ctx)
	return o != Idle, err
}

// Step is ProcessOne with its outcome.
func (w *Worker) Step(ctx context.Context) (Outcome, error) {
	t0 := wall(w.Clock)
	n := now(w.Clock)
	until := n + model.Time(w.Lease)
	l, ok, err := w.Ops.LeaseNext(ctx, sqlstore.LeaseReq{Worker: w.Name, Now: n, LeaseUntil: until})
	if err != nil || !ok {
		return Idle, err
	}
	e := Entry{Job: int64(l.Job), Fence: l.Fence, Stage: l.Stage.String(), Attempt: l.Attempt, T0: t0, T1: wall(w.Clock)}
	w.Hist.Write(withOp(e, OpLease))
	w.cross(AfterLease, e)

	for st := l.Stage; st < model.StageDone; st++ {
		e.Stage = st.String()
		// Renew when under half the lease is left: a slow stage must not
		// let another worker take the job from under us.
		if n := now(w.Clock); n+model.Time(w.Lease/2) > until {
			t0 := wall(w.Clock)
			nu := n + model.Time(w.Lease)
			if err := w.Ops.Heartbeat(ctx, l.Job, l.Fence, nu); err != nil {
				return w.refused(err, e, "heartbeat")
			}
			until = nu
			w.Hist.Write(withTimes(withOp(e, OpBeat), t0, wall(w.Clock)))
		}
		if w.Work > 0 {
			sleep(ctx, w.Clock, w.Work)
			if ctx.Err() != nil {
				return Idle, ctx.Err()
			}
		}
		w.cross(AfterExtract, e)
		if IsPoison(l.Key) && st == model.StageExtract {
			return w.dead(ctx, l, model.CodePoisonSchema)
		}
		if st == model.StageValidate && l.Attempt <= Flaky(l.Key) {
			return w.retry(ctx, l, e)
		}
		t0 := wall(w.Clock)
		c, err := w.Ops.Commit(ctx, sqlstore.CommitReq{
			Job: l.Job, Fence: l.Fence, Tenant: l.Tenant, Key: l.Key, Stage: st,
			PayloadHash: l.Payload, Value: StageValue(l.Key, st), Now: now(w.Clock),
			Fenced:       true, // a zombie's commit is refused, not just deduped
			BeforeCommit: func() { w.cross(AfterInsertBeforeCommit, e) },
		})
		if err != nil {
			return w.refused(err, e, "commit")
		}
		ce := withTimes(withOp(e, OpCommit), t0, wall(w.Clock))
		ce.Event, ce.Deduped = int64(c.EventID), c.Deduped
		w.Hist.Write(ce)
		w.cross(AfterCommitBeforeAck, ce)

		// The stage checkpoint (Advance) or, after the last stage, the
		// final Ack: either way the queue is told.
		t0 = wall(w.Clock)
		next := st + 1
		op := OpAdvance
		if next < model.StageDone {
			err = w.Ops.Advance(ctx, l.Job, l.Fence, next)
		} else {
			op = OpAck
			err = w.Ops.Ack(ctx, l.Job, l.Fence, now(w.Clock))
		}
		if err != nil {
			return w.refused(err, e, op)
		}
		ae := withTimes(withOp(e, op), t0, wall(w.Clock))
		ae.Stage = next.String()
		w.Hist.Write(ae)
		w.cross(AfterAck, ae)
	}
	return Succeeded, nil
}

func (w *Worker) dead(ctx context.Context, l sqlstore.Leased, code model.Code) (Outcome, error) {
	e := Entry{Job: int64(l.Job), Fence: l.Fence, Attempt: l.Attempt, Err: code.String(), T0: wall(w.Clock)}
	if err := w.Ops.Dead(ctx, l.Job, l.Fence, code, now(w.Clock)); err != nil {
		return w.refused(err, e, "dead")
	}
	e.T1 = wall(w.Clock)
	w.Hist.Write(withOp(e, OpDead))
	w.cross(AfterDLQWrite, e)
	return DeadLettered, nil
}

func (w *Worker) retry(ctx context.Context, l sqlstore.Leased, e Entry) (Outcome, error) {
	d := w.Backoff << min(max(l.Attempt-1, 0), 4)
	t0 := wall(w.Clock)
	if err := w.Ops.Retry(ctx, l.Job, l.Fence, now(w.Clock)+model.Time(d), model.CodeTransient); err != nil {
		return w.refused(err, e, "retry")
	}
	w.Hist.Write(withTimes(withOp(e, OpRetry), t0, wall(w.Clock)))
	return Retried, nil
}

// refused turns ErrFenced into the Fenced outcome (a zombie stops, as the
// protocol wants) and passes any other error up.
func (w *Worker) refused(err error, e Entry, what string) (Outcome, error) {
	if errors.Is(err, sqlstore.ErrFenced) {
		f := withOp(e, OpFenced)
		f.Err = what
		f.T1 = wall(w.Clock)
		w.Hist.Write(f)
		return Fenced, nil
	}
	return Idle, err
}

func withOp(e Entry, op string) Entry { e.Op = op; return e }

func withTimes(e Entry, t0, t1 int64) Entry { e.T0, e.T1 = t0, t1; return e }

// sleep waits d on c or until ctx is done.
func sleep(ctx context.Context, c clock.Clock, d time.Duration) {
	t := c.Timer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Relay is the relay role: claim unpublished outbox rows, publish each to
// the broker, mark it published. Several run at once. With Pub set (a
// second connection) the claim's row locks (FOR UPDATE SKIP LOCKED in
// PostgreSQL) are held while the rows are published, so concurrent relays
// skip them instead of publishing them too; the marks follow the claim's
// commit. A relay killed between publish and mark leaves a row that is
// published again later, and the consumer dedupes it.
type Relay struct {
	Ops   sqlstore.Ops
	Pub   sqlstore.Ops // publishes while Ops holds the claim; nil: no hold
	Clock clock.Clock
	Batch int
	Idle  time.Duration
	Hist  *History
	Kill  *Killer
}

// claimer is sqlstore.Conn's ClaimWith, not in the Ops contract.
type claimer interface {
	ClaimWith(ctx context.Context, limit int, hold func([]sqlstore.Row) error) ([]sqlstore.Row, error)
}

// Run relays until ctx is done.
func (r *Relay) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := r.Step(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if n == 0 && r.Idle > 0 {
			sleep(ctx, r.Clock, r.Idle)
		}
	}
	return nil
}

// Step relays one claimed batch and returns its size.
func (r *Relay) Step(ctx context.Context) (int, error) {
	t0 := wall(r.Clock)
	claimed := func(rows []sqlstore.Row) {
		ce := Entry{Op: OpClaim, T0: t0, T1: wall(r.Clock)}
		for _, row := range rows {
			ce.Events = append(ce.Events, int64(row.EventID))
		}
		r.Hist.Write(ce)
		r.Kill.Cross(RelayAfterClaim, ce)
	}
	var rows []sqlstore.Row
	var err error
	if cw, ok := r.Ops.(claimer); ok && r.Pub != nil {
		rows, err = cw.ClaimWith(ctx, max(r.Batch, 1), func(rows []sqlstore.Row) error {
			if len(rows) == 0 {
				return nil
			}
			claimed(rows)
			for _, row := range rows {
				if err := r.publish(ctx, r.Pub, row); err != nil {
					return err
				}
			}
			return nil
		})
	} else {
		rows, err = r.Ops.ClaimUnpublished(ctx, max(r.Batch, 1))
		if err == nil && len(rows) > 0 {
			claimed(rows)
			for _, row := range rows {
				if err = r.publish(ctx, r.Ops, row); err != nil {
					break
				}
			}
		}
	}
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	for _, row := range rows {
		t0 := wall(r.Clock)
		if err := r.Ops.MarkPublished(ctx, row.EventID, now(r.Clock)); err != nil {
			return 0, err
		}
		r.Hist.Write(Entry{Op: OpMark, Event: int64(row.EventID), T0: t0, T1: wall(r.Clock)})
	}
	return len(rows), nil
}

func (r *Relay) publish(ctx context.Context, ops sqlstore.Ops, row sqlstore.Row) error {
	t0 := wall(r.Clock)
	msg, err := ops.Publish(ctx, row.EventID, now(r.Clock))
	if err != nil {
		return err
	}
	pe := Entry{Op: OpPublish, Event: int64(row.EventID), Job: int64(row.Job), Stage: row.Stage.String(), Msg: msg, T0: t0, T1: wall(r.Clock)}
	r.Hist.Write(pe)
	r.Kill.Cross(RelayAfterPublishBeforeMark, pe)
	return nil
}

// Message is a broker message.
type Message = sqlstore.Message

// Broker reads, in id order, the messages after a position and those
// behind it whose event was never applied.
type Broker interface {
	Messages(ctx context.Context, after int64, limit int) ([]Message, error)
}

// Consumer is the consumer role: deliver each broker message with Apply,
// which dedupes by event id. It redelivers on purpose: a restart resumes a
// few messages before its last recorded one, and Redeliver of the messages
// are delivered twice in a row.
type Consumer struct {
	Ops       sqlstore.Ops
	Broker    Broker
	Clock     clock.Clock
	Batch     int
	Idle      time.Duration
	Redeliver float64 // probability of an immediate second delivery
	Rand      *rand.Rand
	Cursor    int64 // last message delivered
	Hist      *History
	Kill      *Killer
}

// Run consumes until ctx is done.
func (c *Consumer) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := c.Step(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if n == 0 && c.Idle > 0 {
			sleep(ctx, c.Clock, c.Idle)
		}
	}
	return nil
}

// Step delivers one batch of messages and returns how many.
func (c *Consumer) Step(ctx context.Context) (int, error) {
	msgs, err := c.Broker.Messages(ctx, c.Cursor, max(c.Batch, 1))
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	for _, m := range msgs {
		times := 1
		if c.Rand != nil && c.Rand.Float64() < c.Redeliver {
			times = 2
		}
		for range times {
			t0 := wall(c.Clock)
			applied, err := c.Ops.Apply(ctx, m.Event, now(c.Clock))
			if err != nil {
				return 0, err
			}
			e := Entry{Op: OpApply, Msg: m.ID, Event: int64(m.Event), Applied: applied, T0: t0, T1: wall(c.Clock)}
			c.Hist.Write(e)
			c.Kill.Cross(ConsumerAfterApply, e)
		}
		c.Cursor = max(c.Cursor, m.ID)
	}
	return len(msgs), nil
}
