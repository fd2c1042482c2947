package model_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// Benchmarks of the model's hot paths, for benchstat:
//
//	go test -run=NONE -bench=. -benchmem -count=10 ./model > new.txt
//	benchstat old.txt new.txt
//
// Events go to model.Discard, so these measure the model alone; the
// simulator's per-event recording (trace line, hash, invariant suite) is
// measured by BenchmarkEventAppendText here, BenchmarkRecord in invariants
// and BenchmarkSeed in sim. State is rebuilt every benchBatch operations,
// with the timer stopped, so a long run does not measure an ever larger
// queue.

const benchBatch = 4096

// benchClock is a model.Clock that moves only when told to.
type benchClock struct{ now time.Time }

func (c *benchClock) Now() time.Time                  { return c.now }
func (c *benchClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }
func (c *benchClock) Until(t time.Time) time.Duration { return t.Sub(c.now) }

var (
	benchWorker = model.Actor{Role: model.RoleWorker, ID: 1}
	benchAPI    = model.Actor{Role: model.RoleAPI}
	benchRelay  = model.Actor{Role: model.RoleRelay}
	benchDocs   = func() []string {
		ids := make([]string, benchBatch)
		for i := range ids {
			ids[i] = "d" + strconv.Itoa(i)
		}
		return ids
	}()
	benchKeys = func() []string {
		keys := make([]string, benchBatch)
		for i, d := range benchDocs {
			keys[i] = "acme:" + d + ":v1"
		}
		return keys
	}()
)

func newBenchSystem() *model.System {
	clk := &benchClock{now: scheduler.Epoch}
	return model.NewSystem(model.DefaultConfig(), nil, model.Env{
		Clock: clk, Epoch: scheduler.Epoch, Rand: scheduler.NewStream(1), Recorder: model.Discard,
	})
}

func benchEnqueue(b *testing.B, sys *model.System, i int) {
	_, err := sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: benchDocs[i], Version: 1, PayloadHash: uint64(i), Actor: benchAPI})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLeaseAck is a worker's cycle on a queue of waiting jobs:
// LeaseNext then Ack.
func BenchmarkLeaseAck(b *testing.B) {
	var sys *model.System
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%benchBatch == 0 {
			b.StopTimer()
			sys = newBenchSystem()
			for k := range benchBatch {
				benchEnqueue(b, sys, k)
			}
			b.StartTimer()
		}
		l, ok := sys.LeaseNext(benchWorker)
		if !ok {
			b.Fatal("no job to lease")
		}
		if err := sys.Ack(benchWorker, l.Job, l.Fence); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnqueueLeaseAck is a whole one-stage job: durable enqueue
// (building its idempotency key), lease, ack.
func BenchmarkEnqueueLeaseAck(b *testing.B) {
	var sys *model.System
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%benchBatch == 0 {
			b.StopTimer()
			sys = newBenchSystem()
			b.StartTimer()
		}
		benchEnqueue(b, sys, i%benchBatch)
		l, ok := sys.LeaseNext(benchWorker)
		if !ok {
			b.Fatal("no job to lease")
		}
		if err := sys.Ack(benchWorker, l.Job, l.Fence); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCommit(sys *model.System, i int) (model.CommitResult, error) {
	return sys.CommitResultWithEvent(model.CommitRequest{
		Actor: benchWorker, Job: model.JobID(i + 1), Tenant: "acme", Key: benchKeys[i],
		Stage: model.StageExtract, PayloadHash: uint64(i), Value: uint64(i) * 31,
	})
}

// BenchmarkCommitResultWithEvent writes a new result and its outbox row
// (new), or finds the same key and payload already committed (dedupe).
func BenchmarkCommitResultWithEvent(b *testing.B) {
	b.Run("new", func(b *testing.B) {
		var sys *model.System
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%benchBatch == 0 {
				b.StopTimer()
				sys = newBenchSystem()
				b.StartTimer()
			}
			if _, err := benchCommit(sys, i%benchBatch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dedupe", func(b *testing.B) {
		sys := newBenchSystem()
		if _, err := benchCommit(sys, 7); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if res, err := benchCommit(sys, 7); err != nil || !res.Deduped {
				b.Fatalf("second commit: %+v, %v; want a dedupe", res, err)
			}
		}
	})
}

// BenchmarkDeliver is the consumer applying a published event and acking
// the message (first), or skipping an event it has already applied
// (duplicate).
func BenchmarkDeliver(b *testing.B) {
	publish := func(b *testing.B) (*model.System, []int64) {
		sys := newBenchSystem()
		msgs := make([]int64, benchBatch)
		for i := range msgs {
			res, err := benchCommit(sys, i)
			if err != nil {
				b.Fatal(err)
			}
			msgs[i] = sys.Publish(benchRelay, res.EventID)
		}
		return sys, msgs
	}
	consumer := model.Actor{Role: model.RoleConsumer}
	b.Run("first", func(b *testing.B) {
		var sys *model.System
		var msgs []int64
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%benchBatch == 0 {
				b.StopTimer()
				sys, msgs = publish(b)
				b.StartTimer()
			}
			msg := msgs[i%benchBatch]
			if !sys.Deliver(consumer, msg).Applied {
				b.Fatal("first delivery not applied")
			}
			sys.AckMessage(msg)
		}
	})
	b.Run("duplicate", func(b *testing.B) {
		sys, msgs := publish(b)
		sys.Deliver(consumer, msgs[0])
		b.ReportAllocs()
		for b.Loop() {
			if sys.Deliver(consumer, msgs[0]).Applied {
				b.Fatal("duplicate applied")
			}
		}
	})
}

// BenchmarkEventAppendText formats a typical event (a lease) into a reused
// buffer, as the simulator's recorder does for every trace line.
func BenchmarkEventAppendText(b *testing.B) {
	e := model.Event{
		Seq: 1234, At: 98_765 * model.Millisecond, Kind: model.EvLease, Actor: benchWorker,
		Job: 17, Tenant: "acme", Key: benchKeys[17], Fence: 42, Attempt: 2, N: 30_000 * model.Millisecond, OK: true,
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = e.AppendText(buf[:0])
	}
	b.SetBytes(int64(len(buf)))
}
