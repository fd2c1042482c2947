package riverchaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/durasim/durasim/crash/workload"
)

// TakenOver: another client has fetched h's job since (River's rescuer
// found it stuck past RescueAfter, the scheduler made it available
// again).
func (a *adapter) TakenOver(ctx context.Context, h workload.Holding) bool {
	var attempt int
	var state, by string
	err := a.pool.QueryRow(ctx, "SELECT attempt, state, attempted_by[array_length(attempted_by, 1)] FROM river_job WHERE id = $1", h.Job).
		Scan(&attempt, &state, &by)
	return err == nil && attempt > h.Attempt && state == "running" && by != h.Proc
}

// locks notes the freezes that caught a handler inside JobCompleteTx's
// transaction.
type locks struct {
	mu     sync.Mutex
	locked map[string]bool // frozen children holding river_job's row lock, by name
	n      int
}

// Frozen notes, once what the child had sent is done, whether it froze
// inside JobCompleteTx's transaction.
func (a *adapter) Frozen(ctx context.Context, h workload.Holding) {
	time.Sleep(100 * time.Millisecond) // what the child had sent, the server has done
	locked := a.locksJobs(ctx, h.Proc)
	a.locks.mu.Lock()
	defer a.locks.mu.Unlock()
	if a.locks.locked == nil {
		a.locks.locked = map[string]bool{}
	}
	a.locks.locked[h.Proc] = locked
	if locked {
		a.locks.n++
	}
}

// ThawNote: a child that froze with its job's row locked says how many
// sessions were waiting for it.
func (a *adapter) ThawNote(ctx context.Context, h workload.Holding) string {
	a.locks.mu.Lock()
	locked := a.locks.locked[h.Proc]
	delete(a.locks.locked, h.Proc)
	a.locks.mu.Unlock()
	if !locked {
		return ""
	}
	note := "row_locked"
	if n := a.blockedBy(ctx, h.Proc); n > 0 {
		note += fmt.Sprintf(" blocking_%d", n)
	}
	return note
}

// locksJobs reports whether a frozen child has a transaction open that
// has written river_job (JobCompleteTx, not committed): the job's row
// stays locked until the child wakes, and River's rescuer, whose UPDATE
// of the stuck jobs includes that row once it is RescueAfter old, waits
// for it.
func (a *adapter) locksJobs(ctx context.Context, proc string) bool {
	var n int
	err := a.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid JOIN pg_class c ON c.oid = l.relation
		WHERE a.application_name = $1 AND a.state LIKE 'idle in transaction%' AND c.relname = 'river_job' AND l.mode = 'RowExclusiveLock'`,
		"durasim-"+proc).Scan(&n)
	return err == nil && n > 0
}

// blockedBy counts the sessions waiting for a lock a child's sessions
// hold.
func (a *adapter) blockedBy(ctx context.Context, proc string) int {
	var n int
	_ = a.pool.QueryRow(context.WithoutCancel(ctx), `SELECT count(*) FROM pg_stat_activity w WHERE w.wait_event_type = 'Lock' AND EXISTS (
		SELECT 1 FROM pg_stat_activity b WHERE b.application_name = $1 AND b.pid = ANY (pg_blocking_pids(w.pid)))`, "durasim-"+proc).Scan(&n)
	return n
}
