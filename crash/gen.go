package crash

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/internal/jsonl"
)

// gen is one generation of children: the killing one, then the clean one
// that drains.
type gen struct {
	killing  bool
	mu       sync.Mutex
	stopping bool
	running  map[*child]bool
	wg       sync.WaitGroup // its slots and its freezes
}

// child is a running child and what the supervisor did to it.
type child struct {
	Child
	cmd     *exec.Cmd
	started time.Time
	// frozen since frozenAt (zero: not frozen), frozenFor before that:
	// the time a frozen child cannot reach its point.
	frozenAt  time.Time
	frozenFor time.Duration
	unreached bool      // stopped for not reaching its point within Settings.Reach
	stoppedAt time.Time // when it was told to stop for that
	hard      bool      // SIGKILLed: it did not stop in time
}

// awake is how long the child has run, not counting its freezes.
func (c *child) awake(now time.Time) time.Duration {
	d := now.Sub(c.started) - c.frozenFor
	if !c.frozenAt.IsZero() {
		d -= now.Sub(c.frozenAt)
	}
	return d
}

// term asks the child to stop: SIGTERM, and SIGCONT, for a frozen one
// must run to see it.
func (c *child) term() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	_ = c.cmd.Process.Signal(syscall.SIGCONT)
}

func (s *Supervisor) start(ctx context.Context, killing bool) *gen {
	g := &gen{killing: killing, running: map[*child]bool{}}
	for _, r := range s.cfg.Roles {
		for slot := range r.Slots {
			g.wg.Add(1)
			go func() {
				defer g.wg.Done()
				s.slot(ctx, g, r, slot)
			}()
		}
	}
	return g
}

// stop asks every child of g to stop and waits for them and g's
// freezes; the children left after StopWait are SIGKILLed, each a hard
// stop. Stopping twice is harmless.
func (s *Supervisor) stop(g *gen) {
	g.mu.Lock()
	if !g.stopping {
		g.stopping = true
		for c := range g.running {
			c.term()
		}
	}
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.cfg.stopWait()):
		g.mu.Lock()
		for c := range g.running {
			c.hard = true
			_ = c.cmd.Process.Kill()
		}
		g.mu.Unlock()
		<-done
	}
}

// slot runs one child after another in a role's slot, until one ends
// otherwise than at its kill point.
func (s *Supervisor) slot(ctx context.Context, g *gen, r Role, slot int) {
	for {
		s.mu.Lock()
		if s.failure != nil || ctx.Err() != nil || g.killing && !s.killing {
			s.mu.Unlock()
			return
		}
		first := ProcName(r.Prefix, slot, 0)
		c := Child{Role: r.Name, Slot: slot, Inc: s.inc[first], Killing: g.killing}
		s.inc[first]++ // incarnations count across generations
		if g.killing && slot >= r.Steady {
			c.Kill = s.out.choose(r)
		}
		s.mu.Unlock()
		c.Name = ProcName(r.Prefix, slot, c.Inc)
		c.History = filepath.Join(s.dir, c.Name+".jsonl")
		c.Log = filepath.Join(s.dir, c.Name+".log")
		if !s.runChild(g, c) {
			return
		}
	}
}

// runChild starts c and waits for it; true when it died at its kill
// point (the slot starts the next one).
func (s *Supervisor) runChild(g *gen, c Child) bool {
	g.mu.Lock()
	if g.stopping {
		g.mu.Unlock()
		s.unassign(c)
		return false
	}
	cmd, err := s.spawn(c)
	if err != nil {
		g.mu.Unlock()
		s.unassign(c)
		s.fail(fmt.Errorf("starting %s: %v", c.Name, err))
		return false
	}
	ch := &child{Child: c, cmd: cmd, started: time.Now()}
	g.running[ch] = true
	g.mu.Unlock()
	werr := cmd.Wait()
	g.mu.Lock()
	delete(g.running, ch)
	stopping := g.stopping
	g.mu.Unlock()
	s.w.Ended(c)
	return s.ended(ch, werr, stopping)
}

// spawn starts child c of the binary, its output to its log file.
func (s *Supervisor) spawn(c Child) (*exec.Cmd, error) {
	logf, err := os.Create(c.Log)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own descriptor
	cmd := exec.Command(s.exe, s.w.Args(c)...)
	cmd.Env = append(os.Environ(), s.cfg.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	setPdeathsig(cmd)
	return cmd, cmd.Start()
}

func (s *Supervisor) unassign(c Child) {
	s.mu.Lock()
	s.out.unassign(c.Kill)
	s.mu.Unlock()
}

// ended classifies a child's end: killed at its point (counted; true),
// stopped (false), hard-stopped (counted; false), stopped for not
// reaching its point (the run fails, naming the point), or died
// otherwise (the run fails with the log's tail).
func (s *Supervisor) ended(c *child, werr error, stopping bool) bool {
	ws, _ := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	sigkill := ws.Signaled() && ws.Signal() == syscall.SIGKILL
	// The kill line need not be the last: the process's other
	// goroutines run on until the signal lands, and may write theirs.
	marks, _ := ReadHistory[Mark](c.History)
	at := slices.IndexFunc(marks, func(m Mark) bool { return m.Op == OpKill && m.Point == c.Kill.At.String() })
	switch {
	case c.Kill.At != boundary.None && sigkill && at >= 0:
		s.mu.Lock()
		defer s.mu.Unlock()
		s.out.killed(c.Kill, marks[at].Stmt)
		s.restarts++
		s.reachedIfMet()
		return true
	case c.hard:
		// Its lines in flight may be lost, as a kill's: say so in its
		// own history, as a kill line the checks read as a crash.
		var h jsonl.Log[Mark]
		if h.Open(c.History, "durasim "+s.cfg.Name) == nil {
			t := time.Now().UnixNano()
			h.Append(Mark{Op: OpKill, Proc: c.Name, Point: HardStop, T0: t, T1: t})
			h.Close()
		}
		s.unassign(c.Child)
		s.mu.Lock()
		s.hard++
		s.mu.Unlock()
		if c.unreached {
			s.fail(s.unreached(c, marks))
		}
		return false
	case c.unreached:
		s.unassign(c.Child)
		s.fail(s.unreached(c, marks))
		return false
	case stopping && (werr == nil || ws.Signaled() && ws.Signal() == syscall.SIGTERM):
		s.unassign(c.Child)
		return false
	}
	s.unassign(c.Child)
	s.fail(fmt.Errorf("%s died outside its kill point (%v): %s", c.Name, c.cmd.ProcessState, logTail(c.Log)))
	return false
}

// logTail is the end of a child's log, on one line.
func logTail(path string) string {
	b, _ := os.ReadFile(path)
	b = bytes.TrimSpace(b)
	if len(b) > 400 {
		b = b[len(b)-400:]
	}
	return string(bytes.ReplaceAll(b, []byte("\n"), []byte(" | ")))
}
