package goqitetarget

import (
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

// at runs f as actor at virtual time now: in a bubble whose clock reads
// actor's process time, with the database's clock at now.
func (q *Queue) at(actor string, now target.Time, f func() error) error {
	q.clk.db = now
	var err error
	if berr := q.bubbles.At(q.clk.process(actor, now), func() { err = f() }); berr != nil {
		return berr
	}
	return err
}
