package model_test

import (
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// Reset must leave nothing of the previous run observable: a System reset
// after any workload behaves, event for event and accessor for accessor,
// like a fresh one. A script of operations is interpreted the same way on
// both; operands are small indices resolved against what the run has
// produced so far (leases, messages, jobs), so any script is valid.

type opKind uint8

const (
	opEnqueue opKind = iota
	opLease
	opHeartbeat
	opCommit
	opAdvance
	opAck
	opFail // transient or permanent; a dead-letter decision writes the DLQ
	opRelay
	opDeliver
	opRedrive
	opReprocess
	opStatus
	opPrune
	opTick
	opDualWrite
	opSpend
	opCount
)

// scriptOp is one scripted call; a, b, c are interpreted per kind.
type scriptOp struct {
	kind    opKind
	a, b, c int
}

// scriptRun interprets ops against one System.
type scriptRun struct {
	clk    *fakeClock
	sys    *model.System
	leases []model.Lease
	msgs   []int64
}

func scriptEnv(clk *fakeClock, log *eventLog) model.Env {
	env := model.Env{Clock: clk, Epoch: scheduler.Epoch, Rand: scheduler.NewStream(1)}
	if log != nil {
		env.Recorder = log
	}
	return env
}

func (r *scriptRun) lease(i int) (model.Lease, bool) {
	if len(r.leases) == 0 {
		return model.Lease{}, false
	}
	if i < 0 { // the latest lease
		return r.leases[len(r.leases)-1], true
	}
	return r.leases[i%len(r.leases)], true
}

func (r *scriptRun) jobID(i int) model.JobID { return model.JobID(i%(r.sys.Jobs()+1) + 1) }

func (r *scriptRun) run(ops []scriptOp) {
	stages := model.Stages()
	for _, o := range ops {
		switch o.kind {
		case opEnqueue:
			r.sys.Enqueue(model.EnqueueRequest{
				Tenant: smTenants[o.a%len(smTenants)], Document: smDocs[o.b%len(smDocs)],
				Version: 1 + o.c%2, PayloadHash: uint64(1 + o.c%3), Actor: api,
			})
		case opLease:
			if l, ok := r.sys.LeaseNext(smWorkers[o.a%len(smWorkers)]); ok {
				r.leases = append(r.leases, l)
			}
		case opHeartbeat:
			if l, ok := r.lease(o.a); ok {
				r.sys.Heartbeat(w1, l.Job, l.Fence)
			}
		case opCommit:
			if l, ok := r.lease(o.a); ok {
				j, _ := r.sys.Job(l.Job)
				r.sys.CommitResultWithEvent(model.CommitRequest{
					Actor: w1, Job: l.Job, Tenant: j.Tenant, Key: j.Key, Stage: stages[o.b%len(stages)],
					PayloadHash: j.PayloadHash + uint64(o.c%4/3), Value: uint64(o.c),
				})
			}
		case opAdvance:
			if l, ok := r.lease(o.a); ok {
				r.sys.Advance(w1, l.Job, l.Fence, stages[o.b%len(stages)])
			}
		case opAck:
			if l, ok := r.lease(o.a); ok {
				r.sys.Ack(w1, l.Job, l.Fence)
			}
		case opFail:
			if l, ok := r.lease(o.a); ok {
				cause := error(errTransient)
				if o.b%2 == 1 {
					cause = errPoison
				}
				if d, err := r.sys.Fail(w1, l.Job, l.Fence, cause); err == nil && d.Outcome == model.DeadLetterOutcome {
					r.sys.WriteDLQ(w1, l.Job, d.Reason, cause)
					r.sys.MarkDead(w1, l.Job, l.Fence, d.Reason)
				}
			}
		case opRelay:
			if row, ok := r.sys.NextUnpublished(); ok {
				r.msgs = append(r.msgs, r.sys.Publish(relay, row.EventID))
				r.sys.MarkPublished(relay, row.EventID)
			}
		case opDeliver:
			if len(r.msgs) > 0 {
				msg := r.msgs[o.a%len(r.msgs)]
				r.sys.Deliver(consumer, msg)
				if o.b%2 == 0 {
					r.sys.AckMessage(msg)
				}
			}
		case opRedrive:
			r.sys.Redrive(op, r.jobID(o.a))
		case opReprocess:
			r.sys.Reprocess(op, r.jobID(o.a), []string{"", "alice"}[o.b%2])
		case opStatus:
			r.sys.Status(smTenants[o.b%len(smTenants)], r.jobID(o.a))
		case opPrune:
			r.sys.PruneOutbox(relay)
		case opTick:
			r.clk.advance(model.Time(1+o.a) * 500 * ms)
		case opDualWrite:
			if l, ok := r.lease(o.a); ok {
				j, _ := r.sys.Job(l.Job)
				st := stages[o.b%len(stages)]
				r.sys.DualWrite(w1, l.Job, j.Key, st)
				if msg, ok := r.sys.PublishDirect(w1, j.Key, st); ok {
					r.msgs = append(r.msgs, msg)
				}
			}
		case opSpend:
			r.sys.SpendTokens(r.jobID(o.a), int64(o.b%4000))
		}
	}
}

var (
	relay    = model.Actor{Role: model.RoleRelay}
	consumer = model.Actor{Role: model.RoleConsumer}
)

// observed is everything a run exposes: its events and its accessors.
type observed struct {
	Events      []model.Event
	Jobs        []model.Job
	Rows        []model.OutboxRow
	Messages    []model.Message
	Effects     []model.Effect
	DLQ         []model.Envelope
	Quarantined []model.JobID
	Audit       []model.AuditEntry
	Cancelled   []model.JobID
	Counts      [6]int
	Breaker     model.BreakerState
	NextReady   [2]int64
	Now         model.Time
	Config      model.Config
	Design      string
	EffectCount []int
}

func observe(sys *model.System, log *eventLog) observed {
	o := observed{Events: log.Events, Effects: sys.Effects(), DLQ: sys.DLQEntries(), Quarantined: sys.Quarantined(), Audit: sys.Audit()}
	sys.EachJob(func(j *model.Job) { o.Jobs = append(o.Jobs, *j) })
	sys.EachRow(func(r *model.OutboxRow) { o.Rows = append(o.Rows, *r) })
	for id := int64(1); int(id) <= sys.Messages(); id++ {
		m, _ := sys.Message(id)
		o.Messages = append(o.Messages, m)
	}
	for i := range sys.CancelledJobs() {
		o.Cancelled = append(o.Cancelled, sys.CancelledJob(i))
	}
	o.Counts = [6]int{sys.Jobs(), sys.Live(), sys.Rows(), sys.PendingRows(), sys.Messages(), sys.Unacked()}
	o.Breaker = sys.BreakerState()
	at, ok := sys.NextReadyAt()
	o.NextReady = [2]int64{at, map[bool]int64{false: 0, true: 1}[ok]}
	o.Now, o.Config, o.Design = sys.Now(), sys.Config(), sys.Design().Name
	for _, tenant := range smTenants {
		for _, doc := range smDocs {
			for v := 1; v <= 2; v++ {
				key, _ := model.BuildIdempotencyKey(tenant, doc, v)
				for _, st := range model.Stages() {
					o.EffectCount = append(o.EffectCount, sys.EffectCount(key, st))
					if res, ok := sys.Committed(key, st); ok {
						o.EffectCount = append(o.EffectCount, int(res.EventID), int(res.Value))
					}
				}
			}
		}
	}
	return o
}

// runFresh runs ops on a new System.
func runFresh(cfg model.Config, design *model.Design, ops []scriptOp) observed {
	clk, log := &fakeClock{now: scheduler.Epoch}, &eventLog{}
	r := &scriptRun{clk: clk, sys: model.NewSystem(cfg, design, scriptEnv(clk, log))}
	r.run(ops)
	return observe(r.sys, log)
}

// runReset resets sys (whatever it did before) and runs ops on it.
func runReset(sys *model.System, cfg model.Config, design *model.Design, ops []scriptOp) observed {
	clk, log := &fakeClock{now: scheduler.Epoch}, &eventLog{}
	sys.Reset(cfg, design, scriptEnv(clk, log))
	r := &scriptRun{clk: clk, sys: sys}
	r.run(ops)
	return observe(sys, log)
}

var ignoreJobInternals = cmpopts.IgnoreUnexported(model.Job{})

// resetScript exercises every part of the System: two tenants, dedupe and
// conflicting enqueues, leases, heartbeats, commits (new, deduped,
// conflicting), checkpoints, acks, retries, the DLQ, the relay, duplicate
// deliveries, redrive, reprocess, status, pruning, lease expiry and stale
// fences.
var resetScript = []scriptOp{
	{opEnqueue, 0, 0, 0}, {opEnqueue, 1, 0, 0}, {opEnqueue, 0, 1, 0}, {opEnqueue, 1, 2, 0},
	{opEnqueue, 0, 0, 0}, {opEnqueue, 0, 0, 1}, // dedupe, conflict
	{opLease, 0, 0, 0}, {opLease, 1, 0, 0}, {opLease, 2, 0, 0},
	{opHeartbeat, 0, 0, 0}, {opCommit, 0, 0, 0}, {opCommit, 0, 0, 0}, {opCommit, 0, 0, 3},
	{opAdvance, 0, 1, 0}, {opCommit, 0, 1, 5}, {opAck, 0, 0, 0},
	{opFail, 1, 1, 0}, // poison: dead-lettered
	{opFail, 2, 0, 0}, // transient: retry_wait
	{opCommit, 1, 0, 0}, {opRelay, 0, 0, 0}, {opRelay, 0, 0, 0}, {opRelay, 0, 0, 0},
	{opDeliver, 0, 1, 0}, {opDeliver, 0, 0, 0}, {opDeliver, 1, 0, 0}, {opDeliver, 2, 0, 0},
	{opStatus, 0, 0, 0}, {opStatus, 0, 1, 0}, {opSpend, 2, 1500, 0},
	{opTick, 19, 0, 0}, {opTick, 19, 0, 0},
	{opRedrive, 1, 0, 0}, {opReprocess, 1, 0, 0}, {opReprocess, 1, 1, 0},
	{opLease, 0, 0, 0}, {opLease, 1, 0, 0}, {opLease, 2, 0, 0}, {opLease, 0, 0, 0},
	{opHeartbeat, 2, 0, 0}, // stale fence
	{opDualWrite, 4, 2, 0}, {opCommit, 5, 3, 0}, {opAck, 5, 0, 0}, {opAck, 6, 0, 0},
	{opRelay, 0, 0, 0}, {opRelay, 0, 0, 0}, {opDeliver, 3, 0, 0}, {opDeliver, 4, 0, 0},
	{opTick, 19, 0, 0}, {opTick, 19, 0, 0}, {opTick, 19, 0, 0}, {opLease, 1, 0, 0}, {opLease, 2, 0, 0},
	{opFail, 7, 0, 0}, {opFail, 8, 1, 0}, {opPrune, 0, 0, 0},
	{opTick, 1300, 0, 0}, {opPrune, 0, 0, 0}, // past the retention
	{opEnqueue, 0, 2, 0}, {opEnqueue, 1, 1, 0}, {opEnqueue, 1, 0, 1}, {opEnqueue, 1, 2, 1},
	{opLease, 0, 0, 0}, {opFail, -1, 0, 0}, {opLease, 1, 0, 0}, {opFail, -1, 0, 0},
	{opLease, 2, 0, 0}, {opFail, -1, 0, 0}, {opTick, 4, 0, 0}, {opLease, 0, 0, 0}, {opAck, -1, 0, 0},
	{opTick, 8, 0, 0}, {opLease, 0, 0, 0}, {opFail, -1, 0, 0}, {opLease, 0, 0, 0}, {opAck, -1, 0, 0},
	{opLease, 0, 0, 0}, {opLease, 0, 0, 0}, {opLease, 0, 0, 0}, {opLease, 0, 0, 0},
}

// dirtyConfig differs from testConfig in every way that shapes storage:
// an ordered queue, a small breaker that opens, other limits.
func dirtyConfig() model.Config {
	c := model.DefaultConfig()
	c.Ordered = true
	c.Lease, c.HeartbeatEvery, c.MaxAttempts = 3000*ms, 1000*ms, 5
	c.Breaker = model.BreakerConfig{Window: 4, MinSamples: 2, ThresholdPPM: 400_000, Cooldown: 2000 * ms, Canaries: 1}
	c.Redrive.Capacity, c.Reprocess.Capacity = 5, 1
	return c
}

func TestResetReplaysTheSameRun(t *testing.T) {
	cfg := testConfig()
	want := runFresh(cfg, nil, resetScript)
	for _, kind := range []model.EventKind{
		model.EvEnqueue, model.EvLease, model.EvLeaseExpired, model.EvHeartbeat, model.EvAdvance, model.EvAck,
		model.EvRetry, model.EvDead, model.EvCommit, model.EvDBWrite, model.EvPublish, model.EvMarkPublished,
		model.EvApply, model.EvPrune, model.EvDLQWrite, model.EvRedrive, model.EvReprocess,
	} {
		if !hasEvent(want.Events, kind) {
			t.Errorf("the script never produces a %v event", kind)
		}
	}

	clk, log := &fakeClock{now: scheduler.Epoch}, &eventLog{}
	sys := model.NewSystem(cfg, nil, scriptEnv(clk, log))
	(&scriptRun{clk: clk, sys: sys}).run(resetScript)
	if diff := cmp.Diff(want, observe(sys, log), ignoreJobInternals); diff != "" {
		t.Fatalf("first run differs from a fresh one (-fresh +run):\n%s", diff)
	}
	if diff := cmp.Diff(want, runReset(sys, cfg, nil, resetScript), ignoreJobInternals); diff != "" {
		t.Errorf("run after Reset differs from a fresh one (-fresh +reset):\n%s", diff)
	}

	// Through another configuration and design, and back.
	naive, err := model.LookupDesign("no-idempotency")
	if err != nil {
		t.Fatal(err)
	}
	dirty := runReset(sys, dirtyConfig(), naive, resetScript)
	if !hasEvent(dirty.Events, model.EvBreaker) {
		t.Error("the dirty run never moves the breaker")
	}
	if diff := cmp.Diff(runFresh(dirtyConfig(), naive, resetScript), dirty, ignoreJobInternals); diff != "" {
		t.Errorf("reset to another config differs from a fresh one (-fresh +reset):\n%s", diff)
	}
	if diff := cmp.Diff(want, runReset(sys, cfg, nil, resetScript), ignoreJobInternals); diff != "" {
		t.Errorf("run after Reset back differs from a fresh one (-fresh +reset):\n%s", diff)
	}
	// And an empty run: nothing of the last one shows.
	if diff := cmp.Diff(runFresh(cfg, nil, nil), runReset(sys, cfg, nil, nil), ignoreJobInternals); diff != "" {
		t.Errorf("empty System after Reset differs from a fresh one (-fresh +reset):\n%s", diff)
	}
}

// A Reset across page boundaries: the later pages are dropped, the first
// kept, and the run is still the fresh one.
func TestResetAfterARunLargerThanAPage(t *testing.T) {
	var big []scriptOp
	for i := range 5000 {
		big = append(big, scriptOp{opEnqueue, i, i, i}, scriptOp{opLease, i, 0, 0}, scriptOp{opCommit, i, i, i}, scriptOp{opRelay, 0, 0, 0}, scriptOp{opDeliver, i, 0, 0})
	}
	clk := &fakeClock{now: scheduler.Epoch}
	sys := model.NewSystem(testConfig(), nil, scriptEnv(clk, nil))
	(&scriptRun{clk: clk, sys: sys}).run(big)
	for i := range 10_000 {
		sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "doc" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)), Version: 1, Actor: api})
	}
	if diff := cmp.Diff(runFresh(testConfig(), nil, resetScript), runReset(sys, testConfig(), nil, resetScript), ignoreJobInternals); diff != "" {
		t.Errorf("run after Reset differs from a fresh one (-fresh +reset):\n%s", diff)
	}
}

func hasEvent(events []model.Event, kind model.EventKind) bool {
	for _, e := range events {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

// drawScript draws a random script.
func drawScript(t *rapid.T, label string) []scriptOp {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) scriptOp {
		return scriptOp{
			kind: opKind(rapid.IntRange(0, int(opCount)-1).Draw(t, "kind")),
			a:    rapid.IntRange(0, 40).Draw(t, "a"),
			b:    rapid.IntRange(0, 40).Draw(t, "b"),
			c:    rapid.IntRange(0, 40).Draw(t, "c"),
		}
	}), 0, 150).Draw(t, label)
}

// A System reset after a random run, under a random design and either
// configuration, behaves like a fresh one on another random script.
func TestResetDirtySystemIsFresh(t *testing.T) {
	designs := append([]string{"correct"}, model.VariantNames()...)
	rapid.Check(t, func(t *rapid.T) {
		clk := &fakeClock{now: scheduler.Epoch}
		dirtyCfg := rapid.SampledFrom([]model.Config{smConfig(), dirtyConfig()}).Draw(t, "dirtyConfig")
		d, err := model.LookupDesign(rapid.SampledFrom(designs).Draw(t, "dirtyDesign"))
		if err != nil {
			t.Fatal(err)
		}
		sys := model.NewSystem(dirtyCfg, d, scriptEnv(clk, nil))
		(&scriptRun{clk: clk, sys: sys}).run(drawScript(t, "dirty"))

		cfg := rapid.SampledFrom([]model.Config{smConfig(), dirtyConfig()}).Draw(t, "config")
		name := rapid.SampledFrom(designs).Draw(t, "design")
		design := func() *model.Design { d, _ := model.LookupDesign(name); return d }
		ops := drawScript(t, "script")
		if diff := cmp.Diff(runFresh(cfg, design(), ops), runReset(sys, cfg, design(), ops), ignoreJobInternals); diff != "" {
			t.Fatalf("reset System differs from a fresh one (-fresh +reset):\n%s", diff)
		}
	})
}

// BenchmarkShortRun is one short seed's worth of model work (resetScript)
// on a new System each time, or on one System Reset each time.
func BenchmarkShortRun(b *testing.B) {
	cfg := testConfig()
	clk := &fakeClock{}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			clk.now = scheduler.Epoch
			(&scriptRun{clk: clk, sys: model.NewSystem(cfg, nil, scriptEnv(clk, nil))}).run(resetScript)
		}
	})
	b.Run("reset", func(b *testing.B) {
		sys := model.NewSystem(cfg, nil, scriptEnv(clk, nil))
		b.ReportAllocs()
		for b.Loop() {
			clk.now = scheduler.Epoch
			sys.Reset(cfg, nil, scriptEnv(clk, nil))
			(&scriptRun{clk: clk, sys: sys}).run(resetScript)
		}
	})
}
