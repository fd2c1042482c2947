package riverchaos

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
)

// gen is one generation of children: the killing one, then the clean one
// that drains.
type gen struct {
	kills    bool
	mu       sync.Mutex
	stopping bool
	running  map[*exec.Cmd]string // → process name
	frozen   map[string]bool      // process names SIGSTOPped now
	hard     map[*exec.Cmd]bool   // SIGKILLed by stop: it did not stop in time
	wg       sync.WaitGroup
}

func (o *orch) startGen(ctx context.Context, kills bool) *gen {
	g := &gen{kills: kills, running: map[*exec.Cmd]string{}, frozen: map[string]bool{}, hard: map[*exec.Cmd]bool{}}
	for id := range o.cfg.Workers {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			o.slot(ctx, g, id)
		}()
	}
	return g
}

// stopWait is how long stop waits for its children (each stops River's
// client, waiting for its jobs, which end by their JobTimeout at the
// latest) before it SIGKILLs the rest.
const stopWait = 30 * time.Second

// stop asks every child of g to stop (SIGTERM, and SIGCONT for a frozen
// one) and waits for them and g's freezes; one that does not stop within
// stopWait is SIGKILLed and counted as a hard stop. Stopping twice is
// harmless.
func (o *orch) stop(g *gen) {
	g.mu.Lock()
	if !g.stopping {
		g.stopping = true
		for c := range g.running {
			_ = c.Process.Signal(syscall.SIGTERM)
			_ = c.Process.Signal(syscall.SIGCONT)
		}
	}
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopWait):
		g.mu.Lock()
		for c := range g.running {
			g.hard[c] = true
			_ = c.Process.Kill()
		}
		g.mu.Unlock()
		<-done
	}
}

// slot runs one child after another in slot id. The first Steady slots
// get no kill point.
func (o *orch) slot(ctx context.Context, g *gen, id int) {
	for {
		o.mu.Lock()
		if o.failure != nil || ctx.Err() != nil {
			o.mu.Unlock()
			return
		}
		c := o.childConfig(id)
		if g.kills && id >= o.cfg.Steady {
			c.KillAt, c.KillNth = o.choose()
			c.NoLead = !o.cfg.KilledLead
		}
		o.mu.Unlock()
		if !o.runChild(g, c) {
			return
		}
	}
}

// childConfig is slot id's next child, without a kill point. o.mu is held.
func (o *orch) childConfig(id int) ChildConfig {
	inc := o.inc[id]
	o.inc[id]++ // incarnations count across generations
	return ChildConfig{ID: id, Incarnation: inc, Design: o.cfg.Design, History: filepath.Join(o.dir, ProcName(id, inc)+".jsonl"),
		Seed: o.cfg.Seed, MaxWorkers: o.cfg.MaxWorkers, MaxAttempts: o.cfg.MaxAttempts, RescueAfter: o.cfg.RescueAfter,
		JobTimeout: o.cfg.JobTimeout, RetryCap: o.cfg.RetryCap, Work: o.cfg.Work}
}

// runChild starts c and waits for it; true when it died at its kill
// point (the slot starts the next one).
func (o *orch) runChild(g *gen, c ChildConfig) bool {
	proc := ProcName(c.ID, c.Incarnation)
	g.mu.Lock()
	if g.stopping {
		g.mu.Unlock()
		o.unassign(c.KillAt)
		return false
	}
	cmd, logPath, err := o.spawn(c)
	if err != nil {
		g.mu.Unlock()
		o.unassign(c.KillAt)
		o.fail(fmt.Errorf("starting %s: %v", proc, err))
		return false
	}
	g.running[cmd] = proc
	g.mu.Unlock()
	werr := cmd.Wait()
	g.mu.Lock()
	delete(g.running, cmd)
	stopping, hard := g.stopping, g.hard[cmd]
	g.mu.Unlock()
	return o.ended(c, cmd, werr, stopping, hard, logPath)
}

// spawn starts child c of the binary, its output to its log file. The
// URL goes by environment, not argv: no password in ps.
func (o *orch) spawn(c ChildConfig) (*exec.Cmd, string, error) {
	logPath := filepath.Join(o.dir, ProcName(c.ID, c.Incarnation)+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	defer logf.Close() // the child has its own descriptor
	cmd := exec.Command(o.exe, append(append([]string(nil), o.cfg.exeArgs()...), c.Args()...)...)
	cmd.Env = append(os.Environ(), "DURASIM_PG_URL="+o.cfg.DB)
	cmd.Stdout, cmd.Stderr = logf, logf
	setPdeathsig(cmd)
	return cmd, logPath, cmd.Start()
}

// ended classifies a child's end: a kill at its point (counted; true), a
// stop (false), a hard stop (counted; false), or anything else: the run
// fails.
func (o *orch) ended(c ChildConfig, cmd *exec.Cmd, werr error, stopping, hard bool, logPath string) bool {
	// The kill line need not be the last: the process's other handlers
	// run on until the signal lands, and may write theirs after it.
	entries, _ := ReadHistory(c.History)
	killLine := slices.ContainsFunc(entries, func(e Entry) bool { return e.Op == OpKill && e.Point == c.KillAt.String() })
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	killed := ws.Signaled() && ws.Signal() == syscall.SIGKILL
	switch {
	case hard:
		// Its lines in flight may be lost, as a kill's: say so in its
		// own history, as a kill line the checks read as a crash.
		if h, err := OpenHistory(c.History, ProcName(c.ID, c.Incarnation)); err == nil {
			h.Write(Entry{Op: OpKill, Point: "hard_stop", T0: stamp(), T1: stamp()})
			h.Close()
		}
		o.unassign(c.KillAt)
		o.mu.Lock()
		o.hardStops++
		o.mu.Unlock()
		return false
	case c.KillAt != PointNone && killed && killLine:
		o.mu.Lock()
		defer o.mu.Unlock()
		o.kills[c.KillAt]++
		o.assigned[c.KillAt]--
		o.total++
		o.restarts++
		o.reachedIfMet()
		return true
	case stopping && (werr == nil || ws.Signaled() && ws.Signal() == syscall.SIGTERM):
		o.unassign(c.KillAt)
		return false
	}
	o.unassign(c.KillAt)
	o.fail(fmt.Errorf("%s died outside its kill point (%v): %s", ProcName(c.ID, c.Incarnation), cmd.ProcessState, logTail(logPath)))
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
