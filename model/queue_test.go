package model_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var ignoreUnexported = cmpopts.IgnoreUnexported(model.Job{})

func TestFirstLeaseHasFenceOneAttemptOne(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d1")
	if j := h.job(id); j.State != model.Pending || j.Attempt != 0 || j.Key != "acme:d1:v1" || j.MaxAttempts != 3 {
		t.Fatalf("enqueued job %+v", j)
	}
	h.advance(5 * ms)
	l := h.lease(w1)
	if want := (model.Lease{Job: id, Fence: 1, Stage: model.StageIngest}); l != want {
		t.Fatalf("lease = %+v, want %+v", l, want)
	}
	j := h.job(id)
	if j.State != model.Leased || j.Attempt != 1 || j.Fence != 1 || j.Holder != w1 || j.LeaseUntil != 5*ms+h.cfg().Lease {
		t.Fatalf("leased job %+v", j)
	}
	h.noLease(w2) // one job, already held
}

func TestEveryLeaseIncrementsTheGlobalFence(t *testing.T) {
	h := newSys(t)
	a, b, c := h.enqueue("acme", "a"), h.enqueue("acme", "b"), h.enqueue("beta", "c")
	for i, id := range []model.JobID{a, b, c} { // FIFO among jobs visible at once
		if l := h.leaseJob(w1, id); l.Fence != uint64(i+1) {
			t.Fatalf("lease %d has fence %d", i+1, l.Fence)
		}
	}
	h.advance(h.cfg().Lease)
	if l := h.leaseJob(w2, a); l.Fence != 4 || h.job(a).Attempt != 2 {
		t.Fatalf("redelivery = %+v (attempt %d), want fence 4, attempt 2", l, h.job(a).Attempt)
	}
}

func TestLeaseOrderFollowsVisibility(t *testing.T) {
	h := newSys(t, func(c *model.Config) {
		c.Retry = model.RetryConfig{Strategy: model.Fixed, Base: 100 * ms, Cap: 100 * ms}
	})
	late := h.enqueue("acme", "late")
	l := h.lease(w1)
	if _, err := h.sys.Fail(w1, l.Job, l.Fence, errTransient); err != nil {
		t.Fatal(err)
	}
	h.advance(50 * ms)
	early := h.enqueue("acme", "early")
	h.advance(h.cfg().Retry.Cap)
	if got := h.lease(w1).Job; got != early {
		t.Fatalf("leased %v first, want %v (visible since enqueue, before %v's retry)", got, early, late)
	}
	h.leaseJob(w1, late)
}

// fencedOps are the calls that take a fencing token.
var fencedOps = []struct {
	name string
	call func(s *model.System, id model.JobID, fence uint64) error
}{
	{"Heartbeat", func(s *model.System, id model.JobID, f uint64) error { return s.Heartbeat(w1, id, f) }},
	{"Ack", func(s *model.System, id model.JobID, f uint64) error { return s.Ack(w1, id, f) }},
	{"Advance", func(s *model.System, id model.JobID, f uint64) error { return s.Advance(w1, id, f, model.StageReview) }},
	{"Fail transient", func(s *model.System, id model.JobID, f uint64) error {
		_, err := s.Fail(w1, id, f, errTransient)
		return err
	}},
	{"Fail permanent", func(s *model.System, id model.JobID, f uint64) error {
		_, err := s.Fail(w1, id, f, errPoison)
		return err
	}},
	{"MarkDead", func(s *model.System, id model.JobID, f uint64) error {
		return s.MarkDead(w1, id, f, model.CodePermanentError)
	}},
}

// A zombie (first lease expired, job redelivered) presents its old fence to
// every fenced call: each is rejected with ErrStaleFence and changes nothing,
// not the job, the queue, the DLQ nor the breaker.
func TestStaleFenceChangesNothing(t *testing.T) {
	for _, op := range fencedOps {
		for _, stale := range []uint64{1, 0, 99} {
			t.Run(fmt.Sprintf("%s/fence=%d", op.name, stale), func(t *testing.T) {
				// A breaker that opens on the first reported failure.
				h := newSys(t, func(c *model.Config) {
					c.Breaker = model.BreakerConfig{Window: 1, MinSamples: 1, ThresholdPPM: 1, Cooldown: ms, Canaries: 1}
				})
				id := h.enqueue("acme", "d")
				zombie := h.leaseJob(w1, id)
				h.advance(h.cfg().Lease + ms)
				current := h.leaseJob(w2, id)
				if zombie.Fence != 1 || current.Fence != 2 {
					t.Fatalf("fences %d then %d, want 1 then 2", zombie.Fence, current.Fence)
				}
				before, rows, live := h.job(id), h.sys.Rows(), h.sys.Live()

				err := op.call(h.sys, id, stale)

				if !errors.Is(err, model.ErrStaleFence) {
					t.Fatalf("fence %d: err = %v, want ErrStaleFence", stale, err)
				}
				var fe *model.FenceError
				if !errors.As(err, &fe) || fe.Presented != stale || fe.Current != 2 || fe.Job != id {
					t.Fatalf("fence error = %#v, want presented %d, current 2", fe, stale)
				}
				if diff := cmp.Diff(before, h.job(id), ignoreUnexported); diff != "" {
					t.Fatalf("stale %s changed the job (-before +after):\n%s", op.name, diff)
				}
				if h.sys.Rows() != rows || h.sys.Live() != live || len(h.sys.DLQEntries()) != 0 || h.sys.BreakerState() != model.Closed {
					t.Fatalf("stale %s changed the system: rows %d, live %d, dlq %d, breaker %v",
						op.name, h.sys.Rows(), h.sys.Live(), len(h.sys.DLQEntries()), h.sys.BreakerState())
				}
				if e := h.log.Events[len(h.log.Events)-1]; e.Code != model.CodeStaleFence || e.OK || e.Fence != stale {
					t.Fatalf("recorded %v, want a rejected stale_fence event", e.String())
				}
				if err := h.sys.Heartbeat(w2, id, current.Fence); err != nil {
					t.Fatalf("the current holder was disturbed: %v", err)
				}
				if _, err := h.sys.Fail(w2, id, current.Fence, errTransient); err != nil || h.sys.BreakerState() != model.Open {
					t.Fatalf("control: a current-fence failure must open this breaker (err %v, state %v)", err, h.sys.BreakerState())
				}
			})
		}
	}
}

func TestFencedCallsOnUnknownJob(t *testing.T) {
	h := newSys(t)
	for _, op := range fencedOps {
		if err := op.call(h.sys, 42, 1); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("%s on an unknown job: %v, want ErrNotFound", op.name, err)
		}
	}
}

// The current fence of a job that is no longer leased (acked already) is
// rejected as not leased, and nothing changes: a double ack is harmless.
func TestFencedCallsOnJobThatIsNotLeased(t *testing.T) {
	for _, op := range fencedOps {
		t.Run(op.name, func(t *testing.T) {
			h := newSys(t)
			id := h.enqueue("acme", "d")
			l := h.lease(w1)
			h.ack(l)
			before := h.job(id)
			if err := op.call(h.sys, id, l.Fence); !errors.Is(err, model.ErrNotLeased) {
				t.Fatalf("err = %v, want ErrNotLeased", err)
			}
			if diff := cmp.Diff(before, h.job(id), ignoreUnexported); diff != "" {
				t.Fatalf("changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestExpiredLeaseIsRedelivered(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	old := h.leaseJob(w1, id)
	h.advance(h.cfg().Lease - 1)
	h.noLease(w2) // still exclusive one nanosecond before leaseUntil
	h.advance(1)
	l := h.leaseJob(w2, id)
	j := h.job(id)
	if l.Fence != 2 || j.Attempt != 2 || j.Holder != w2 {
		t.Fatalf("redelivery: lease %+v, job %+v; want fence 2, attempt 2, holder w2", l, j)
	}
	if e := h.lastEvent(model.EvLeaseExpired); e.Job != id || e.Actor != w1 || e.Fence != old.Fence {
		t.Fatalf("lease_expired event %v", e.String())
	}
	if err := h.sys.Ack(w1, id, old.Fence); !errors.Is(err, model.ErrStaleFence) {
		t.Fatalf("old holder's ack: %v, want ErrStaleFence", err)
	}
	h.ack(l)
	if h.job(id).State != model.Succeeded {
		t.Fatalf("state %v after the new holder's ack", h.job(id).State)
	}
}

func TestHeartbeatExtendsTheLease(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	lease := h.cfg().Lease
	h.advance(lease - ms)
	if err := h.sys.Heartbeat(w1, id, l.Fence); err != nil {
		t.Fatal(err)
	}
	if got, want := h.job(id).LeaseUntil, 2*lease-ms; got != want {
		t.Fatalf("leaseUntil = %d, want %d", got, want)
	}
	h.advance(lease - ms) // past the first leaseUntil, before the extended one
	h.noLease(w2)
	h.advance(ms)
	h.leaseJob(w2, id)
}

// Documented choice (queue.go, Ack): the holder's ack after its lease
// expired, but before anyone else leased the job, is accepted.
func TestAckAfterExpiryBeforeRedeliveryIsAccepted(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	h.advance(3 * h.cfg().Lease)
	if err := h.sys.Ack(w1, id, l.Fence); err != nil {
		t.Fatalf("late ack with the current fence: %v", err)
	}
	if j := h.job(id); j.State != model.Succeeded || j.Attempt != 1 {
		t.Fatalf("job %+v, want succeeded after one attempt", j)
	}
	h.noLease(w2)
	if h.sys.Live() != 0 {
		t.Fatalf("live = %d", h.sys.Live())
	}
}

func TestDeadlinePassedCancelsInsteadOfLeasing(t *testing.T) {
	h := newSys(t)
	id, err := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "d", Version: 1, Deadline: 1000 * ms})
	if err != nil {
		t.Fatal(err)
	}
	h.advance(1000 * ms)
	h.noLease(w1)
	j := h.job(id)
	if j.State != model.Cancelled || j.LastCode != model.CodeDeadlineExceeded || j.Attempt != 0 {
		t.Fatalf("job %+v, want cancelled with deadline_exceeded and no attempt", j)
	}
	if n := len(h.sys.DLQEntries()); n != 0 {
		t.Fatalf("a cancelled job is in the DLQ (%d entries)", n)
	}
	if q := h.sys.Quarantined(); len(q) != 0 {
		t.Fatalf("quarantined %v", q)
	}
	if h.sys.Live() != 0 || h.countEvents(model.EvCancelAtLease) != 1 {
		t.Fatalf("live %d, cancel_at_lease events %d", h.sys.Live(), h.countEvents(model.EvCancelAtLease))
	}
	other := h.enqueue("acme", "e")
	if l := h.leaseJob(w1, other); l.Fence != 1 {
		t.Fatalf("cancelling consumed a fence: next lease has fence %d", l.Fence)
	}
}

func TestDeadlineCancelsAnExpiredLeaseToo(t *testing.T) {
	h := newSys(t)
	id, _ := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "d", Version: 1, Deadline: 2 * h.cfg().Lease})
	l := h.lease(w1)
	h.advance(2 * h.cfg().Lease)
	h.noLease(w2)
	if h.job(id).State != model.Cancelled {
		t.Fatalf("state %v", h.job(id).State)
	}
	if err := h.sys.Ack(w1, id, l.Fence); !errors.Is(err, model.ErrNotLeased) {
		t.Fatalf("ack of a cancelled job: %v, want ErrNotLeased", err)
	}
}

func TestRedeliveryWithNoAttemptLeftIsDeadLettered(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	for attempt := int32(1); attempt <= 3; attempt++ {
		h.leaseJob(w1, id)
		if a := h.job(id).Attempt; a != attempt {
			t.Fatalf("attempt %d, want %d", a, attempt)
		}
		h.advance(h.cfg().Lease)
	}
	h.noLease(w2)
	j := h.job(id)
	if j.State != model.Dead || j.LastCode != model.CodeMaxAttemptsExceeded || j.Attempt != 3 {
		t.Fatalf("job %+v, want dead with max_attempts_exceeded after 3 attempts", j)
	}
	dlq := h.sys.DLQEntries()
	if len(dlq) != 1 || dlq[0].Job != id || dlq[0].Reason != model.CodeMaxAttemptsExceeded || dlq[0].Attempts != 3 {
		t.Fatalf("DLQ %+v", dlq)
	}
}

func TestTransientFailureWaitsInvisible(t *testing.T) {
	h := newSys(t, func(c *model.Config) {
		c.Retry = model.RetryConfig{Strategy: model.Fixed, Base: 500 * ms, Cap: 500 * ms}
	})
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	h.advance(10 * ms)
	d, err := h.sys.Fail(w1, id, l.Fence, errTransient)
	if err != nil || d != (model.Decision{Outcome: model.RetryOutcome, Delay: 500 * ms, Bound: 500 * ms}) {
		t.Fatalf("Fail = %+v, %v; want retry after 500ms", d, err)
	}
	j := h.job(id)
	if j.State != model.RetryWait || j.VisibleAt != 510*ms || j.LastCode != model.CodeTransient {
		t.Fatalf("job %+v, want retry_wait visible at 510ms", j)
	}
	h.advance(500*ms - 1)
	h.noLease(w2)
	h.advance(1)
	if l2 := h.leaseJob(w2, id); l2.Fence != 2 || h.job(id).Attempt != 2 {
		t.Fatalf("retry lease %+v, attempt %d", l2, h.job(id).Attempt)
	}
}

func TestFullJitterRetryDelayIsWithinBound(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	d, err := h.sys.Fail(w1, id, l.Fence, errTransient)
	bound := model.BackoffBound(h.cfg().Retry, 1)
	if err != nil || d.Outcome != model.RetryOutcome || d.Bound != bound || d.Delay < 0 || d.Delay > bound {
		t.Fatalf("Fail = %+v, %v; want retry with delay in [0, %d]", d, err, bound)
	}
	if got := h.job(id).VisibleAt; got != d.Delay {
		t.Fatalf("visibleAt %d, want now + delay = %d", got, d.Delay)
	}
}

func TestPermanentErrorDeadLettersOnFirstAttempt(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	d, err := h.sys.Fail(w1, id, l.Fence, errPoison)
	if err != nil || d.Outcome != model.DeadLetterOutcome || d.Reason != model.CodePoisonSchema {
		t.Fatalf("Fail = %+v, %v; want dead_letter poison_schema", d, err)
	}
	if j := h.job(id); j.State != model.Leased || j.LastCode != model.CodePoisonSchema {
		t.Fatalf("before MarkDead the job is %+v; want still leased (after_dlq_write boundary)", j)
	}
	h.sys.WriteDLQ(w1, id, d.Reason, errPoison)
	if err := h.sys.MarkDead(w1, id, l.Fence, d.Reason); err != nil {
		t.Fatal(err)
	}
	j := h.job(id)
	if j.State != model.Dead || j.Attempt != 1 || j.LastCode != model.CodePoisonSchema {
		t.Fatalf("job %+v, want dead after one attempt", j)
	}
	if q := h.sys.Quarantined(); len(q) != 1 || q[0] != id {
		t.Fatalf("quarantined %v", q)
	}
	h.advance(h.cfg().Lease)
	h.noLease(w2)
}

// Seed 000, failure 1: a transient failure that never goes away gets
// exactly three attempts, then the DLQ, never a fourth.
func TestPersistentTransientFailureStopsAtThreeAttempts(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	var outcomes []model.Outcome
	for range 10 {
		l, ok := h.sys.LeaseNext(w1)
		if !ok {
			h.advance(h.cfg().Retry.Cap)
			continue
		}
		d, err := h.sys.Fail(w1, l.Job, l.Fence, errTransient)
		if err != nil {
			t.Fatal(err)
		}
		outcomes = append(outcomes, d.Outcome)
		if d.Outcome == model.DeadLetterOutcome {
			if d.Reason != model.CodeMaxAttemptsExceeded {
				t.Fatalf("reason %v, want max_attempts_exceeded", d.Reason)
			}
			h.sys.WriteDLQ(w1, id, d.Reason, errTransient)
			if err := h.sys.MarkDead(w1, id, l.Fence, d.Reason); err != nil {
				t.Fatal(err)
			}
		}
		h.advance(d.Delay)
	}
	want := []model.Outcome{model.RetryOutcome, model.RetryOutcome, model.DeadLetterOutcome}
	if !cmp.Equal(outcomes, want) {
		t.Fatalf("outcomes %v, want %v", outcomes, want)
	}
	if n := h.countEvents(model.EvLease); n != 3 {
		t.Fatalf("%d leases, want exactly 3", n)
	}
	if j := h.job(id); j.State != model.Dead || j.Attempt != 3 {
		t.Fatalf("job %+v", j)
	}
}

// Seed 004: a restarted worker resumes after the last committed stage.
func TestAdvanceCheckpointIsResumed(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	for _, next := range []model.Stage{model.StageExtract, model.StageValidate, model.StageIngest} {
		if err := h.sys.Advance(w1, id, l.Fence, next); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.job(id).Stage; got != model.StageValidate {
		t.Fatalf("checkpoint %v, want validate (a checkpoint never moves back)", got)
	}
	h.advance(h.cfg().Lease) // the worker crashed
	l2 := h.leaseJob(w2, id)
	if l2.Stage != model.StageValidate {
		t.Fatalf("redelivered lease resumes at %v, want validate", l2.Stage)
	}
	h.ack(l2)
	if got := h.job(id).Stage; got != model.StageDone {
		t.Fatalf("stage after ack %v, want done", got)
	}
}

func TestEnqueueDedupesSameKeyAndRejectsAConflict(t *testing.T) {
	h := newSys(t)
	req := model.EnqueueRequest{Tenant: "acme", Document: "d", Version: 1, PayloadHash: 7}
	first, err := h.sys.Enqueue(req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.sys.Enqueue(req)
	if err != nil || again != first {
		t.Fatalf("retried accept = %v, %v; want %v", again, err, first)
	}
	req.PayloadHash = 8
	id, err := h.sys.Enqueue(req)
	if !isConflict(err) || id != 0 {
		t.Fatalf("different payload = %v, %v; want IdempotencyConflictError", id, err)
	}
	req.Version = 2
	if v2, err := h.sys.Enqueue(req); err != nil || v2 == first {
		t.Fatalf("version 2 = %v, %v; want a new job", v2, err)
	}
	if h.sys.Jobs() != 2 || h.sys.Live() != 2 {
		t.Fatalf("jobs %d, live %d; want 2, 2", h.sys.Jobs(), h.sys.Live())
	}
}

// Regression: Enqueue stores the operation version as int32, so a version the key
// accepts is silently truncated in the job (and Reprocess then builds its
// next key from the truncated number).
func TestEnqueueKeepsTheVersionItKeyed(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("int is 32 bits: no version exceeds int32")
	}
	h := newSys(t)
	shift := 31
	v := 1 << shift
	id, err := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "d", Version: v})
	if err != nil {
		return // rejecting an unrepresentable version is a fine fix too
	}
	if j := h.job(id); int(j.Version) != v || j.Key != "acme:d:v2147483648" {
		t.Fatalf("job version %d with key %q: the key and the version disagree", j.Version, j.Key)
	}
}

func TestStatusAnswersOnlyTheOwner(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	if _, err := h.sys.Fail(w1, id, l.Fence, errTransient); err != nil {
		t.Fatal(err)
	}

	got, err := h.sys.Status("acme", id)
	if err != nil || got != (model.StatusAnswer{Job: id, State: model.RetryWait, Code: model.CodeTransient}) {
		t.Fatalf("owner's status = %+v, %v", got, err)
	}
	foreign, foreignErr := h.sys.Status("beta", id)
	missing, missingErr := h.sys.Status("beta", 999)

	if foreign != (model.StatusAnswer{}) || foreignErr != model.ErrNotFound {
		t.Fatalf("another tenant's status = %+v, %v; want ErrNotFound", foreign, foreignErr)
	}
	if foreign != missing || foreignErr != missingErr {
		t.Fatalf("foreign answer (%+v, %v) differs from a missing job's (%+v, %v)", foreign, foreignErr, missing, missingErr)
	}
}

func TestNextReadyAt(t *testing.T) {
	h := newSys(t, func(c *model.Config) {
		c.Retry = model.RetryConfig{Strategy: model.Fixed, Base: 300 * ms, Cap: 300 * ms}
	})
	if _, ok := h.sys.NextReadyAt(); ok {
		t.Fatal("NextReadyAt on an empty queue")
	}
	id := h.enqueue("acme", "d")
	if at, ok := h.sys.NextReadyAt(); !ok || at != 0 {
		t.Fatalf("NextReadyAt = %d, %v; want 0 (visible now)", at, ok)
	}
	l := h.lease(w1)
	if at, _ := h.sys.NextReadyAt(); at != h.cfg().Lease {
		t.Fatalf("NextReadyAt = %d, want the lease expiry %d", at, h.cfg().Lease)
	}
	h.advance(10 * ms)
	if _, err := h.sys.Fail(w1, id, l.Fence, errTransient); err != nil {
		t.Fatal(err)
	}
	if at, _ := h.sys.NextReadyAt(); at != 310*ms {
		t.Fatalf("NextReadyAt = %d, want visibleAt 310ms (the stale lease entry skipped)", at)
	}
	h.advance(300 * ms)
	h.ack(h.lease(w1))
	if at, ok := h.sys.NextReadyAt(); ok {
		t.Fatalf("NextReadyAt = %d after the only job succeeded", at)
	}
}

// Ordered mode: only the head may be leased; a failing head blocks the
// jobs behind it until it is dead-lettered (seed 003, head-of-line).
func TestOrderedQueueBlocksBehindTheHead(t *testing.T) {
	h := newSys(t, func(c *model.Config) { c.Ordered = true })
	first := h.enqueue("acme", "a")
	second := h.enqueue("globex", "b")
	l, ok := h.sys.LeaseNext(w1)
	if !ok || l.Job != first {
		t.Fatalf("leased %v, want the head %v", l.Job, first)
	}
	if _, ok := h.sys.LeaseNext(w2); ok {
		t.Fatal("a job behind a leased head was leased")
	}
	poison := &model.WorkError{Code: model.CodePoisonSchema}
	d, err := h.sys.Fail(w1, first, l.Fence, poison)
	if err != nil || d.Outcome != model.DeadLetterOutcome {
		t.Fatalf("poison head: %v, %v", d, err)
	}
	if _, ok := h.sys.LeaseNext(w2); ok {
		t.Fatal("the head is dead-lettered only after MarkDead; nothing may pass it before")
	}
	if err := h.sys.MarkDead(w1, first, l.Fence, d.Reason); err != nil {
		t.Fatal(err)
	}
	if l2, ok := h.sys.LeaseNext(w2); !ok || l2.Job != second {
		t.Fatalf("after the head was isolated, leased %v %v, want %v", l2.Job, ok, second)
	}
}

// Ordered mode: a redriven job behind the head is leasable again (the head
// moves back to it), so an ordered queue still drains after a redrive.
func TestOrderedQueueRedriveMovesTheHeadBack(t *testing.T) {
	h := newSys(t, func(c *model.Config) { c.Ordered = true })
	first := h.enqueue("acme", "a")
	second := h.enqueue("acme", "b")
	l, _ := h.sys.LeaseNext(w1)
	d, _ := h.sys.Fail(w1, first, l.Fence, &model.WorkError{Code: model.CodePoisonSchema})
	h.sys.WriteDLQ(w1, first, d.Reason, nil)
	if err := h.sys.MarkDead(w1, first, l.Fence, d.Reason); err != nil {
		t.Fatal(err)
	}
	l2, ok := h.sys.LeaseNext(w2)
	if !ok || l2.Job != second {
		t.Fatalf("leased %v %v, want %v", l2.Job, ok, second)
	}
	if err := h.sys.Ack(w2, second, l2.Fence); err != nil {
		t.Fatal(err)
	}
	if err := h.sys.Redrive(op, first); err != nil {
		t.Fatal(err)
	}
	if l3, ok := h.sys.LeaseNext(w1); !ok || l3.Job != first {
		t.Fatalf("after the redrive leased %v %v, want the redriven %v", l3.Job, ok, first)
	}
}
