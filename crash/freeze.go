package crash

import (
	"context"
	"sort"
	"syscall"
	"time"

	"github.com/durasim/durasim/boundary"
)

// freeze asks the workload which running child to freeze and SIGSTOPs
// it; a goroutine of g's thaws it (thaw).
func (s *Supervisor) freeze(ctx context.Context, g *gen) {
	g.mu.Lock()
	var running []Child
	for c := range g.running {
		r := c.Child
		r.Frozen = !c.frozenAt.IsZero()
		running = append(running, r)
	}
	g.mu.Unlock()
	sort.Slice(running, func(i, j int) bool { return running[i].Name < running[j].Name })
	f := s.w.Freeze(ctx, running) // may ask the system which child holds what: no lock held
	if f == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var c *child
	for r := range g.running {
		if r.Name == f.Child && r.frozenAt.IsZero() {
			c = r
		}
	}
	if g.stopping || c == nil || c.cmd.Process.Signal(syscall.SIGSTOP) != nil {
		return
	}
	c.frozenAt = time.Now()
	s.mu.Lock()
	s.freezes++
	s.mu.Unlock()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		s.thaw(ctx, g, c, f)
	}()
}

// thaw waits for a frozen child's threads to stop, runs its Freeze's
// Frozen, and wakes it (SIGCONT) as soon as its Thaw says so, at its
// Max, or when g stops, whichever comes first.
func (s *Supervisor) thaw(ctx context.Context, g *gen, c *child, f *Freeze) {
	for wait := time.Now().Add(time.Second); !stopped(c.cmd.Process.Pid) && time.Now().Before(wait); {
		time.Sleep(time.Millisecond)
	}
	if f.Frozen != nil {
		f.Frozen(ctx)
	}
	poll := f.Poll
	if poll <= 0 {
		poll = 25 * time.Millisecond
	}
	why := ThawMax
	deadline := c.frozenAt.Add(f.Max)
	for next := time.Now(); time.Now().Before(deadline); time.Sleep(min(25*time.Millisecond, time.Until(deadline))) {
		g.mu.Lock()
		stopping := g.stopping
		g.mu.Unlock()
		if stopping || ctx.Err() != nil {
			why = ThawStopping
			break
		}
		if f.Thaw == nil || time.Now().Before(next) {
			continue
		}
		next = time.Now().Add(poll)
		if r, now := f.Thaw(ctx); now {
			why = r
			break
		}
	}
	if f.Thawing != nil {
		f.Thawing(why)
	}
	_ = c.cmd.Process.Signal(syscall.SIGCONT)
	g.mu.Lock()
	c.frozenFor += time.Since(c.frozenAt)
	c.frozenAt = time.Time{}
	g.mu.Unlock()
}

// bound stops each child of g that has been awake longer than
// Settings.Reach without reaching its kill point (its end fails the run,
// naming the point), and SIGKILLs one that has not stopped StopWait
// after that.
func (s *Supervisor) bound(g *gen) {
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.running {
		switch {
		case c.Kill.At == boundary.None || g.stopping:
		case !c.unreached && c.awake(now) > s.cfg.Reach:
			c.unreached, c.stoppedAt = true, now
			c.term()
		case c.unreached && !c.hard && now.Sub(c.stoppedAt) > s.cfg.stopWait():
			c.hard = true
			_ = c.cmd.Process.Kill()
		}
	}
}
