package goqitetarget

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/durasim/durasim/target"
)

// clock is durasim's hold on the clocks goqite reads: each process's
// (Go's time.Now, which goqite reads for every timeout it writes or
// compares) and the database's (SQLite's strftime, PostgreSQL's now(),
// which stamp created and updated). Both are virtual time, each with
// its own skew, so a run can move them apart.
type clock struct {
	db   target.Time // the database's clock, as its last call set it
	id   []byte      // the next message id's bytes, drawn for a send
	plan target.ClockPlan
}

func (c *clock) reset() { *c = clock{} }

// process is actor's process clock at virtual time now: goqite reads it
// with time.Now().UTC(), so a zone cannot reach it, only a skew.
func (c *clock) process(actor string, now target.Time) time.Time {
	return wall(now + c.plan.Offset(actor, now))
}

// SetClocks takes a run's clock faults: its workers' skews (goqite's
// processes compare their own clocks with the timeouts other processes
// wrote). Zones and transitions never reach goqite (Policy.Clocks).
func (q *Queue) SetClocks(p target.ClockPlan) { q.clk.plan = p }

// at runs f, a call of goqite's in tx, as actor at virtual time now: in
// a bubble whose clock reads actor's process time, with the database's
// clock at now and, for a send, id the bytes of the message's id.
func (q *Queue) at(ctx context.Context, tx *sql.Tx, actor string, now target.Time, id []byte, f func() error) error {
	if err := q.stamp(ctx, tx, now, id); err != nil {
		return err
	}
	var err error
	if berr := q.bubbles.At(q.clk.process(actor, now), func() { err = f() }); berr != nil {
		return berr
	}
	return err
}

// stamp makes the database's clock read now in tx, and its next message
// id id (when given): SQLite's functions read them from q's clock,
// PostgreSQL's from the transaction.
func (q *Queue) stamp(ctx context.Context, tx *sql.Tx, now target.Time, id []byte) error {
	q.clk.db, q.clk.id = now, id
	if q.pg != nil {
		return q.pg.stamp(ctx, tx, now, id)
	}
	return nil
}

// messageID draws the bytes of a message's id from the seed (goqite's
// schemas make 16 random bytes of each: randomblob, gen_random_bytes).
func (q *Queue) messageID() ([]byte, error) {
	if q.rand == nil {
		return nil, errors.New("goqitetarget: a message id before the queue was reset")
	}
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(q.rand.Int64N(256))
	}
	return b, nil
}
