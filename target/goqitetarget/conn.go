package goqitetarget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"maragu.dev/goqite"

	"github.com/durasim/durasim/target"
)

// conn is one actor's connection: every call is one transaction of
// durasim's on goqite's database, in which goqite's own Tx calls run
// (SendAndGetIDTx, ReceiveTx, ExtendTx, DeleteTx) beside durasim's
// record of the job.
type conn struct {
	q     *Queue
	actor string
	// held is the goqite message each job this actor received was, as
	// its worker keeps the goqite.Message it got: its calls name that id
	// (an operator's redrive since sent the job as another message).
	held map[target.JobID]goqite.ID
}

// gone reports whether the message this actor received of j is no longer
// j's: redriven since, so goqite's calls by its id act on nothing.
func (c *conn) gone(j job) bool {
	m, ok := c.held[j.ID]
	return ok && m != j.msg
}

func (c *conn) begin(ctx context.Context) (*sql.Tx, error) {
	// goqite's own transactions are serializable (internal/sql.InTx).
	tx, err := c.q.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return nil, err
	}
	// database/sql makes the transaction's done channel on first use,
	// and its own goroutine (Tx.awaitDone, outside any bubble) waits on
	// it; a query made first inside a bubble would make it there, and
	// the runtime stops a program whose goroutine outside a bubble
	// receives from a channel of one. A query here makes it out here.
	var one int
	if err := tx.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// inTx runs f in a transaction and commits it, or rolls it back on an
// error.
func (c *conn) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := c.begin(ctx)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// send is goqite's SendAndGetIDTx of a job's message, with durasim's
// record of it, in tx.
func (c *conn) send(ctx context.Context, tx *sql.Tx, now target.Time, r target.InsertReq) (target.JobID, error) {
	gq, name := c.q.goqite(r.MaxAttempts)
	mid, err := c.q.messageID()
	if err != nil {
		return 0, err
	}
	var id goqite.ID
	err = c.q.at(ctx, tx, c.actor, now, mid, func() error {
		var err error
		id, err = gq.SendAndGetIDTx(ctx, tx, goqite.Message{Body: encodeBody(r.Kind, r.Args)})
		return err
	})
	if err != nil {
		return 0, err
	}
	uniq := 0
	if r.Unique {
		uniq = 1 // as asked: goqite has no unique send (its Policy holds no unique state)
	}
	var seq int64
	err = tx.QueryRowContext(ctx, `INSERT INTO durasim_job (msg, queue, kind, tenant, doc, version, source, max_receive, uniq, note, sent_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING seq`, string(id), name, r.Kind, r.Args.Tenant, r.Args.Doc, r.Args.Version,
		int64(r.Args.Source), r.MaxAttempts, uniq, noteSent, now).Scan(&seq)
	return target.JobID(seq), err
}

// Insert is a client's send: every send a new message (goqite has no
// unique send).
func (c *conn) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	var id target.JobID
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = c.send(ctx, tx, now, r)
		return err
	})
	return target.Inserted{Job: id}, err
}

// Fetch receives up to max messages, polling goqite's queues in order of
// their max receive counts: goqite's ReceiveTx, then durasim's record of
// who received it, in one transaction.
func (c *conn) Fetch(ctx context.Context, now target.Time, max int) ([]target.Job, error) {
	maxes, err := c.q.maxes(ctx)
	if err != nil {
		return nil, err
	}
	var out []target.Job
	for _, m := range maxes {
		for len(out) < max {
			j, ok, err := c.receive(ctx, now, m)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			out = append(out, j)
		}
	}
	return out, nil
}

func (c *conn) receive(ctx context.Context, now target.Time, maxReceive int) (target.Job, bool, error) {
	gq, _ := c.q.goqite(maxReceive)
	var j job
	got := false
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var m *goqite.Message
		err := c.q.at(ctx, tx, c.actor, now, nil, func() error {
			var err error
			m, err = gq.ReceiveTx(ctx, tx)
			return err
		})
		if err != nil || m == nil {
			return err
		}
		got = true
		if c.held == nil {
			c.held = map[target.JobID]goqite.ID{}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE durasim_job SET note = $1, attempted_at = $2,
			attempted_by = CASE WHEN attempted_by = '' THEN $3 ELSE attempted_by || ',' || $3 END WHERE msg = $4`,
			noteReceived, now, c.actor, string(m.ID)); err != nil {
			return err
		}
		j, err = readJob(ctx, tx, "j.msg = $1", string(m.ID))
		c.held[j.ID] = m.ID
		return err
	})
	return j.Job, got, err
}

// readJob reads the job where cond holds.
func readJob(ctx context.Context, tx *sql.Tx, cond string, arg any) (job, error) {
	j, err := scanJob(tx.QueryRowContext(ctx, jobQuery+" WHERE "+cond, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return j, target.ErrNotFound
	}
	return j, err
}

func byID(ctx context.Context, tx *sql.Tx, id target.JobID) (job, error) {
	return readJob(ctx, tx, "j.seq = $1", int64(id))
}

// setNote writes the adapter's word on a job, with the fields it sets.
func setNote(ctx context.Context, tx *sql.Tx, id target.JobID, note string, sets string, args ...any) error {
	q := "UPDATE durasim_job SET note = $1"
	if sets != "" {
		q += ", " + sets
	}
	_, err := tx.ExecContext(ctx, q+fmt.Sprintf(" WHERE seq = $%d", len(args)+2), append(append([]any{note}, args...), int64(id))...)
	return err
}

// del is goqite's DeleteTx of a job's message, with durasim's record:
// completed or cancelled, with goqite's last receive count kept.
func (c *conn) del(ctx context.Context, tx *sql.Tx, now target.Time, j job, note string) error {
	gq, _ := c.q.goqite(j.MaxAttempts)
	if err := c.q.at(ctx, tx, c.actor, now, nil, func() error { return gq.DeleteTx(ctx, tx, j.msg) }); err != nil {
		return err
	}
	return setNote(ctx, tx, j.ID, note, "received = $2, finalized_at = $3", j.Attempt, now)
}

// extend is goqite's ExtendTx of a job's message by d from now.
func (c *conn) extend(ctx context.Context, tx *sql.Tx, now target.Time, j job, d target.Time) error {
	gq, _ := c.q.goqite(j.MaxAttempts)
	return c.q.at(ctx, tx, c.actor, now, nil, func() error { return gq.ExtendTx(ctx, tx, j.msg, time.Duration(d)) })
}

// Report is the user's end of a receive. Done: Delete. Cancel: Delete
// (goqite keeps no cancelled messages). An error: Extend by the retry
// delay after the job's errors as the worker saw them, or, at its last
// receive, nothing (goqite will not hand it out again). A snooze:
// Extend by its span, or, at the last receive, nothing. A job whose
// message goqite deleted is left as it is; goqite's calls name a message
// by id alone, so any other is acted on, whoever holds it.
func (c *conn) Report(ctx context.Context, now target.Time, fetched target.Job, r target.Report) (target.Reported, error) {
	var out target.Reported
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		j, err := byID(ctx, tx, fetched.ID)
		if err != nil {
			return err
		}
		// A dead letter's timeout no longer matters: an error or a
		// snooze leaves it dead.
		dead := j.note == noteDead && (r.Outcome == target.Errored || r.Outcome == target.Snooze)
		if j.live && !dead && !c.gone(j) && !c.callsNothing(j, fetched, r) {
			if err := c.report(ctx, tx, now, j, fetched, r); err != nil {
				return err
			}
			out.Applied = true
		}
		j, err = byID(ctx, tx, fetched.ID)
		out.State, out.ScheduledAt, out.Attempt = j.State, j.ScheduledAt, j.Attempt
		return err
	})
	return out, err
}

// callsNothing is a report at what the worker saw as the message's last
// receive (an error or a snooze: the user's code makes no goqite call)
// on a message goqite would hand out again, its receive count reset by a
// redrive since: goqite's table, not the stale worker's word, says it is
// not dead.
func (c *conn) callsNothing(j job, fetched target.Job, r target.Report) bool {
	quiet := r.Outcome == target.Errored || r.Outcome == target.Snooze
	return quiet && fetched.Attempt >= j.MaxAttempts && j.Attempt < j.MaxAttempts
}

func (c *conn) report(ctx context.Context, tx *sql.Tx, now target.Time, j job, fetched target.Job, r target.Report) error {
	last := fetched.Attempt >= j.MaxAttempts
	switch r.Outcome {
	case target.Done:
		return c.del(ctx, tx, now, j, noteCompleted)
	case target.Cancel:
		return c.del(ctx, tx, now, j, noteCancelled)
	case target.Errored:
		if last {
			return setNote(ctx, tx, j.ID, noteDead, "errors = errors + 1, finalized_at = $2", now)
		}
		lo, _ := c.q.Policy().Backoff.Bound(fetched.Errors + 1)
		if err := c.extend(ctx, tx, now, j, lo); err != nil {
			return err
		}
		return setNote(ctx, tx, j.ID, noteRetry, "errors = errors + 1")
	case target.Snooze:
		if last {
			return setNote(ctx, tx, j.ID, noteDead, "finalized_at = $2", now)
		}
		if err := c.extend(ctx, tx, now, j, r.Snooze); err != nil {
			return err
		}
		return setNote(ctx, tx, j.ID, noteSnooze, "")
	}
	return fmt.Errorf("goqitetarget: unknown outcome %s", r.Outcome)
}

// Stuck finds nothing: goqite has no rescuer; a timeout runs out on its
// own (Policy.Lease, LeaseLapses).
func (c *conn) Stuck(context.Context, target.Time) ([]target.Job, error) { return nil, nil }

// Rescue is never given a job (Stuck finds none).
func (c *conn) Rescue(_ context.Context, _ target.Time, stuck []target.Job) ([]target.Rescued, error) {
	if len(stuck) > 0 {
		return nil, errors.New("goqitetarget: no rescuer: timeouts run out on their own")
	}
	return nil, nil
}

// Schedule is durasim's look at goqite's table, no call of goqite's
// (goqite has no scheduler: Receive compares the timeout itself): every
// message received, retried or snoozed whose timeout has passed on this
// process's clock is receivable again, or, received MaxReceive times,
// never (a dead letter).
func (c *conn) Schedule(ctx context.Context, now target.Time) ([]target.Rescued, error) {
	var out []target.Rescued
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, jobQuery+" WHERE j.note IN ($1, $2, $3) ORDER BY j.seq", noteReceived, noteRetry, noteSnooze)
		if err != nil {
			return err
		}
		var due []job
		clock := virt(c.q.clk.process(c.actor, now))
		for rows.Next() {
			j, err := scanJob(rows)
			if err != nil {
				rows.Close()
				return err
			}
			if j.live && j.ScheduledAt <= clock {
				due = append(due, j)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, j := range due {
			note, sets, args := noteTaken, "", []any{}
			if j.Attempt >= j.MaxAttempts {
				note, sets, args = noteDead, "finalized_at = $2", []any{now}
			}
			if err := setNote(ctx, tx, j.ID, note, sets, args...); err != nil {
				return err
			}
			out = append(out, target.Rescued{Job: j.ID, State: noteStates[note], ScheduledAt: j.ScheduledAt, Applied: true})
		}
		return nil
	})
	return out, err
}

// Retry is an operator's redrive; goqite has none. A dead letter, still
// in goqite's table, is made receivable again in place, as a user does
// with SQL on goqite's schema (received 0, timeout now on the operator's
// clock): the same message, so its earlier receivers' calls still reach
// it (no receipts). A cancelled job, whose message goqite deleted, is
// sent again as a new message of the same job. Either way its receive
// count starts from 0. Any other job is left as it is.
func (c *conn) Retry(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	var out target.Job
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		j, err := byID(ctx, tx, id)
		if err != nil {
			return err
		}
		switch {
		case j.note == noteDead && j.live:
			if err := c.q.stamp(ctx, tx, now, nil); err != nil { // goqite's trigger stamps updated
				return err
			}
			timeout := c.q.timeoutValue(c.q.clk.process(c.actor, now))
			if _, err := tx.ExecContext(ctx, "UPDATE goqite SET received = 0, timeout = $1 WHERE id = $2", timeout, string(j.msg)); err != nil {
				return err
			}
			if err := setNote(ctx, tx, id, noteRedriven, "finalized_at = 0"); err != nil {
				return err
			}
		case j.note == noteDead || j.note == noteCancelled:
			gq, _ := c.q.goqite(j.MaxAttempts)
			mid, err := c.q.messageID()
			if err != nil {
				return err
			}
			var msg goqite.ID
			err = c.q.at(ctx, tx, c.actor, now, mid, func() error {
				var err error
				msg, err = gq.SendAndGetIDTx(ctx, tx, goqite.Message{Body: encodeBody(j.Kind, j.Args)})
				return err
			})
			if err != nil {
				return err
			}
			if err := setNote(ctx, tx, id, noteRedriven, "msg = $2, received = 0, finalized_at = 0", string(msg)); err != nil {
				return err
			}
		default:
			out = j.Job
			return nil
		}
		j, err = byID(ctx, tx, id)
		out = j.Job
		return err
	})
	return out, err
}

func (c *conn) Begin(ctx context.Context) (target.Tx, error) {
	tx, err := c.begin(ctx)
	if err != nil {
		return nil, err
	}
	return &handlerTx{c: c, tx: tx}, nil
}
