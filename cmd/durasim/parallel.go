package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/durasim/durasim/sim"
)

// runOrdered runs sim.Run(cfg, s) for every seed, n seeds at a time (each
// seed on one goroutine, so on its own OS thread while n <= GOMAXPROCS),
// and hands the results to each in seed order — so whatever n is, each
// sees the same sequence and the output is the same bytes. It stops at the
// first error, in seed order, and when ctx is done (an interrupt): it
// starts no more seeds, waits for the running ones and folds none of them
// in, so the results folded are always the range's first seeds.
//
// At most window = 4n seeds are in flight or waiting for an earlier seed,
// so memory stays bounded however long the range and however slow one
// seed is.
func runOrdered(ctx context.Context, cfg sim.Config, seeds []uint64, n int, each func(*sim.Result)) error {
	n = min(n, len(seeds))
	if n <= 1 {
		rn := sim.NewRunner()
		for _, s := range seeds {
			if ctx.Err() != nil {
				return nil
			}
			res, err := rn.Run(cfg, s)
			if err != nil {
				return err
			}
			each(res)
		}
		return nil
	}
	p := newPool(cfg, seeds, n)
	defer p.stop()
	return p.collect(ctx, each)
}

// seedDone is one finished seed: its index in the range and its result.
type seedDone struct {
	i   int
	res *sim.Result
	err error
}

// pool runs seeds on n goroutines. A worker takes a token from free before
// it takes the next index; the collector gives a token back each time it
// folds a result in, so indices in flight always lie in [want, want+window).
type pool struct {
	cfg    sim.Config
	seeds  []uint64
	window int
	free   chan struct{}
	out    chan seedDone
	next   atomic.Int64
	wg     sync.WaitGroup
}

func newPool(cfg sim.Config, seeds []uint64, n int) *pool {
	p := &pool{cfg: cfg, seeds: seeds, window: 4 * n}
	p.free = make(chan struct{}, p.window)
	p.out = make(chan seedDone, p.window) // never blocks: at most window in flight
	for range p.window {
		p.free <- struct{}{}
	}
	p.wg.Add(n)
	for range n {
		go p.work()
	}
	return p
}

func (p *pool) work() {
	defer p.wg.Done()
	rn := sim.NewRunner() // one per goroutine: it reuses memory across seeds
	for range p.free {
		i := int(p.next.Add(1) - 1)
		if i >= len(p.seeds) {
			return
		}
		res, err := rn.Run(p.cfg, p.seeds[i])
		p.out <- seedDone{i: i, res: res, err: err}
	}
}

// collect folds results in seed order until ctx is done.
func (p *pool) collect(ctx context.Context, each func(*sim.Result)) error {
	ring := make([]*seedDone, p.window)
	for want := 0; want < len(p.seeds); {
		var d seedDone
		select {
		case d = <-p.out:
		case <-ctx.Done():
			return nil
		}
		ring[d.i%p.window] = &d
		for want < len(p.seeds) {
			slot := ring[want%p.window]
			if slot == nil || slot.i != want {
				break
			}
			ring[want%p.window] = nil
			if slot.err != nil {
				return slot.err
			}
			each(slot.res)
			want++
			p.free <- struct{}{}
		}
	}
	return nil
}

// stop ends the workers: those waiting for a token see the closed channel,
// those running finish their seed (out has room for it) and exit.
func (p *pool) stop() {
	p.next.Store(int64(len(p.seeds)))
	close(p.free)
	p.wg.Wait()
}
