package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/durasim/durasim/sim"
)

// runOrdered runs sim.Run(cfg, s) for every seed, n seeds at a time: the
// model's sweep on runSeeds.
func runOrdered(ctx context.Context, cfg sim.Config, seeds []uint64, n int, each func(*sim.Result)) error {
	runners := make([]seedRunner[*sim.Result], max(1, min(n, len(seeds))))
	for i := range runners {
		rn := sim.NewRunner() // one per goroutine: it reuses memory across seeds
		runners[i] = func(s uint64) (*sim.Result, error) { return rn.Run(cfg, s) }
	}
	return runSeeds(ctx, seeds, runners, each)
}

// seedRunner runs one seed. Each goroutine of runSeeds has its own (its
// own memory, or its own database).
type seedRunner[R any] func(seed uint64) (R, error)

// runSeeds runs every seed, len(runners) seeds at a time (each
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
func runSeeds[R any](ctx context.Context, seeds []uint64, runners []seedRunner[R], each func(R)) error {
	n := min(len(runners), len(seeds))
	if n <= 1 {
		for _, s := range seeds {
			if ctx.Err() != nil {
				return nil
			}
			res, err := runners[0](s)
			if err != nil {
				return err
			}
			each(res)
		}
		return nil
	}
	p := newPool(seeds, runners[:n])
	defer p.stop()
	return p.collect(ctx, each)
}

// seedDone is one finished seed: its index in the range and its result.
type seedDone[R any] struct {
	i   int
	res R
	err error
}

// pool runs seeds on n goroutines. A worker takes a token from free before
// it takes the next index; the collector gives a token back each time it
// folds a result in, so indices in flight always lie in [want, want+window).
type pool[R any] struct {
	seeds  []uint64
	window int
	free   chan struct{}
	out    chan seedDone[R]
	next   atomic.Int64
	wg     sync.WaitGroup
}

func newPool[R any](seeds []uint64, runners []seedRunner[R]) *pool[R] {
	p := &pool[R]{seeds: seeds, window: 4 * len(runners)}
	p.free = make(chan struct{}, p.window)
	p.out = make(chan seedDone[R], p.window) // never blocks: at most window in flight
	for range p.window {
		p.free <- struct{}{}
	}
	p.wg.Add(len(runners))
	for _, run := range runners {
		go p.work(run)
	}
	return p
}

func (p *pool[R]) work(run seedRunner[R]) {
	defer p.wg.Done()
	for range p.free {
		i := int(p.next.Add(1) - 1)
		if i >= len(p.seeds) {
			return
		}
		res, err := run(p.seeds[i])
		p.out <- seedDone[R]{i: i, res: res, err: err}
	}
}

// collect folds results in seed order until ctx is done.
func (p *pool[R]) collect(ctx context.Context, each func(R)) error {
	ring := make([]*seedDone[R], p.window)
	for want := 0; want < len(p.seeds); {
		var d seedDone[R]
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
func (p *pool[R]) stop() {
	p.next.Store(int64(len(p.seeds)))
	close(p.free)
	p.wg.Wait()
}
