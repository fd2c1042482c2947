package riverinproc

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/riverchaos"
	"github.com/durasim/durasim/target"
)

// loop is the run's supervisor in the bubble: every tick it restarts
// the killed clients, keeps a backlog and freezes clients while the kill
// phase lasts, then waits for the drain.
func (r *run) loop(ctx context.Context, start time.Time) error {
	lastPause := start
	var drainStart time.Time
	for {
		time.Sleep(tick)
		now := time.Now()
		if err := r.restart(ctx); err != nil {
			return err
		}
		if r.killing {
			if r.totalKills() >= r.c.Kills && r.takeover >= r.c.Zombies || now.Sub(start) >= r.c.Reach {
				r.killing = false
				r.phases.kill = now.Sub(start)
				drainStart = now
				for _, f := range r.frozen {
					r.thaw(f, crash.ThawStopping)
				}
				r.frozen = nil
				continue
			}
			if err := r.backlog(ctx); err != nil {
				return err
			}
			if r.c.PauseEvery > 0 && now.Sub(lastPause) >= r.c.PauseEvery {
				lastPause = now
				r.pause(now)
			}
			r.watchFreezes(ctx, now)
			continue
		}
		live, err := r.live(ctx)
		if err != nil {
			return err
		}
		if err := r.restart(ctx); err != nil { // a client still armed may die in the drain
			return err
		}
		if live == 0 || now.Sub(drainStart) >= r.c.Drain {
			r.phases.drain, r.phases.drained = now.Sub(drainStart), live == 0
			return nil
		}
	}
}

func (r *run) totalKills() int {
	n := 0
	for _, k := range r.landed {
		n += k
	}
	return n
}

// restart stops each client killed since the last tick (its job left for
// River's rescuer) and starts its slot's next incarnation.
func (r *run) restart(ctx context.Context) error {
	for {
		select {
		case i := <-r.kills:
			var at string
			if es := i.entries(); len(es) > 0 {
				at = es[len(es)-1].Point
			}
			for _, p := range r.points {
				if p.String() == at {
					r.landed[p]++
				}
			}
			r.frozen = slices.DeleteFunc(r.frozen, func(f *freeze) bool { return f.i == i })
			r.stop(i, true)
			r.restarts++
			if err := r.start(ctx, i.slot, i.n+1); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// backlog keeps one job per worker available; a fifth of the time it
// inserts an earlier document again (River refuses it while its job
// lives).
func (r *run) backlog(ctx context.Context) error {
	avail, err := r.count(ctx, "SELECT count(*) FROM river_job WHERE state = 'available'")
	if err != nil {
		return err
	}
	for ; avail < r.c.Workers*r.c.Concurrency; avail++ {
		next, again, dup := r.docs+1, 1+r.rng.IntN(r.docs), r.rng.IntN(5) == 0
		if err := r.insert(ctx, next); err != nil {
			return err
		}
		if dup {
			if err := r.insert(ctx, again); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *run) live(ctx context.Context) (int, error) {
	return r.count(ctx, "SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'discarded', 'cancelled')")
}

func (r *run) count(ctx context.Context, q string) (int, error) {
	var n int
	err := r.admin.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}

// holds is the jobs i's history shows it working.
func (r *run) holds(i *inc) []workload.Holding {
	type ja struct {
		job     int64
		attempt int
	}
	open := map[ja]bool{}
	var order []ja
	for _, e := range i.entries() {
		k := ja{e.Job, e.Attempt}
		switch {
		case e.Op == workload.OpFetch:
			open[k] = true
			order = append(order, k)
		case workload.Ended(r.c.Design, e):
			delete(open, k)
		}
	}
	var out []workload.Holding
	for _, k := range order {
		if open[k] {
			out = append(out, workload.Holding{Proc: i.name, Job: k.job, Attempt: k.attempt})
			delete(open, k)
		}
	}
	return out
}

// pause freezes a client holding a job (its calls stall, as a SIGSTOPped
// process's), unless Workers/2 are frozen already.
func (r *run) pause(now time.Time) {
	if len(r.frozen) >= max(1, r.c.Workers/2) {
		return
	}
	var cands []*freeze
	for _, i := range r.slots {
		if i.ctl.killed() || slices.ContainsFunc(r.frozen, func(f *freeze) bool { return f.i == i }) {
			continue
		}
		for _, h := range r.holds(i) {
			cands = append(cands, &freeze{i: i, h: h, since: now})
		}
	}
	if len(cands) == 0 {
		return
	}
	f := cands[r.rng.IntN(len(cands))]
	f.i.ctl.freeze()
	r.pauses++
	r.frozen = append(r.frozen, f)
	e := workload.Line(workload.OpStop, f.h.Job, f.h.Attempt)
	e.Point, e.T0, e.T1 = f.h.Proc, workload.Stamp(), workload.Stamp()
	r.hist.Write(e)
}

// watchFreezes thaws a frozen client once River handed its job to
// another client (a zombie), or at MaxFreeze.
func (r *run) watchFreezes(ctx context.Context, now time.Time) {
	r.frozen = slices.DeleteFunc(r.frozen, func(f *freeze) bool {
		switch {
		case r.takenOver(ctx, f.h):
			r.takeover++
			r.thaw(f, "taken_over")
		case now.Sub(f.since) >= r.c.MaxFreeze:
			r.maxFrz++
			r.thaw(f, crash.ThawMax)
		default:
			return false
		}
		return true
	})
}

func (r *run) thaw(f *freeze, why string) {
	if why == crash.ThawStopping {
		r.stopFrz++
	}
	f.i.ctl.thaw()
	e := workload.Line(workload.OpCont, f.h.Job, f.h.Attempt)
	e.Point, e.Err, e.T0, e.T1 = f.h.Proc, why, workload.Stamp(), workload.Stamp()
	r.hist.Write(e)
}

// takenOver: River shows h's job fetched again by another client.
func (r *run) takenOver(ctx context.Context, h workload.Holding) bool {
	rows, err := r.exec.JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: []int64{h.Job}})
	if err != nil || len(rows) != 1 {
		return false
	}
	j := rows[0]
	return j.Attempt > h.Attempt && j.State == rivertype.JobStateRunning && len(j.AttemptedBy) > 0 && j.AttemptedBy[len(j.AttemptedBy)-1] != h.Proc
}

// snapshot reads every job (River's driver) and effect back.
func (r *run) snapshot(ctx context.Context, base time.Time) (target.Snapshot, error) {
	var snap target.Snapshot
	rows, err := r.admin.QueryContext(ctx, "SELECT id FROM river_job ORDER BY id")
	if err != nil {
		return snap, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return snap, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) > 0 {
		jobs, err := r.exec.JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: ids})
		if err != nil {
			return snap, err
		}
		slices.SortFunc(jobs, func(a, b *rivertype.JobRow) int { return cmp.Compare(a.ID, b.ID) })
		for _, j := range jobs {
			tj, err := riverchaos.JobOf(j, base)
			if err != nil {
				return snap, err
			}
			snap.Jobs = append(snap.Jobs, tj)
		}
	}
	snap.Effects, err = workload.SQLEffects(ctx, r.admin, base)
	return snap, err
}

// docWorker is the River worker of the document kind: the workload's
// handler.
type docWorker struct {
	river.WorkerDefaults[riverchaos.DocArgs]
	h *workload.Handler
}

func (w *docWorker) Work(ctx context.Context, job *river.Job[riverchaos.DocArgs]) error {
	j := workload.Job{ID: job.ID, Attempt: job.Attempt, Args: job.Args, Own: job}
	if job.AttemptedAt != nil {
		j.Fetched = job.AttemptedAt.UnixNano()
	}
	return w.h.Handle(ctx, j)
}

// completeTx is River's JobCompleteTx in the handler's transaction.
func completeTx(ctx context.Context, tx workload.Tx, j workload.Job) (target.State, int, error) {
	got, err := river.JobCompleteTx[*riversqlite.Driver](ctx, tx.Raw().(*sql.Tx), j.Own.(*river.Job[riverchaos.DocArgs]))
	if err != nil {
		return 0, 0, err
	}
	st, _ := target.ParseState(string(got.State))
	return st, got.Attempt, nil
}
