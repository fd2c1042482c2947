package invariants

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durasim/durasim/model"
)

// These tests drive the real model (no simulator): the suite must find
// nothing in the correct design and the right invariant in each naive
// variant, from the events the model actually emits.

type fakeClock struct{ now model.Time }

var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) Now() time.Time                  { return epoch.Add(time.Duration(c.now)) }
func (c *fakeClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *fakeClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

type halfRand struct{}

func (halfRand) Int64N(n int64) int64 { return n / 2 }

// harness is a model.System recording into a Suite.
type harness struct {
	t     *testing.T
	clk   *fakeClock
	sys   *model.System
	suite *Suite
	seq   uint64
	drop  func(e *model.Event) bool // events the history does not get (nil: none)
}

func newHarness(t *testing.T, variant string) *harness {
	t.Helper()
	d, err := model.LookupDesign(variant)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, clk: &fakeClock{}, suite: NewSuite(testCfg)}
	h.sys = model.NewSystem(testCfg.Model, d, model.Env{Clock: h.clk, Epoch: epoch, Rand: halfRand{}, Recorder: h})
	return h
}

// Record numbers events as the simulator's recorder does.
func (h *harness) Record(e *model.Event) {
	if h.drop != nil && h.drop(e) {
		return
	}
	h.seq++
	e.Seq = h.seq
	h.suite.Record(e)
}

func (h *harness) wait(d model.Time) { h.clk.now += d }

func (h *harness) enqueue(tenant, doc string) model.JobID {
	h.t.Helper()
	id, err := h.sys.Enqueue(model.EnqueueRequest{Tenant: tenant, Document: doc, Version: 1, PayloadHash: 7, Actor: api})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

func (h *harness) lease(w model.Actor) model.Lease {
	h.t.Helper()
	l, ok := h.sys.LeaseNext(w)
	if !ok {
		h.t.Fatalf("nothing to lease at %s", millis(h.clk.now))
	}
	return l
}

// commit commits one stage of the leased job.
func (h *harness) commit(w model.Actor, l model.Lease, st model.Stage) {
	j, _ := h.sys.Job(l.Job)
	if _, err := h.sys.CommitResultWithEvent(model.CommitRequest{Actor: w, Job: l.Job, Tenant: j.Tenant, Key: j.Key, Stage: st, PayloadHash: j.PayloadHash, Value: 1}); err != nil {
		h.t.Fatal(err)
	}
}

// work runs the stages of a lease from its checkpoint to the ack.
func (h *harness) work(w model.Actor, l model.Lease) {
	h.t.Helper()
	for st := l.Stage; st < model.StageDone; st++ {
		h.wait(ms)
		h.commit(w, l, st)
		var err error
		if st == model.StageReview {
			err = h.sys.Ack(w, l.Job, l.Fence)
		} else {
			err = h.sys.Advance(w, l.Job, l.Fence, st+1)
		}
		if err != nil {
			h.t.Fatal(err)
		}
	}
}

// fail fails the lease's attempt and follows the decision to the DLQ.
func (h *harness) fail(w model.Actor, l model.Lease, c model.Code) model.Decision {
	h.t.Helper()
	cause := &model.WorkError{Code: c, Raw: testCfg.Secrets[1]}
	// The worker reports its failure, as the simulator does.
	h.Record(&model.Event{Kind: model.EvWorkFail, Actor: w, Job: l.Job, Fence: l.Fence, Code: c, At: h.clk.now})
	d, err := h.sys.Fail(w, l.Job, l.Fence, cause)
	if err != nil {
		h.t.Fatal(err)
	}
	if d.Outcome == model.DeadLetterOutcome {
		h.sys.WriteDLQ(w, l.Job, d.Reason, cause)
		if err := h.sys.MarkDead(w, l.Job, l.Fence, d.Reason); err != nil {
			h.t.Fatal(err)
		}
	}
	return d
}

// relay publishes every pending row (the first one twice, as after a relay
// crash between publish and mark) and the consumer applies every message
// (the first one twice).
func (h *harness) relay() {
	first := true
	for {
		row, ok := h.sys.NextUnpublished()
		if !ok {
			return
		}
		msg := h.sys.Publish(relay, row.EventID)
		if first {
			h.sys.Deliver(consumer, msg)
			h.sys.AckMessage(msg)
			msg = h.sys.Publish(relay, row.EventID)
		}
		h.sys.MarkPublished(relay, row.EventID)
		h.sys.Deliver(consumer, msg)
		h.sys.AckMessage(msg)
		first = false
	}
}

// finish checks the final state as FinalOf reads it, in place, and as a
// copy: both must give the same verdict.
func (h *harness) finish() []Violation {
	h.t.Helper()
	h.suite.Drained(true)
	got := h.suite.Finish(FinalOf(h.sys))
	if want := h.suite.Finish(copyFinal(h.sys)); lines(got) != lines(want) {
		h.t.Fatalf("FinalOf in place says:\n%s\na copy of the final state says:\n%s", lines(got), lines(want))
	}
	return got
}

// copyFinal copies every job, row, effect and message of s into a Final.
func copyFinal(s *model.System) Final {
	f := Final{Effects: s.Effects(), EffectsInOrder: true, DLQ: s.DLQEntries(), Audit: s.Audit(), End: s.Now(), Full: true, Messages: []model.Message{}}
	f.Quarantined = append([]model.JobID{}, s.Quarantined()...)
	f.Results, f.LastFence, f.FenceRead = append([]model.Result{}, s.Results()...), s.LastFence(), true
	s.EachJob(func(j *model.Job) { f.Jobs = append(f.Jobs, *j) })
	for id := model.EventID(1); int(id) <= s.Rows(); id++ {
		r, _ := s.Row(id)
		f.Rows = append(f.Rows, r)
	}
	for id := int64(1); id <= int64(s.Messages()); id++ {
		m, _ := s.Message(id)
		f.Messages = append(f.Messages, m)
	}
	return f
}

// TestAgreeUnknownIDs: agreeUnknownIDs asks the system for the ids after
// the history's last. A system that answers for them made them up — here,
// one whose second job's events never reached the history.
func TestAgreeUnknownIDs(t *testing.T) {
	probes := func(drop func(e *model.Event) bool) []string {
		h := newHarness(t, "correct")
		h.drop = drop
		for _, doc := range []string{"d1", "d2"} {
			h.enqueue("acme", doc)
			h.work(w0, h.lease(w0))
		}
		h.relay()
		h.suite.Drained(true)
		var out []string
		for _, v := range h.suite.Finish(FinalOf(h.sys)) {
			if strings.Contains(v.Message, "answers for") {
				out = append(out, v.Message)
			}
		}
		return out
	}
	if got := probes(nil); len(got) != 0 {
		t.Fatalf("the whole history: %q", got)
	}
	got := probes(func(e *model.Event) bool { return e.Job == 2 })
	want := []string{
		"the queue answers for j2, a job the history never enqueued",
		"the outbox answers for e5, an event the history never committed",
		"the broker answers for message 6, which the history never published",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("job 2 left out of the history: got\n%q\nwant\n%q", got, want)
	}
}

// TestAgreeResultsAndFence: the results table and the fencing counter are
// read back from the system. A history that lost one job's events (so its
// commits and its lease) disagrees with both; the whole history agrees.
func TestAgreeResultsAndFence(t *testing.T) {
	readBack := func(drop func(e *model.Event) bool) []string {
		h := newHarness(t, "correct")
		h.drop = drop
		for _, doc := range []string{"d1", "d2"} {
			h.enqueue("acme", doc)
			h.work(w0, h.lease(w0))
		}
		h.relay()
		h.suite.Drained(true)
		var out []string
		for _, v := range h.suite.Finish(FinalOf(h.sys)) {
			if strings.Contains(v.Message, "results table") || strings.Contains(v.Message, "fencing counter") {
				out = append(out, v.Message)
			}
		}
		return out
	}
	if got := readBack(nil); len(got) != 0 {
		t.Fatalf("the whole history: %q", got)
	}
	got := readBack(func(e *model.Event) bool { return e.Job == 2 && (e.Kind == model.EvCommit || e.Kind == model.EvLease) })
	want := []string{
		"the results table holds acme:d2:v1 stage=ingest as e5, which the history never committed",
		"the results table holds acme:d2:v1 stage=extract as e6, which the history never committed",
		"the results table holds acme:d2:v1 stage=validate as e7, which the history never committed",
		"the results table holds acme:d2:v1 stage=review as e8, which the history never committed",
		"the fencing counter reads back 2; the last lease the history saw took fence 1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("job 2's commits and lease left out of the history: got\n%q\nwant\n%q", got, want)
	}
}

func TestModelCorrectDesignIsClean(t *testing.T) {
	h := newHarness(t, "correct")
	a := h.enqueue("acme", "d1")
	h.enqueue("globex", "d1")
	h.enqueue("acme", "d2")
	h.enqueue("acme", "d3")
	if _, err := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "d1", Version: 1, PayloadHash: 7, Actor: api}); err != nil {
		t.Fatal(err) // a client retrying its accept: deduped
	}
	h.work(w0, h.lease(w0)) // acme d1

	l := h.lease(w0) // globex d1: heartbeat, transient failure, retry
	h.wait(10_000 * ms)
	if err := h.sys.Heartbeat(w0, l.Job, l.Fence); err != nil {
		t.Fatal(err)
	}
	d := h.fail(w0, l, model.CodeTransient)
	h.wait(d.Delay)
	h.work(w1, h.lease(w1))

	poison := h.lease(w0) // acme d2: poison, reprocessed as v2
	h.fail(w0, poison, model.CodePoisonSchema)
	if _, err := h.sys.Reprocess(op, poison.Job, "op-ana"); err != nil {
		t.Fatal(err)
	}
	tired := h.lease(w0) // acme d3: out of attempts, redriven
	for range testCfg.Model.MaxAttempts - 1 {
		h.wait(h.fail(w0, tired, model.CodeTransient).Delay)
		tired = h.lease(w0)
	}
	h.fail(w0, tired, model.CodeTransient)
	h.wait(ms)
	if err := h.sys.Redrive(op, tired.Job); err != nil {
		t.Fatal(err)
	}
	h.work(w0, h.lease(w0)) // the reprocessed job
	h.work(w1, h.lease(w1)) // the redriven job
	h.relay()
	_, _ = h.sys.Status("acme", a)
	_, _ = h.sys.Status("globex", a)

	if got := h.finish(); len(got) != 0 {
		t.Fatalf("correct design: %d violations:\n%s", len(got), lines(got))
	}
	if h.sys.Live() != 0 {
		t.Fatalf("%d jobs still live", h.sys.Live())
	}
}

// zombie leases a job to w0, lets the lease expire and leases it to w1.
func zombie(h *harness) (stale, current model.Lease) {
	h.enqueue("acme", "d1")
	stale = h.lease(w0)
	h.wait(testCfg.Model.Lease)
	return stale, h.lease(w1)
}

func TestModelNaiveVariants(t *testing.T) {
	for _, c := range []struct {
		variant string
		run     func(h *harness)
		inv     string
	}{
		{"no-fencing", func(h *harness) {
			stale, _ := zombie(h)
			_ = h.sys.Ack(w0, stale.Job, stale.Fence)
		}, Fencing},
		{"no-idempotency", func(h *harness) {
			stale, current := zombie(h)
			h.commit(w0, stale, model.StageIngest)
			h.work(w1, current)
			h.relay()
		}, ExactlyOnce},
		{"key-without-tenant", func(h *harness) {
			h.enqueue("acme", "d1")
			h.enqueue("globex", "d1")
		}, TenantIsolation},
		{"unbounded-retry", func(h *harness) {
			h.enqueue("acme", "d1")
			for range testCfg.Model.MaxAttempts {
				h.wait(h.fail(w0, h.lease(w0), model.CodeTransient).Delay)
			}
			h.lease(w0)
		}, BoundedRetries},
		{"dual-write", func(h *harness) {
			h.enqueue("acme", "d1")
			l := h.lease(w0)
			j, _ := h.sys.Job(l.Job)
			h.sys.DualWrite(w0, l.Job, j.Key, model.StageIngest) // crash before the publish...
			h.wait(testCfg.Model.Lease)
			h.fail(w1, h.lease(w1), model.CodePermanentError) // ...and the redelivery dies
		}, NothingLost},
	} {
		t.Run(c.variant, func(t *testing.T) {
			h := newHarness(t, c.variant)
			c.run(h)
			got := h.finish()
			if len(got) == 0 || got[0].Invariant != c.inv || len(got[0].Events) == 0 {
				t.Fatalf("want a %s violation with events first, got:\n%s", c.inv, lines(got))
			}
			t.Log(got[0])
		})
	}
}
