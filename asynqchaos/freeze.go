package asynqchaos

import (
	"context"
	"slices"
	"time"

	"github.com/hibiken/asynq"

	"github.com/durasim/durasim/crash"
)

// holding is a task a child is working: its job and attempt.
type holding struct {
	proc    string
	job     int64
	attempt int
}

// holds reads child c's history: the tasks it fetched that no later line
// of its own ended (an effect of the design's last write, a commit, an
// error or a timeout).
func holds(c crash.Child, design func(Entry) bool) []holding {
	lines, err := crash.ReadHistory[Entry](c.History)
	if err != nil {
		return nil
	}
	type ja struct {
		job     int64
		attempt int
	}
	open := map[ja]bool{}
	var order []ja
	for _, e := range lines {
		k := ja{e.Job, e.Attempt}
		switch {
		case e.Op == OpFetch:
			open[k] = true
			order = append(order, k)
		case e.Op == OpError || e.Op == OpTimeout || design(e):
			delete(open, k)
		}
	}
	var out []holding
	for _, k := range order {
		if open[k] {
			out = append(out, holding{proc: c.Name, job: k.job, attempt: k.attempt})
			delete(open, k)
		}
	}
	return out
}

// ended reports whether e is the last write of the run's design.
func (o *orch) ended(e Entry) bool {
	if keyed(o.cfg.Design) {
		return e.Op == OpCommit || e.Op == OpRollback || e.Op == OpUnknown
	}
	return e.Op == OpEffect
}

// Freeze freezes (SIGSTOP) a running child that holds a task, unless
// Workers/2 are frozen already, until another server has fetched that
// task (its lease ran out while the child slept, and asynq's recoverer,
// at some server's start or minute, retried it): a takeover, the frozen
// child a zombie, thawed at once while the new holder still works. Else
// it is thawed after MaxFreeze, or when its generation stops.
func (o *orch) Freeze(_ context.Context, running []crash.Child) *crash.Freeze {
	o.mu.Lock()
	full := o.freezing >= max(1, o.cfg.Workers/2)
	o.mu.Unlock()
	if full {
		return nil
	}
	var hs []holding
	for _, c := range running {
		if !c.Frozen {
			hs = append(hs, holds(c, o.ended)...)
		}
	}
	if len(hs) == 0 {
		return nil
	}
	o.mu.Lock()
	h := hs[o.rng.IntN(len(hs))]
	o.mu.Unlock()
	child := running[slices.IndexFunc(running, func(c crash.Child) bool { return c.Name == h.proc })]
	held := true
	return &crash.Freeze{Child: h.proc, Max: o.cfg.MaxFreeze, Poll: 250 * time.Millisecond,
		// The history was read before the SIGSTOP: the task may have been
		// done since. Stopped, the child's history is what it holds.
		Frozen: func(context.Context) { h, held = o.frozen(child, h) },
		Thaw: func(context.Context) (string, bool) {
			if !held {
				return "held_nothing", true
			}
			return o.takenOver(h)
		},
		Thawing: func(why string) { o.thawing(h, why) }}
}

// frozen writes the SIGSTOP's line for a task the stopped child holds
// now (h if it still does), and reports whether it holds any.
func (o *orch) frozen(c crash.Child, h holding) (holding, bool) {
	now := holds(c, o.ended)
	held := len(now) > 0
	if held && !slices.Contains(now, h) {
		h = now[0]
	}
	e := line(OpStop, h.job, h.attempt)
	e.Point, e.T0, e.T1 = h.proc, stamp(), stamp()
	if !held {
		e.Err = "held_nothing"
	}
	o.hist.Write(e)
	o.mu.Lock()
	o.freezing++
	o.mu.Unlock()
	return h, held
}

// takenOver: asynq's Inspector shows h's task active again at a later
// attempt (Retried, counted by the recoverer's retry, is at least h's
// attempt), or finished by another since: thaw, after a short random wait
// within the new holder's work.
func (o *orch) takenOver(h holding) (string, bool) {
	ti, err := o.insp.GetTaskInfo(Queue, TaskID(int(h.job)))
	if err != nil || ti.Retried < h.attempt {
		return "", false
	}
	if ti.State != asynq.TaskStateActive && ti.State != asynq.TaskStateCompleted {
		return "", false
	}
	o.mu.Lock()
	d := time.Duration(o.rng.Int64N(int64(o.cfg.Work/4) + 1))
	o.takeovers++
	o.mu.Unlock()
	time.Sleep(d)
	return "taken_over", true
}

func (o *orch) thawing(h holding, why string) {
	o.mu.Lock()
	switch why {
	case crash.ThawMax:
		o.maxFreezes++
	case crash.ThawStopping:
		o.stopFreezes++
	}
	o.freezing--
	o.mu.Unlock()
	e := line(OpCont, h.job, h.attempt)
	e.Point, e.Err, e.T0, e.T1 = h.proc, why, stamp(), stamp()
	o.hist.Write(e)
}
