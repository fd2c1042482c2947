package riverchaos

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"syscall"
	"time"
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

// pause freezes (SIGSTOP) a random child of g that holds a job, unless
// Workers/2 are frozen already, and leaves thaw to wake it.
func (o *orch) pause(ctx context.Context, g *gen) {
	o.mu.Lock()
	full := o.freezing >= max(1, o.cfg.Workers/2)
	o.mu.Unlock()
	if full {
		return
	}
	hs := o.holders(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return
	}
	procs := map[string]*exec.Cmd{}
	for c, p := range g.running {
		procs[p] = c
	}
	hs = slices.DeleteFunc(hs, func(h holding) bool { return procs[h.proc] == nil || g.frozen[h.proc] })
	if len(hs) == 0 {
		return
	}
	o.mu.Lock()
	h := hs[o.rng.IntN(len(hs))]
	o.mu.Unlock()
	c := procs[h.proc]
	if c.Process.Signal(syscall.SIGSTOP) != nil {
		return
	}
	g.frozen[h.proc] = true
	o.hist.Write(Entry{Op: OpStop, Point: h.proc, Job: h.job, Attempt: h.attempt, T0: stamp(), T1: stamp()})
	o.mu.Lock()
	o.pauses++
	o.freezing++
	o.mu.Unlock()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		o.thaw(ctx, g, c, h)
	}()
}

// thaw wakes a frozen child (SIGCONT) once another client has fetched
// the job it holds (River's rescuer found it stuck past RescueAfter, the
// scheduler made it available again): a takeover, the frozen child a
// zombie. It wakes it soon after that fetch, while the new holder is
// likely still at its work. Else it wakes it after MaxFreeze, or when g
// stops.
func (o *orch) thaw(ctx context.Context, g *gen, c *exec.Cmd, h holding) {
	why := "max_freeze"
	time.Sleep(100 * time.Millisecond) // what the child had sent, the server has done
	locked := o.locksJobs(ctx, h.proc)
	if locked {
		o.mu.Lock()
		o.lockFreezes++
		o.mu.Unlock()
	}
	defer func() {
		o.mu.Lock()
		switch why {
		case "max_freeze":
			o.maxFreezes++
		case "stopping":
			o.stopFreezes++
		}
		o.mu.Unlock()
		if locked {
			why += " row_locked"
			if n := o.blockedBy(ctx, h.proc); n > 0 {
				why += fmt.Sprintf(" blocking_%d", n)
			}
		}
		_ = c.Process.Signal(syscall.SIGCONT)
		o.hist.Write(Entry{Op: OpCont, Point: h.proc, Job: h.job, Attempt: h.attempt, Err: why, T0: stamp(), T1: stamp()})
		g.mu.Lock()
		delete(g.frozen, h.proc)
		g.mu.Unlock()
		o.mu.Lock()
		o.freezing--
		o.mu.Unlock()
	}()
	deadline := time.Now().Add(o.cfg.MaxFreeze)
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			why = "stopping"
			return
		}
		g.mu.Lock()
		stopping := g.stopping
		g.mu.Unlock()
		if stopping {
			why = "stopping"
			return
		}
		var attempt int
		var state, by string
		err := o.pool.QueryRow(ctx, "SELECT attempt, state, attempted_by[array_length(attempted_by, 1)] FROM river_job WHERE id = $1", h.job).
			Scan(&attempt, &state, &by)
		if err == nil && attempt > h.attempt && state == "running" && by != h.proc {
			o.mu.Lock()
			d := time.Duration(o.rng.Int64N(int64(o.cfg.Work/4) + 1))
			o.takeovers++
			why = "taken_over"
			o.reachedIfMet()
			o.mu.Unlock()
			time.Sleep(d)
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
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
