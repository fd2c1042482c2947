package workload

import (
	"context"
	"slices"
	"time"

	"github.com/durasim/durasim/crash"
)

// Holding is a job a child is working: its name, the job and the attempt.
type Holding struct {
	Proc    string
	Job     int64
	Attempt int
}

// holds reads child c's history: the jobs it fetched that no later line
// of its own ended (the design's last write, an error or a timeout).
func (o *orch) holds(c crash.Child) []Holding {
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
		case Ended(o.s.Config.Design, e):
			delete(open, k)
		}
	}
	var out []Holding
	for _, k := range order {
		if open[k] {
			out = append(out, Holding{Proc: c.Name, Job: k.job, Attempt: k.attempt})
			delete(open, k)
		}
	}
	return out
}

// FreezeWatcher is what a library notes of a freeze besides the
// workload's own: River, whether the child froze inside JobCompleteTx's
// transaction with its job's row locked.
type FreezeWatcher interface {
	// Frozen runs once h's child is stopped.
	Frozen(ctx context.Context, h Holding)
	// ThawNote is added to the thaw line's reason, just before the
	// SIGCONT.
	ThawNote(ctx context.Context, h Holding) string
}

// Freeze freezes (SIGSTOP) a running child that holds a job, unless
// Workers/2 are frozen already, until another child has fetched that job
// (the library handed it out again: River's rescuer, asynq's recoverer,
// goqite's lapsed timeout): a takeover, the frozen child a zombie, thawed
// soon after while the new holder still works. Else it is thawed after
// MaxFreeze, or when its generation stops. The client's history gets a
// line at each end.
func (o *orch) Freeze(_ context.Context, running []crash.Child) *crash.Freeze {
	o.mu.Lock()
	full := o.freezing >= max(1, o.s.Config.Workers/2)
	o.mu.Unlock()
	if full {
		return nil
	}
	var hs []Holding
	for _, c := range running {
		if !c.Frozen {
			hs = append(hs, o.holds(c)...)
		}
	}
	if len(hs) == 0 {
		return nil
	}
	o.mu.Lock()
	h := hs[o.rng.IntN(len(hs))]
	o.mu.Unlock()
	child := running[slices.IndexFunc(running, func(c crash.Child) bool { return c.Name == h.Proc })]
	held := true
	return &crash.Freeze{Child: h.Proc, Max: o.s.Config.MaxFreeze, Poll: o.s.Poll,
		// The history was read before the SIGSTOP: the job may have been
		// done since. Stopped, the child's history is what it holds.
		Frozen: func(ctx context.Context) { h, held = o.frozen(ctx, child, h) },
		Thaw: func(ctx context.Context) (string, bool) {
			if !held {
				return "held_nothing", true
			}
			return o.takenOver(ctx, h)
		},
		Thawing: func(why string) { o.thawing(h, why) }}
}

// frozen writes the SIGSTOP's line for a job the stopped child holds now
// (h if it still does), and reports whether it holds any.
func (o *orch) frozen(ctx context.Context, c crash.Child, h Holding) (Holding, bool) {
	now := o.holds(c)
	held := len(now) > 0
	if held && !slices.Contains(now, h) {
		h = now[0]
	}
	e := Line(OpStop, h.Job, h.Attempt)
	e.Point, e.T0, e.T1 = h.Proc, Stamp(), Stamp()
	if !held {
		e.Err = "held_nothing"
	}
	o.hist.Write(e)
	o.mu.Lock()
	o.freezing++
	o.mu.Unlock()
	if w, ok := o.s.Adapter.(FreezeWatcher); ok && held {
		w.Frozen(ctx, h)
	}
	return h, held
}

// takenOver: the library shows h's job fetched again by another child:
// thaw, after a short random wait within the new holder's work.
func (o *orch) takenOver(ctx context.Context, h Holding) (string, bool) {
	if !o.s.Adapter.TakenOver(ctx, h) {
		return "", false
	}
	o.mu.Lock()
	d := time.Duration(o.rng.Int64N(int64(o.s.Config.Work/4) + 1))
	o.takeovers++
	o.mu.Unlock()
	time.Sleep(d)
	return "taken_over", true
}

// thawing counts the freeze's end by its reason and writes the SIGCONT's
// line.
func (o *orch) thawing(h Holding, why string) {
	o.mu.Lock()
	switch why {
	case crash.ThawMax:
		o.maxFreezes++
	case crash.ThawStopping:
		o.stopFreezes++
	}
	o.freezing--
	o.mu.Unlock()
	if w, ok := o.s.Adapter.(FreezeWatcher); ok {
		if n := w.ThawNote(context.Background(), h); n != "" {
			why += " " + n
		}
	}
	e := Line(OpCont, h.Job, h.Attempt)
	e.Point, e.Err, e.T0, e.T1 = h.Proc, why, Stamp(), Stamp()
	o.hist.Write(e)
}
