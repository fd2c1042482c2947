package model_test

import (
	"errors"
	"testing"
	"time"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// fakeClock is a model.Clock whose time only moves when a test says so.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time                  { return c.now }
func (c *fakeClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }
func (c *fakeClock) Until(t time.Time) time.Duration { return t.Sub(c.now) }

func (c *fakeClock) advance(d model.Time) { c.now = c.now.Add(time.Duration(d)) }

const ms = model.Millisecond

var (
	w1  = model.Actor{Role: model.RoleWorker, ID: 1}
	w2  = model.Actor{Role: model.RoleWorker, ID: 2}
	w3  = model.Actor{Role: model.RoleWorker, ID: 3}
	op  = model.Actor{Role: model.RoleOperator}
	api = model.Actor{Role: model.RoleAPI}

	errTransient = &model.WorkError{Code: model.CodeTransient, Raw: "upstream timed out"}
	errPoison    = &model.WorkError{Code: model.CodePoisonSchema, Raw: "unexpected token near 'ACME invoice 4411 total 9300'", SchemaPaths: []string{"$.total", "$.lines[2].qty"}}
)

// testConfig is DefaultConfig with the breaker out of reach, so tests that
// are not about the breaker can fail as many attempts as they like.
func testConfig() model.Config {
	c := model.DefaultConfig()
	c.Breaker = model.BreakerConfig{Window: 1000, MinSamples: 1000, ThresholdPPM: 1_000_000, Cooldown: ms, Canaries: 1}
	return c
}

// harness is a System on a fake clock with a recorded history.
type harness struct {
	t   testing.TB
	clk *fakeClock
	log *eventLog
	sys *model.System
}

func newHarness(t testing.TB, design *model.Design, tweaks ...func(c *model.Config)) *harness {
	t.Helper()
	cfg := testConfig()
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("test config invalid: %v", err)
	}
	h := &harness{t: t, clk: &fakeClock{now: scheduler.Epoch}, log: &eventLog{}}
	h.sys = model.NewSystem(cfg, design, model.Env{
		Clock: h.clk, Epoch: scheduler.Epoch, Rand: scheduler.NewStream(1), Recorder: h.log,
	})
	return h
}

func newSys(t testing.TB, tweaks ...func(c *model.Config)) *harness {
	t.Helper()
	return newHarness(t, nil, tweaks...)
}

func (h *harness) cfg() model.Config { return h.sys.Config() }

func (h *harness) advance(d model.Time) { h.clk.advance(d) }

// enqueue enqueues version 1 of doc for tenant; the payload hash is derived
// from the document so the same (tenant, doc) dedupes.
func (h *harness) enqueue(tenant, doc string) model.JobID {
	h.t.Helper()
	id, err := h.sys.Enqueue(model.EnqueueRequest{Tenant: tenant, Document: doc, Version: 1, PayloadHash: payloadHash(doc), Actor: api})
	if err != nil {
		h.t.Fatalf("Enqueue(%s, %s): %v", tenant, doc, err)
	}
	return id
}

func payloadHash(doc string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(doc); i++ {
		h = (h ^ uint64(doc[i])) * 1099511628211
	}
	return h
}

// lease leases the next job to worker and fails the test if there is none.
func (h *harness) lease(worker model.Actor) model.Lease {
	h.t.Helper()
	l, ok := h.sys.LeaseNext(worker)
	if !ok {
		h.t.Fatalf("LeaseNext(%v): nothing leasable at %d", worker, h.sys.Now())
	}
	return l
}

// leaseJob leases the next job and checks it is id.
func (h *harness) leaseJob(worker model.Actor, id model.JobID) model.Lease {
	h.t.Helper()
	l := h.lease(worker)
	if l.Job != id {
		h.t.Fatalf("LeaseNext gave %v, want %v", l.Job, id)
	}
	return l
}

func (h *harness) noLease(worker model.Actor) {
	h.t.Helper()
	if l, ok := h.sys.LeaseNext(worker); ok {
		h.t.Fatalf("LeaseNext(%v) leased %+v, want nothing", worker, l)
	}
}

func (h *harness) job(id model.JobID) model.Job {
	h.t.Helper()
	j, ok := h.sys.Job(id)
	if !ok {
		h.t.Fatalf("job %v not found", id)
	}
	return j
}

func (h *harness) ack(l model.Lease) {
	h.t.Helper()
	if err := h.sys.Ack(w1, l.Job, l.Fence); err != nil {
		h.t.Fatalf("Ack(%v, fence %d): %v", l.Job, l.Fence, err)
	}
}

// deadLetter fails the lease with a permanent error and completes the
// dead-letter decision as a worker does: write the envelope, mark dead.
func (h *harness) deadLetter(l model.Lease, cause error) {
	h.t.Helper()
	d, err := h.sys.Fail(w1, l.Job, l.Fence, cause)
	if err != nil || d.Outcome != model.DeadLetterOutcome {
		h.t.Fatalf("Fail(%v) = %+v, %v; want a dead_letter decision", l.Job, d, err)
	}
	h.sys.WriteDLQ(w1, l.Job, d.Reason, cause)
	if err := h.sys.MarkDead(w1, l.Job, l.Fence, d.Reason); err != nil {
		h.t.Fatalf("MarkDead(%v): %v", l.Job, err)
	}
}

// deadJob enqueues a job and takes it straight to the DLQ.
func (h *harness) deadJob(tenant, doc string) model.JobID {
	h.t.Helper()
	id := h.enqueue(tenant, doc)
	h.deadLetter(h.leaseJob(w1, id), errPoison)
	return id
}

// lastEvent returns the last recorded event of kind.
func (h *harness) lastEvent(kind model.EventKind) model.Event {
	h.t.Helper()
	for i := len(h.log.Events) - 1; i >= 0; i-- {
		if h.log.Events[i].Kind == kind {
			return h.log.Events[i]
		}
	}
	h.t.Fatalf("no %v event recorded", kind)
	return model.Event{}
}

// countEvents counts the events of kind (leases the breaker refused
// apart: heldBack counts those).
func (h *harness) countEvents(kind model.EventKind) int {
	return h.count(func(e *model.Event) bool { return e.Kind == kind && !isHeldBack(e) })
}

// heldBack counts the leases the breaker refused.
func (h *harness) heldBack() int { return h.count(isHeldBack) }

func isHeldBack(e *model.Event) bool {
	return e.Kind == model.EvLease && e.Code == model.CodeBreakerOpen
}

func (h *harness) count(match func(e *model.Event) bool) int {
	n := 0
	for i := range h.log.Events {
		if match(&h.log.Events[i]) {
			n++
		}
	}
	return n
}

func isConflict(err error) bool {
	var c *model.IdempotencyConflictError
	return errors.As(err, &c)
}

// eventLog is a Recorder that keeps a copy of every event.
type eventLog struct{ Events []model.Event }

func (l *eventLog) Record(e *model.Event) { l.Events = append(l.Events, *e) }
