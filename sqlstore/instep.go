package sqlstore

import (
	"sync"
	"time"
)

// StepWait bounds how long one side of InStep waits, before a statement,
// for the other to reach the same statement: a side blocked in the
// database on a row the other holds never comes.
const StepWait = 20 * time.Millisecond

// Stepped is a connection whose statements can be counted and announced:
// *Conn, or a wrapper of one.
type Stepped interface {
	CountStatements()
	SetOnStatement(f func(n int))
}

// InStep runs fa on a and fb on b at once, held in step statement by
// statement: before its statement n each side waits until the other has
// reached its statement n, returned, or StepWait passed. It forces the
// interleavings a uniqueness promise must survive (two actors doing the
// same thing at once), which one connection at a time never produces.
// It returns when both have returned, with both hooks cleared.
func InStep(a, b Stepped, fa, fb func()) {
	t := newTurnstile()
	for side, c := range []Stepped{a, b} {
		c.CountStatements()
		c.SetOnStatement(func(n int) { t.arrive(side, n) })
	}
	var wg sync.WaitGroup
	for side, f := range []func(){fa, fb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer t.finish(side)
			f()
		}()
	}
	wg.Wait()
	a.SetOnStatement(nil)
	b.SetOnStatement(nil)
}

// turnstile holds two connections in step.
type turnstile struct {
	mu      sync.Mutex
	at      [2]int  // statements each side reached (n+1 before statement n)
	done    [2]bool // the side's operation returned
	changed chan struct{}
}

func newTurnstile() *turnstile { return &turnstile{changed: make(chan struct{})} }

// signal wakes the waiting side; t.mu is held.
func (t *turnstile) signal() {
	close(t.changed)
	t.changed = make(chan struct{})
}

func (t *turnstile) arrive(side, n int) {
	timeout := time.NewTimer(StepWait)
	defer timeout.Stop()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.at[side] = n + 1
	t.signal()
	for !t.done[1-side] && t.at[1-side] < n+1 {
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
			t.mu.Lock()
		case <-timeout.C:
			t.mu.Lock()
			return
		}
	}
}

func (t *turnstile) finish(side int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done[side] = true
	t.signal()
}
