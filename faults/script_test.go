package faults

import (
	"fmt"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// op is one call a simulator makes on an injector.
type op struct {
	call    int // one of the call* constants
	b       model.Boundary
	worker  int32
	doc     int32
	stage   model.Stage
	attempt int32
	now     model.Time
}

const (
	callCrossing = iota
	callPublish
	callCommit
	callWork
	callRateLimited
	callDeadline
	callStop
	callCount
)

// script draws a call sequence of n calls for a workload of docs documents
// and workers workers; the last fifth of the calls may follow a Stop.
func script(seed uint64, n int, docs, workers int32) []op {
	r := scheduler.NewStream(seed)
	attempts := make([]int32, docs+1)
	var now model.Time
	ops := make([]op, 0, n+1)
	for i := range n {
		if i == n*4/5 && r.IntN(2) == 0 {
			ops = append(ops, op{call: callStop})
		}
		now += r.Int64N(int64(400 * model.Millisecond))
		o := op{call: r.IntN(callStop), now: now, doc: 1 + int32(r.IntN(int(docs)))}
		o.b = model.Boundaries()[r.IntN(len(model.Boundaries()))]
		o.worker = AnyWorker
		if o.b.Actor() == boundary.Worker {
			o.worker = int32(r.IntN(int(workers)))
		}
		if o.call == callWork && (attempts[o.doc] == 0 || r.IntN(3) == 0) {
			attempts[o.doc]++
		}
		o.attempt = attempts[o.doc]
		o.stage = model.Stages()[r.IntN(len(model.Stages()))]
		ops = append(ops, o)
	}
	return ops
}

// play makes the calls and returns each answer as text.
func play(in *Injector, ops []op) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = call(in, o)
	}
	return out
}

func call(in *Injector, o op) string {
	switch o.call {
	case callCrossing:
		return fmt.Sprintf("crossing %v w%d: %+v", o.b, o.worker, in.Crossing(o.b, o.worker))
	case callPublish:
		return fmt.Sprintf("publish: %+v", in.Publish())
	case callCommit:
		return fmt.Sprintf("commit: %t", in.Commit(false))
	case callWork:
		return fmt.Sprintf("work doc=%d %v attempt=%d: %v", o.doc, o.stage, o.attempt, in.WorkError(o.doc, o.stage, o.attempt))
	case callRateLimited:
		return fmt.Sprintf("429 at %d: %t", o.now, in.RateLimited(o.now))
	case callDeadline:
		d, ok := in.Deadline(o.doc)
		return fmt.Sprintf("deadline doc=%d: %d %t", o.doc, d, ok)
	}
	in.Stop()
	return "stop"
}

// heavySwarm turns every kind on at rate, with two 429 bursts.
func heavySwarm(rate scheduler.PPM, maxFaults int32) *Swarm {
	s := &Swarm{Params: SwarmParams{Workers: 4, Docs: 6, Lease: second, Horizon: 30 * second, MaxFaults: maxFaults}}
	for _, k := range Pipeline.Kinds() {
		s.Kinds[k] = KindSetting{Enabled: true, Rate: rate}
	}
	s.Bursts = []Burst{{At: 2 * second, For: 3 * second}, {At: 10 * second, For: second}}
	return s
}

var testParams = SwarmParams{Workers: 4, Docs: 6, Lease: second, Horizon: 30 * second, MaxFaults: 12}
