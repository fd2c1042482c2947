package main

import (
	"sync"
	"time"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/sim"
)

// This file is the model driven the way a Go user would drive it without
// durasim: real goroutines (one per worker, plus a client, a relay and a
// consumer) that sleep for their latencies, around one mutex because
// model.System is not safe for concurrent use. Two pacers give it time:
// testing/synctest's bubble (time.Sleep on a fake clock) and
// benbjohnson/clock's Mock (a driver goroutine moves the mock).
//
// The workload is the one sim.Run gets (same documents, arrivals,
// extraction latencies and token costs; same worker protocol per stage:
// heartbeat check, work with heartbeats, commit, checkpoint or ack), without
// faults: reproducing the swarm's fault injection here would be rebuilding
// durasim. Every event goes through the same per-event work as in sim:
// the trace line is formatted and hashed (sim.TraceHasher) and the invariant suite
// records it.

// pacer is how actor goroutines wait.
type pacer interface {
	// spawn starts an actor goroutine.
	spawn(f func())
	// sleep blocks for d of the pacer's time.
	sleep(d time.Duration)
	// wait blocks until kick is signalled or, when d > 0, d has passed.
	wait(kick chan struct{}, d time.Duration)
	// kick signals ch without blocking; a kick already pending absorbs it.
	kick(ch chan struct{})
}

// goRun is one seed on goroutines.
type goRun struct {
	cfg  sim.Config
	seed uint64
	pace pacer
	docs []sim.Doc

	mu       sync.Mutex // guards everything below
	sys      *model.System
	rec      *hashRecorder
	jobDoc   []int32 // job id-1 → document index
	parked   []bool
	idle     []int32 // parked workers, most recent last
	inbox    []int64 // broker messages waiting for the consumer
	arrived  bool
	finished bool

	workerKick   []chan struct{}
	relayKick    chan struct{}
	consumerKick chan struct{}
}

// goResult is what a goroutine run reports.
type goResult struct {
	events     uint64
	hash       uint64
	violations []invariants.Violation
}

// goReuse carries a model and an invariant suite from one seed to the
// next, as sim.Runner does for durasim: the goroutine runners get the same
// saving, so the comparison is of the runners, not of their allocations.
type goReuse struct {
	sys   *model.System
	suite *invariants.Suite
}

func newGoRun(cfg sim.Config, seed uint64, clk model.Clock, pace pacer, reuse *goReuse) *goRun {
	g := &goRun{cfg: cfg, seed: seed, pace: pace, docs: benchWorkload(cfg, seed)}
	icfg := invariants.Config{Model: cfg.Model, SecretSource: sim.Secrets(g.docs)}
	if reuse.suite == nil {
		reuse.suite = invariants.NewSuite(icfg)
	} else {
		reuse.suite.Reset(icfg)
	}
	g.rec = newHashRecorder(reuse.suite)
	env := model.Env{Clock: clk, Epoch: clk.Now(), Rand: g.stream(0), Recorder: g.rec}
	if reuse.sys == nil {
		reuse.sys = model.NewSystem(cfg.Model, nil, env)
	} else {
		reuse.sys.Reset(cfg.Model, nil, env)
	}
	g.sys = reuse.sys
	g.parked = make([]bool, cfg.Workers)
	g.workerKick = make([]chan struct{}, cfg.Workers)
	for i := range g.workerKick {
		g.workerKick[i] = make(chan struct{}, 1)
	}
	g.relayKick = make(chan struct{}, 1)
	g.consumerKick = make(chan struct{}, 1)
	return g
}

// stream is actor k's latency stream: each goroutine draws from its own,
// so what it draws does not depend on how the goroutines interleave.
func (g *goRun) stream(k int) *scheduler.Stream {
	return scheduler.NewStream(g.seed*0x9e3779b97f4a7c15 + uint64(k) + 1)
}

// start launches every actor; the caller waits for them (see the pacers).
func (g *goRun) start() {
	g.pace.spawn(g.client)
	g.pace.spawn(g.relay)
	g.pace.spawn(g.consumer)
	for i := range g.cfg.Workers {
		g.pace.spawn(func() { g.worker(i) })
	}
}

func (g *goRun) result() goResult {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rec.suite.Drained(g.finished)
	v := g.rec.suite.Finish(invariants.FinalOf(g.sys))
	return goResult{events: g.rec.Events(), hash: g.rec.Sum(), violations: v}
}

func (g *goRun) now() model.Time { return g.sys.Now() }

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// client submits every document at its arrival time.
func (g *goRun) client() {
	for i := range g.docs {
		d := &g.docs[i]
		g.mu.Lock()
		wait := time.Duration(d.Arrival - g.now())
		g.mu.Unlock()
		g.pace.sleep(wait)
		g.mu.Lock()
		id, err := g.sys.Enqueue(model.EnqueueRequest{
			Tenant: d.Tenant, Document: d.ID, Version: 1, PayloadHash: d.Payload,
			Actor: model.Actor{Role: model.RoleAPI},
		})
		if err == nil {
			for int(id) > len(g.jobDoc) {
				g.jobDoc = append(g.jobDoc, int32(i))
			}
			g.kickWorker()
		}
		g.mu.Unlock()
	}
	g.mu.Lock()
	g.arrived = true
	g.checkDone()
	g.mu.Unlock()
}

// kickWorker wakes one parked worker. Callers hold mu.
func (g *goRun) kickWorker() {
	for len(g.idle) > 0 {
		id := g.idle[len(g.idle)-1]
		g.idle = g.idle[:len(g.idle)-1]
		if g.parked[id] {
			g.parked[id] = false
			g.pace.kick(g.workerKick[id])
			return
		}
	}
}

// checkDone ends the run once every job is terminal, every outbox row
// published and every message acked. Callers hold mu.
func (g *goRun) checkDone() {
	if g.finished || !g.arrived || g.sys.Live() > 0 || g.sys.PendingRows() > 0 || g.sys.Unacked() > 0 {
		return
	}
	g.finished = true
	for _, ch := range g.workerKick {
		g.pace.kick(ch)
	}
	g.pace.kick(g.relayKick)
	g.pace.kick(g.consumerKick)
}

// worker leases jobs and runs every remaining stage of each.
func (g *goRun) worker(id int32) {
	rnd := g.stream(int(id) + 3)
	actor := model.Actor{Role: model.RoleWorker, ID: id}
	for {
		g.mu.Lock()
		if g.finished {
			g.mu.Unlock()
			return
		}
		g.parked[id] = false
		l, ok := g.sys.LeaseNext(actor)
		wait := time.Duration(0)
		if ok {
			if at, more := g.sys.NextReadyAt(); more && at <= g.now() {
				g.kickWorker() // more work is waiting: wake a colleague
			}
		} else {
			if at, more := g.sys.NextReadyAt(); more {
				wait = max(time.Duration(at-g.now()), time.Millisecond)
			}
			g.parked[id] = true
			g.idle = append(g.idle, id)
		}
		g.mu.Unlock()
		if !ok {
			g.pace.wait(g.workerKick[id], wait)
			continue
		}
		g.pace.sleep(dbLatency(rnd))
		g.process(actor, l, rnd)
		g.pace.sleep(dbLatency(rnd))
	}
}

func dbLatency(r *scheduler.Stream) time.Duration { return ms(1 + r.Int64N(5)) }

// process runs the job's stages from its checkpoint: work, commit, then a
// checkpoint (or the final ack), with a database latency between steps.
// It returns early when the queue says the lease is lost.
func (g *goRun) process(actor model.Actor, l model.Lease, rnd *scheduler.Stream) {
	for st := l.Stage; st < model.StageDone; st++ {
		if !g.work(actor, l, st, rnd) {
			return
		}
		g.pace.sleep(dbLatency(rnd))
		if !g.commit(actor, l, st) {
			return
		}
		g.pace.sleep(dbLatency(rnd))
		if !g.ack(actor, l, st) {
			return
		}
		if st < model.StageReview {
			g.pace.sleep(dbLatency(rnd))
		}
	}
}

// work confirms the lease, runs the stage for its latency and heartbeats
// while it runs.
func (g *goRun) work(actor model.Actor, l model.Lease, st model.Stage, rnd *scheduler.Stream) bool {
	g.mu.Lock()
	if g.sys.Heartbeat(actor, l.Job, l.Fence) != nil {
		g.mu.Unlock()
		return false
	}
	job, _ := g.sys.Job(l.Job)
	d := &g.docs[g.jobDoc[l.Job-1]]
	latency := model.Time(dbLatency(rnd)) + model.Time(ms(rnd.Int64N(10)))
	tokens := int64(0)
	if st == model.StageExtract {
		latency, tokens = d.Latency, d.Tokens
	}
	g.sys.SpendTokens(l.Job, tokens)
	e := model.Event{Kind: model.EvExtract, Actor: actor, At: g.now(), Job: l.Job, Stage: st, HasStage: true,
		Attempt: job.Attempt, N: latency, N2: tokens, Fence: l.Fence}
	g.rec.Record(&e)
	end := g.now() + latency
	g.mu.Unlock()
	for {
		g.mu.Lock()
		left := end - g.now()
		g.mu.Unlock()
		if left <= 0 {
			return true
		}
		g.pace.sleep(time.Duration(min(left, g.cfg.Model.HeartbeatEvery)))
		g.mu.Lock()
		ok := g.now() >= end || g.sys.Heartbeat(actor, l.Job, l.Fence) == nil
		g.mu.Unlock()
		if !ok {
			return false
		}
	}
}

func (g *goRun) commit(actor model.Actor, l model.Lease, st model.Stage) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	job, _ := g.sys.Job(l.Job)
	d := &g.docs[g.jobDoc[l.Job-1]]
	_, err := g.sys.CommitResultWithEvent(model.CommitRequest{
		Actor: actor, Job: l.Job, Tenant: job.Tenant, Key: job.Key, Stage: st,
		PayloadHash: job.PayloadHash, Value: d.TextHash ^ uint64(job.Attempt)<<32 ^ uint64(st),
	})
	if err != nil {
		return false
	}
	g.pace.kick(g.relayKick)
	return true
}

func (g *goRun) ack(actor model.Actor, l model.Lease, st model.Stage) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	var err error
	if st == model.StageReview {
		err = g.sys.Ack(actor, l.Job, l.Fence)
	} else {
		err = g.sys.Advance(actor, l.Job, l.Fence, st+1)
	}
	g.checkDone()
	return err == nil
}

// relay publishes each outbox row to the broker, then marks it published.
func (g *goRun) relay() {
	rnd := g.stream(1)
	actor := model.Actor{Role: model.RoleRelay}
	for {
		g.mu.Lock()
		if g.finished {
			g.mu.Unlock()
			return
		}
		row, ok := g.sys.NextUnpublished()
		if ok {
			msg := g.sys.Publish(actor, row.EventID)
			g.inbox = append(g.inbox, msg)
			g.pace.kick(g.consumerKick)
		}
		g.mu.Unlock()
		if !ok {
			g.pace.wait(g.relayKick, 0)
			continue
		}
		g.pace.sleep(dbLatency(rnd))
		g.mu.Lock()
		g.sys.MarkPublished(actor, row.EventID)
		g.checkDone()
		g.mu.Unlock()
		g.pace.sleep(dbLatency(rnd))
	}
}

// consumer takes messages off the broker after its latency, applies and
// acks them.
func (g *goRun) consumer() {
	rnd := g.stream(2)
	actor := model.Actor{Role: model.RoleConsumer}
	for {
		g.mu.Lock()
		if g.finished {
			g.mu.Unlock()
			return
		}
		var msg int64
		if len(g.inbox) > 0 {
			msg = g.inbox[0]
			g.inbox = g.inbox[1:]
		}
		g.mu.Unlock()
		if msg == 0 {
			g.pace.wait(g.consumerKick, 0)
			continue
		}
		g.pace.sleep(ms(1 + rnd.Int64N(20)))
		g.mu.Lock()
		g.sys.Deliver(actor, msg)
		g.sys.AckMessage(msg)
		g.checkDone()
		g.mu.Unlock()
	}
}
