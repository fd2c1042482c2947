package riverchaos

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/durasim/durasim/crash"
)

// holding is a running job and the client that fetched it last.
type holding struct {
	job     int64
	attempt int
	proc    string
}

// holders lists the running jobs and their clients, in id order: those
// fetched within the last half of a work time (their handlers most
// likely at their work) if any, else all.
func (o *orch) holders(ctx context.Context) []holding {
	rows, err := o.pool.Query(ctx, `SELECT id, attempt, attempted_by[array_length(attempted_by, 1)], attempted_at > $1 FROM river_job
		WHERE state = 'running' ORDER BY id`, time.Now().Add(-o.cfg.Work/2))
	if err != nil {
		return nil
	}
	defer rows.Close()
	var recent, all []holding
	for rows.Next() {
		var h holding
		var fresh bool
		if rows.Scan(&h.job, &h.attempt, &h.proc, &fresh) == nil {
			all = append(all, h)
			if fresh {
				recent = append(recent, h)
			}
		}
	}
	if len(recent) > 0 {
		return recent
	}
	return all
}

// Freeze freezes (SIGSTOP) a random running child that holds a job,
// unless Workers/2 are frozen already, until another client has fetched
// its job (River's rescuer found it stuck past RescueAfter, the
// scheduler made it available again): a takeover, the frozen child a
// zombie. It thaws it soon after that fetch, while the new holder is
// likely still at its work; else after MaxFreeze, or when the generation
// stops. The orchestrator's history gets a line at each end.
func (o *orch) Freeze(ctx context.Context, running []crash.Child) *crash.Freeze {
	o.mu.Lock()
	full := o.freezing >= max(1, o.cfg.Workers/2)
	o.mu.Unlock()
	if full {
		return nil
	}
	hs := slices.DeleteFunc(o.holders(ctx), func(h holding) bool {
		return !slices.ContainsFunc(running, func(c crash.Child) bool { return c.Name == h.proc && !c.Frozen })
	})
	if len(hs) == 0 {
		return nil
	}
	o.mu.Lock()
	h := hs[o.rng.IntN(len(hs))]
	o.mu.Unlock()
	var locked bool
	return &crash.Freeze{Child: h.proc, Max: o.cfg.MaxFreeze, Poll: 25 * time.Millisecond,
		Frozen: func(ctx context.Context) { locked = o.frozen(ctx, h) },
		Thaw:   func(ctx context.Context) (string, bool) { return o.takenOver(ctx, h) },
		Thawing: func(why string) {
			o.thawing(ctx, h, why, locked)
		}}
}

// frozen writes the SIGSTOP's line and, once what the child had sent is
// done, notes whether it froze inside JobCompleteTx's transaction.
func (o *orch) frozen(ctx context.Context, h holding) (locked bool) {
	o.hist.Write(Entry{Op: OpStop, Point: h.proc, Job: h.job, Attempt: h.attempt, T0: stamp(), T1: stamp()})
	o.mu.Lock()
	o.freezing++
	o.mu.Unlock()
	time.Sleep(100 * time.Millisecond) // what the child had sent, the server has done
	locked = o.locksJobs(ctx, h.proc)
	if locked {
		o.mu.Lock()
		o.lockFreezes++
		o.mu.Unlock()
	}
	return locked
}

// takenOver: another client has fetched h's job since: thaw, after a
// short random wait within the new holder's work.
func (o *orch) takenOver(ctx context.Context, h holding) (string, bool) {
	var attempt int
	var state, by string
	err := o.pool.QueryRow(ctx, "SELECT attempt, state, attempted_by[array_length(attempted_by, 1)] FROM river_job WHERE id = $1", h.job).
		Scan(&attempt, &state, &by)
	if err != nil || attempt <= h.attempt || state != "running" || by == h.proc {
		return "", false
	}
	o.mu.Lock()
	d := time.Duration(o.rng.Int64N(int64(o.cfg.Work/4) + 1))
	o.takeovers++
	o.mu.Unlock()
	time.Sleep(d)
	return "taken_over", true
}

// thawing counts the freeze's end by its reason and writes the SIGCONT's
// line; a child that froze with its job's row locked says how many
// sessions were waiting for it.
func (o *orch) thawing(ctx context.Context, h holding, why string, locked bool) {
	o.mu.Lock()
	switch why {
	case crash.ThawMax:
		o.maxFreezes++
	case crash.ThawStopping:
		o.stopFreezes++
	}
	o.freezing--
	o.mu.Unlock()
	if locked {
		why += " row_locked"
		if n := o.blockedBy(ctx, h.proc); n > 0 {
			why += fmt.Sprintf(" blocking_%d", n)
		}
	}
	o.hist.Write(Entry{Op: OpCont, Point: h.proc, Job: h.job, Attempt: h.attempt, Err: why, T0: stamp(), T1: stamp()})
}

// locksJobs reports whether a frozen child has a transaction open that
// has written river_job (JobCompleteTx, not committed): the job's row
// stays locked until the child wakes, and River's rescuer, whose UPDATE
// of the stuck jobs includes that row once it is RescueAfter old, waits
// for it.
func (o *orch) locksJobs(ctx context.Context, proc string) bool {
	var n int
	err := o.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid JOIN pg_class c ON c.oid = l.relation
		WHERE a.application_name = $1 AND a.state LIKE 'idle in transaction%' AND c.relname = 'river_job' AND l.mode = 'RowExclusiveLock'`,
		"durasim-"+proc).Scan(&n)
	return err == nil && n > 0
}

// blockedBy counts the sessions waiting for a lock a child's sessions
// hold.
func (o *orch) blockedBy(ctx context.Context, proc string) int {
	var n int
	_ = o.pool.QueryRow(context.WithoutCancel(ctx), `SELECT count(*) FROM pg_stat_activity w WHERE w.wait_event_type = 'Lock' AND EXISTS (
		SELECT 1 FROM pg_stat_activity b WHERE b.application_name = $1 AND b.pid = ANY (pg_blocking_pids(w.pid)))`, "durasim-"+proc).Scan(&n)
	return n
}
