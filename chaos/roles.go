package chaos

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

func now(c clock.Clock) model.Time { return model.Time(c.Now().UnixNano()) }

// wall is the history's time base: the same clock the role runs on.
func wall(c clock.Clock) int64 { return c.Now().UnixNano() }

// Worker is the worker role: lease a job, run its remaining stages (work,
// commit the result with its outbox event, advance), ack. All time comes
// from Clock: clock.New() in a process, *clock.Mock in tests.
type Worker struct {
	Ops   sqlstore.Ops
	Clock clock.Clock
	Name  string
	Lease time.Duration // lease length; heartbeats renew it
	// Ordered leases FIFO: only the oldest unfinished job (the store locks
	// the head row: a second worker waits for it, never takes the next).
	Ordered bool
	Work    time.Duration // simulated work per stage (0: none)
	// SlowWork is the work per stage of ".slow" jobs: about 0.6 of the
	// lease, so that they heartbeat at every stage after the first.
	SlowWork time.Duration
	Backoff  time.Duration // first retry delay, doubled per attempt up to 64 times
	// Facts reads what the lease does not say (redrives, deadline); nil:
	// never redriven, no deadline.
	Facts FactReader
	Idle  time.Duration // wait when nothing is visible
	Hist  *History
	Kill  *Killer
	// Hook, when set, runs at every point (tests use it to move a mock
	// clock or interleave another worker deterministically).
	Hook func(boundary.Boundary, Entry)
}

func (w *Worker) cross(p boundary.Boundary, e Entry) {
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
	Fenced    // another worker holds the job now: we stopped touching it
	Cancelled // its retry would have passed the deadline
)

// ProcessOne leases one job and runs it as far as it goes. worked is false
// when no job was visible.
func (w *Worker) ProcessOne(ctx context.Context) (worked bool, err error) {
	o, err := w.Step(ctx)
	return o != Idle, err
}

// Step is ProcessOne with its outcome.
//
// Every call to the store runs to its end even when ctx is cancelled (a
// SIGTERM at the end of a phase): its history line is then always
// written, and the loop stops at the next check of ctx. So the only
// operations without a line are those a kill point cut short, which end
// with a kill line instead.
func (w *Worker) Step(ctx context.Context) (Outcome, error) {
	dctx := context.WithoutCancel(ctx)
	t0 := wall(w.Clock)
	n := now(w.Clock)
	until := n + model.Time(w.Lease)
	var l sqlstore.Leased
	var ok bool
	err := inside(w.Ops, w.Kill, boundary.InsideLeaseAfterStmt, Entry{T0: t0}, func() (err error) {
		l, ok, err = w.Ops.LeaseNext(dctx, sqlstore.LeaseReq{Worker: w.Name, Now: n, LeaseUntil: until, Ordered: w.Ordered})
		return err
	})
	if err != nil || !ok {
		return Idle, err
	}
	e := Entry{Job: int64(l.Job), Fence: l.Fence, Stage: l.Stage.String(), Attempt: l.Attempt, T0: t0, T1: wall(w.Clock)}
	w.Hist.Write(withOp(e, OpLease))
	w.cross(boundary.AfterLease, e)
	tr := KeyTraits(l.Key)
	work := w.Work
	if tr.Slow {
		work = w.SlowWork
	}

	for st := l.Stage; st < model.StageDone; st++ {
		if ctx.Err() != nil {
			return Idle, ctx.Err()
		}
		e.Stage = st.String()
		// Renew when under half the lease is left: a slow stage must not
		// let another worker take the job from under us.
		if n := now(w.Clock); n+model.Time(w.Lease/2) > until {
			t0 := wall(w.Clock)
			nu := n + model.Time(w.Lease)
			if err := w.Ops.Heartbeat(dctx, l.Job, l.Fence, nu); err != nil {
				return w.refused(err, e, "heartbeat")
			}
			until = nu
			w.Hist.Write(withTimes(withOp(e, OpBeat), t0, wall(w.Clock)))
		}
		if work > 0 {
			sleep(ctx, w.Clock, work)
			if ctx.Err() != nil {
				return Idle, ctx.Err()
			}
		}
		w.cross(boundary.AfterExtract, e)
		if tr.Poison && st == model.StageExtract {
			return w.dead(dctx, l, model.CodePoisonSchema)
		}
		if st == model.StageValidate && l.Attempt <= tr.Flaky {
			f, err := w.facts(dctx, l.Job)
			if err != nil {
				return Idle, err
			}
			if f.RedriveCount == 0 { // a redrive follows the fix: no more failures
				return w.retry(dctx, l, e, f)
			}
		}
		t0 := wall(w.Clock)
		var c sqlstore.Committed
		err := inside(w.Ops, w.Kill, boundary.InsideCommitAfterStmt, e, func() (err error) {
			c, err = w.Ops.Commit(dctx, sqlstore.CommitReq{
				Job: l.Job, Fence: l.Fence, Tenant: l.Tenant, Key: l.Key, Stage: st,
				PayloadHash: l.Payload, Value: StageValue(l.Key, st) ^ l.Fence, Now: now(w.Clock),
				Fenced:       true, // a zombie's commit is refused, not just deduped
				BeforeCommit: func() { w.cross(boundary.AfterInsertBeforeCommit, e) },
			})
			return err
		})
		if err != nil {
			return w.refused(err, e, "commit")
		}
		ce := withTimes(withOp(e, OpCommit), t0, wall(w.Clock))
		ce.Event, ce.Deduped, ce.Value = int64(c.EventID), c.Deduped, c.Value
		w.Hist.Write(ce)
		w.cross(boundary.AfterCommitBeforeAck, ce)

		// The stage checkpoint (Advance) or, after the last stage, the
		// final Ack: either way the queue is told.
		t0 = wall(w.Clock)
		next := st + 1
		op := OpAdvance
		if next < model.StageDone {
			err = w.Ops.Advance(dctx, l.Job, l.Fence, next)
		} else {
			op = OpAck
			err = w.Ops.Ack(dctx, l.Job, l.Fence, now(w.Clock))
		}
		if err != nil {
			return w.refused(err, e, op)
		}
		ae := withTimes(withOp(e, op), t0, wall(w.Clock))
		ae.Stage = next.String()
		w.Hist.Write(ae)
		w.cross(boundary.AfterAck, ae)
	}
	return Succeeded, nil
}

func (w *Worker) facts(ctx context.Context, job model.JobID) (JobFacts, error) {
	if w.Facts == nil {
		return JobFacts{DeadlineAt: math.MaxInt64}, nil
	}
	return w.Facts.JobFacts(ctx, job)
}

func (w *Worker) dead(ctx context.Context, l sqlstore.Leased, code model.Code) (Outcome, error) {
	e := Entry{Job: int64(l.Job), Fence: l.Fence, Attempt: l.Attempt, Err: code.String(), T0: wall(w.Clock)}
	err := inside(w.Ops, w.Kill, boundary.InsideDeadAfterStmt, e, func() error {
		return w.Ops.Dead(ctx, l.Job, l.Fence, code, now(w.Clock))
	})
	if err != nil {
		return w.refused(err, e, "dead")
	}
	e.T1 = wall(w.Clock)
	w.Hist.Write(withOp(e, OpDead))
	w.cross(boundary.AfterDLQWrite, e)
	return DeadLettered, nil
}

// canceller is sqlstore.Conn's Cancel, not in the Ops contract.
type canceller interface {
	Cancel(ctx context.Context, job model.JobID, fence uint64, reason model.Code, now model.Time) error
}

// retry puts the job back after its backoff, or cancels it when the
// backoff would end at or past its deadline (the retry policy's cancel:
// no attempt may start after the deadline).
func (w *Worker) retry(ctx context.Context, l sqlstore.Leased, e Entry, f JobFacts) (Outcome, error) {
	d := w.Backoff << min(max(l.Attempt-1, 0), 6)
	t0 := wall(w.Clock)
	n := now(w.Clock)
	e.Visible = int64(n + model.Time(d))
	if cn, ok := w.Ops.(canceller); ok && model.Time(e.Visible) >= f.DeadlineAt {
		if err := cn.Cancel(ctx, l.Job, l.Fence, model.CodeDeadlineExceeded, n); err != nil {
			return w.refused(err, e, "cancel")
		}
		w.Hist.Write(withTimes(withOp(e, OpCancel), t0, wall(w.Clock)))
		return Cancelled, nil
	}
	if err := w.Ops.Retry(ctx, l.Job, l.Fence, model.Time(e.Visible), model.CodeTransient); err != nil {
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
	ctx = context.WithoutCancel(ctx) // every call ends with its line (see Worker.Step)
	t0 := wall(r.Clock)
	claimed := func(rows []sqlstore.Row) {
		ce := Entry{Op: OpClaim, T0: t0, T1: wall(r.Clock)}
		for _, row := range rows {
			ce.Events = append(ce.Events, int64(row.EventID))
		}
		r.Hist.Write(ce)
		r.Kill.Cross(boundary.RelayAfterClaim, ce)
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
	r.Kill.Cross(boundary.RelayAfterPublishBeforeMark, pe)
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

// deliverer is sqlstore.Conn's Deliver (count the delivery, apply the
// event, ack the message: one transaction), not in the Ops contract.
type deliverer interface {
	Deliver(ctx context.Context, msg int64, now model.Time) (model.EventID, bool, error)
}

// Step delivers one batch of messages and returns how many. Each delivery
// is a Deliver where the store has one (else an Apply of the event).
// Several consumers read the same broker, so one event is often
// delivered by two at once: the ledger's UNIQUE must refuse the second.
func (c *Consumer) Step(ctx context.Context) (int, error) {
	dctx := context.WithoutCancel(ctx)
	msgs, err := c.Broker.Messages(ctx, c.Cursor, max(c.Batch, 1))
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	for _, m := range msgs {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		times := 1
		if c.Rand != nil && c.Rand.Float64() < c.Redeliver {
			times = 2
		}
		for range times {
			t0 := wall(c.Clock)
			e := Entry{Op: OpApply, Msg: m.ID, Event: int64(m.Event), T0: t0}
			var applied bool
			err := inside(c.Ops, c.Kill, boundary.InsideDeliverAfterStmt, e, func() (err error) {
				if d, ok := c.Ops.(deliverer); ok {
					_, applied, err = d.Deliver(dctx, m.ID, now(c.Clock))
					return err
				}
				applied, err = c.Ops.Apply(dctx, m.Event, now(c.Clock))
				return err
			})
			if err != nil {
				return 0, err
			}
			e.Applied, e.T1 = applied, wall(c.Clock)
			c.Hist.Write(e)
			c.Kill.Cross(boundary.ConsumerAfterApply, e)
		}
		c.Cursor = max(c.Cursor, m.ID)
	}
	return len(msgs), nil
}
