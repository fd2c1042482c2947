package main

import (
	"errors"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/sim"
)

// mockPacer waits on benbjohnson/clock's Mock. A mock moves only when
// someone calls Add or Set, so a driver has to know when every actor is
// blocked and what the next deadline is: the pacer counts the actors that
// can run (an actor a kick or a fired timer is about to wake counts) and keeps the deadline of every
// sleeping actor. When the count is zero the driver sets the mock to the
// earliest deadline, which fires those timers. Every Set, and every timer
// it fires, sleeps 1 ms of real time inside the Mock: that is its cost.
type mockPacer struct {
	mock *clock.Mock

	mu      sync.Mutex
	idle    *sync.Cond // signalled when active drops to zero
	active  int        // actors able to run, counting those a kick or a fired timer is about to wake
	running int        // actor goroutines not yet exited
	sleeps  []*mockSleep
	waiting map[chan struct{}]bool // actors blocked in wait, by their kick channel
	sets    int                    // Set calls made by the driver
}

// mockSleep is an actor blocked on a mock timer until at.
type mockSleep struct {
	at      time.Time
	timer   *clock.Timer
	claimed bool // the driver counted it as active and will fire it
}

func newMockPacer() *mockPacer {
	p := &mockPacer{mock: clock.NewMock(), waiting: map[chan struct{}]bool{}}
	p.idle = sync.NewCond(&p.mu)
	return p
}

func (p *mockPacer) spawn(f func()) {
	p.mu.Lock()
	p.active++
	p.running++
	p.mu.Unlock()
	go func() {
		defer func() {
			p.mu.Lock()
			p.running--
			p.block()
			p.mu.Unlock()
		}()
		f()
	}()
}

// block counts the calling actor out. Callers hold mu.
func (p *mockPacer) block() {
	p.active--
	if p.active == 0 {
		p.idle.Broadcast()
	}
}

// register arms a mock timer for d. Callers hold mu; the mock cannot move
// meanwhile, because the caller is active.
func (p *mockPacer) register(d time.Duration) *mockSleep {
	s := &mockSleep{at: p.mock.Now().Add(d), timer: p.mock.Timer(d)}
	p.sleeps = append(p.sleeps, s)
	return s
}

func (p *mockPacer) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	p.mu.Lock()
	s := p.register(d)
	p.block()
	p.mu.Unlock()
	<-s.timer.C
}

func (p *mockPacer) wait(kick chan struct{}, d time.Duration) {
	p.mu.Lock()
	if len(kick) > 0 { // a kick is already pending: take it and go on
		<-kick
		p.mu.Unlock()
		return
	}
	var s *mockSleep
	if d > 0 {
		s = p.register(d)
	}
	p.waiting[kick] = true
	p.block()
	p.mu.Unlock()
	if s == nil {
		<-kick
		return
	}
	select {
	case <-s.timer.C:
		p.mu.Lock()
		if p.waiting[kick] {
			p.waiting[kick] = false
		} else {
			p.active-- // a kick came too and counted this actor again
		}
		p.mu.Unlock()
	case <-kick:
		p.mu.Lock()
		if s.claimed {
			p.active-- // counted twice: for the kick and for the timer
		} else {
			p.unregister(s)
			s.timer.Stop()
		}
		p.mu.Unlock()
	}
}

func (p *mockPacer) unregister(s *mockSleep) {
	for i, x := range p.sleeps {
		if x == s {
			p.sleeps = append(p.sleeps[:i], p.sleeps[i+1:]...)
			return
		}
	}
}

// kick sends a token; it makes the actor runnable only if the actor is
// waiting for it (otherwise the token waits for the actor's next wait).
func (p *mockPacer) kick(ch chan struct{}) {
	p.mu.Lock()
	select {
	case ch <- struct{}{}:
	default:
	}
	if p.waiting[ch] {
		p.waiting[ch] = false
		p.active++
	}
	p.mu.Unlock()
}

// drive moves the mock from deadline to deadline until every actor has
// exited.
func (p *mockPacer) drive() error {
	for {
		p.mu.Lock()
		for p.active > 0 {
			p.idle.Wait()
		}
		if p.running == 0 {
			p.mu.Unlock()
			return nil
		}
		if len(p.sleeps) == 0 {
			p.mu.Unlock()
			return errors.New("clock.Mock runner: every actor waits and no timer is armed")
		}
		next := p.sleeps[0].at
		for _, s := range p.sleeps[1:] {
			if s.at.Before(next) {
				next = s.at
			}
		}
		kept := p.sleeps[:0]
		for _, s := range p.sleeps {
			if s.at.After(next) {
				kept = append(kept, s)
				continue
			}
			s.claimed = true
			p.active++
		}
		clear(p.sleeps[len(kept):])
		p.sleeps = kept
		p.sets++
		p.mu.Unlock()
		p.mock.Set(next)
	}
}

// runMockSeed runs one seed with the clock.Mock pacer.
func runMockSeed(cfg sim.Config, seed uint64, reuse *goReuse) (goResult, int, error) {
	p := newMockPacer()
	g := newGoRun(cfg, seed, p.mock, p, reuse)
	g.start()
	if err := p.drive(); err != nil {
		return goResult{}, p.sets, err
	}
	return g.result(), p.sets, nil
}
