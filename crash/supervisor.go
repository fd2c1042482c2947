package crash

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/durasim/durasim/boundary"
)

// Supervisor runs one workload's children: the kill phase, then the
// drain. New makes it, Run runs it once, Finish removes its directory.
type Supervisor struct {
	cfg Config
	exe string
	dir string
	w   Workload // Run's

	mu       sync.Mutex
	out      *handout
	killing  bool
	reached  chan struct{} // closed when the kill phase's goals are met
	failure  error
	inc      map[string]int // next incarnation of each slot, by ProcName(prefix, slot, 0)
	freezes  int
	hard     int
	restarts int
}

// Result is what the supervisor counted of a run: every kill is one a
// child's history names, at the point it was given.
type Result struct {
	Kills      map[boundary.Boundary]int
	KillStmts  map[boundary.Boundary]map[int]int // inside points: kills per statement boundary
	Total      int
	Restarts   int // children restarted after their kill
	HardStops  int // children SIGKILLed when a stop ran out of time (their last lines may be lost)
	Freezes    int // SIGSTOPs
	KillPhase  time.Duration
	DrainPhase time.Duration
	Drained    bool // the workload said so before Settings.Drain ran out
}

// ProcName is the name of a child in histories and reports: w3.2 is
// slot 3's third incarnation (the first is w3) of the role with prefix w.
func ProcName(prefix string, slot, inc int) string {
	n := prefix + strconv.Itoa(slot)
	if inc > 0 {
		n += "." + strconv.Itoa(inc)
	}
	return n
}

// New checks cfg, makes the run's directory (a *UsageError when -dir
// holds histories) and finds the binary.
func New(cfg Config) (*Supervisor, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	s := &Supervisor{cfg: cfg, inc: map[string]int{}, reached: make(chan struct{}),
		out: newHandout(cfg.Roles, cfg.Kills, rand.New(rand.NewPCG(cfg.Seed, cfg.Stream)))}
	var err error
	if s.exe = cfg.Exe; s.exe == "" {
		if s.exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if s.dir, err = RunDir(cfg.Dir, cfg.Name); err != nil {
		return nil, err
	}
	return s, nil
}

// Dir is the run's directory.
func (s *Supervisor) Dir() string { return s.dir }

// Finish removes the run's directory when the run passed and the
// directory was a temporary one, and returns the directory kept ("" for
// none).
func (s *Supervisor) Finish(passed bool) string {
	if passed && s.cfg.Dir == "" {
		os.RemoveAll(s.dir)
		return ""
	}
	return s.dir
}

func (s *Supervisor) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		fmt.Fprintf(s.cfg.Log, s.cfg.Name+": "+format+"\n", args...)
	}
}

func (s *Supervisor) failed() error { s.mu.Lock(); defer s.mu.Unlock(); return s.failure }

// fail ends the run with err (the first failure wins), naming the
// directory its histories and logs stay in.
func (s *Supervisor) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failure == nil {
		s.failure = fmt.Errorf("%w (histories and logs in %s)", err, s.dir)
	}
}

// Run runs the kill phase (children with kill points, each restarted
// after its kill, until the goals are met), then the drain (every slot
// restarted without kill points until Workload.Drained). The error says
// why the run could not finish: a child died otherwise than at its
// point, a point was not reached within Settings.Reach, the workload
// failed, the timeout. A drain that runs out of time is a finished run:
// Result.Drained is false.
func (s *Supervisor) Run(ctx context.Context, w Workload) (Result, error) {
	if s.w != nil {
		return Result{}, errors.New("crash: a Supervisor runs once")
	}
	s.w = w
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	t1 := time.Now()
	if err := s.killPhase(ctx); err != nil {
		return Result{}, err
	}
	killPhase := time.Since(t1)
	_, progress := w.Goal()
	s.logf("%d kills%s in %v; draining", s.kills(), progress, killPhase.Round(time.Millisecond))
	t2 := time.Now()
	drained, err := s.drain(ctx)
	if err != nil {
		return Result{}, err
	}
	if !drained {
		s.logf("not drained after %v: checking what is left", s.cfg.Drain)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return Result{Kills: s.out.kills, KillStmts: s.out.stmts, Total: s.out.total, Restarts: s.restarts, HardStops: s.hard,
		Freezes: s.freezes, KillPhase: killPhase, DrainPhase: time.Since(t2), Drained: drained}, nil
}

func (s *Supervisor) kills() int { s.mu.Lock(); defer s.mu.Unlock(); return s.out.total }

// goalsMet: the hand-out's and the workload's. s.mu is held.
func (s *Supervisor) goalsMet() bool {
	met, _ := s.w.Goal()
	return met && s.out.met()
}

// reachedIfMet ends the kill phase once its goals are met. s.mu is held.
func (s *Supervisor) reachedIfMet() {
	if s.killing && s.goalsMet() {
		s.killing = false
		close(s.reached)
	}
}

// killPhase runs the killing generation, ticking the workload, freezing
// children and bounding each child's wait for its point, until the goals
// are met.
func (s *Supervisor) killPhase(ctx context.Context) error {
	s.mu.Lock()
	s.killing = !s.goalsMet()
	s.mu.Unlock()
	if !s.killing {
		return nil
	}
	g := s.start(ctx, true)
	defer s.stop(g)
	tick := time.NewTicker(s.cfg.tick())
	defer tick.Stop()
	var pause <-chan time.Time
	if s.cfg.PauseEvery > 0 {
		t := time.NewTicker(s.cfg.PauseEvery)
		defer t.Stop()
		pause = t.C
	}
	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	for {
		select {
		case <-s.reached:
			s.stop(g)
			return s.failed()
		case <-ctx.Done():
			return s.timedOut()
		case <-progress.C:
			_, more := s.w.Goal()
			s.logf("%d/%d kills%s", s.kills(), s.cfg.Kills, more)
		case <-pause:
			s.freeze(ctx, g)
		case <-tick.C:
			if err := s.failed(); err != nil {
				return err
			}
			if err := s.w.Tick(ctx); err != nil {
				if ctx.Err() != nil {
					return s.timedOut() // the workload's call ran out of time with the run
				}
				return err
			}
			s.mu.Lock()
			s.reachedIfMet()
			s.mu.Unlock()
			s.bound(g)
		}
	}
}

// timedOut is the kill phase's timeout, with what it still waited for.
func (s *Supervisor) timedOut() error {
	_, more := s.w.Goal()
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := fmt.Sprintf("timed out after %v with %d of %d kills%s", s.cfg.Timeout, s.out.total, s.cfg.Kills, more)
	if left := s.out.unkilled(); len(left) > 0 && s.out.everyPoint() {
		var names []string
		for _, p := range left {
			names = append(names, p.String())
		}
		msg += "; no kill yet at " + strings.Join(names, ", ")
	}
	return errors.New(msg)
}

// drain waits DrainDelay, then runs the clean generation until the
// workload says it drained; false when Settings.Drain ran out first.
func (s *Supervisor) drain(ctx context.Context) (bool, error) {
	if d := s.cfg.DrainDelay; d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return false, fmt.Errorf("timed out after %v before draining", s.cfg.Timeout)
		}
	}
	g := s.start(ctx, false)
	defer s.stop(g)
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Drain)
	defer cancel()
	for {
		if err := s.failed(); err != nil {
			return false, err
		}
		done, err := s.w.Drained(dctx)
		switch {
		case err == nil && done:
			s.stop(g)
			return true, s.failed()
		case dctx.Err() != nil && ctx.Err() != nil:
			return false, fmt.Errorf("timed out after %v while draining", s.cfg.Timeout)
		case dctx.Err() != nil:
			return false, nil
		case err != nil:
			return false, err
		}
		time.Sleep(s.cfg.tick())
	}
}
