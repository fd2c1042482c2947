package model_test

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/google/go-cmp/cmp"
)

func fnvHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Seed 003's envelope keeps codes and hashes, never raw content.
func TestDLQEnvelopeHoldsCodesAndHashesOnly(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "inv-4411")
	h.sys.SpendTokens(id, 1200)
	h.deadLetter(h.lease(w1), errPoison)

	dlq := h.sys.DLQEntries()
	if len(dlq) != 1 {
		t.Fatalf("DLQ has %d entries", len(dlq))
	}
	env := dlq[0]
	want := model.Envelope{
		Job: id, CorrelationID: "acme:inv-4411:v1", Tenant: "acme", OriginalQueue: "pipeline",
		AgentID: model.DefaultAgent.AgentID, AgentVersion: model.DefaultAgent.AgentVersion,
		PromptVersion: model.DefaultAgent.PromptVersion, ModelName: model.DefaultAgent.ModelName,
		Tokens:   model.Tokens{Prompt: 900, Completion: 300, Total: 1200},
		Attempts: 1, Reason: model.CodePoisonSchema, SchemaPaths: []string{"$.total", "$.lines[2].qty"},
		PayloadRef: payloadHash("inv-4411"), ErrorRef: fnvHash(errPoison.Raw), Status: model.Quarantined,
	}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Fatalf("envelope (-want +got):\n%s", diff)
	}
	// Nothing the model recorded quotes the raw error.
	dump := fmt.Sprintf("%+v", env)
	for _, e := range h.log.Events {
		dump += "\n" + e.String()
	}
	for _, secret := range []string{errPoison.Raw, "ACME invoice", "9300"} {
		if strings.Contains(dump, secret) {
			t.Fatalf("%q leaked into the DLQ or the history:\n%s", secret, dump)
		}
	}
}

// Regression: the accessors hand out the model's own memory: DLQEntries copies
// envelopes but shares their SchemaPaths, and Audit and Effects return the
// internal slices, so a caller (a report, an invariant checker) can rewrite
// the DLQ, the audit log or the effect history.
func TestAccessorsDoNotShareTheModelsMemory(t *testing.T) {
	h := newSys(t)
	id := h.deadJob("acme", "d")
	if _, err := h.sys.Reprocess(op, id, "ana"); err != nil {
		t.Fatal(err)
	}
	res, _ := h.sys.CommitResultWithEvent(commitReq("acme:d:v2", model.StageReview, 1))
	h.sys.Deliver(model.Actor{Role: model.RoleConsumer}, h.sys.Publish(op, res.EventID))

	h.sys.DLQEntries()[0].SchemaPaths[0] = "tampered"
	h.sys.Audit()[0].Operator = "mallory"
	h.sys.Effects()[0].Tenant = "beta"

	if got := h.sys.DLQEntries()[0].SchemaPaths[0]; got != "$.total" {
		t.Errorf("DLQ schema path rewritten to %q", got)
	}
	if got := h.sys.Audit()[0].Operator; got != "ana" {
		t.Errorf("audit operator rewritten to %q", got)
	}
	if got := h.sys.Effects()[0].Tenant; got != "acme" {
		t.Errorf("effect tenant rewritten to %q", got)
	}
}

// Regression: writeDLQ reads the cause with a type assertion, so a wrapped
// WorkError (which Classify does see, through errors.As) loses its schema
// paths and its error reference.
func TestDLQEnvelopeSeesThroughWrappedErrors(t *testing.T) {
	h := newSys(t)
	wrapped := fmt.Errorf("validate stage: %w", errPoison)
	h.enqueue("acme", "d")
	h.deadLetter(h.lease(w1), wrapped)
	env := h.sys.DLQEntries()[0]
	if env.Reason != model.CodePoisonSchema || len(env.SchemaPaths) != 2 || env.ErrorRef != fnvHash(errPoison.Raw) {
		t.Fatalf("envelope of a wrapped poison error: reason %v, paths %v, errorRef %#x", env.Reason, env.SchemaPaths, env.ErrorRef)
	}
}

func TestDLQWriteIsIdempotent(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	h.sys.WriteDLQ(w1, id, model.CodePoisonSchema, errPoison)
	h.sys.WriteDLQ(w1, id, model.CodePoisonSchema, errPoison) // crash at after_dlq_write, retried
	if err := h.sys.MarkDead(w1, id, l.Fence, model.CodePoisonSchema); err != nil {
		t.Fatal(err)
	}
	if n := len(h.sys.DLQEntries()); n != 1 {
		t.Fatalf("%d DLQ entries for one job", n)
	}
}

// Redrive (seed 004): same job, same key, attempts and budget again, the
// checkpoint kept so committed stages are not redone.
func TestRedriveKeepsTheKeyAndResetsAttempts(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	l := h.lease(w1)
	if err := h.sys.Advance(w1, id, l.Fence, model.StageValidate); err != nil {
		t.Fatal(err)
	}
	h.sys.SpendTokens(id, 500)
	h.deadLetter(l, errPoison)
	before := h.job(id)

	h.advance(ms)
	if err := h.sys.Redrive(op, id); err != nil {
		t.Fatal(err)
	}
	j := h.job(id)
	if j.State != model.Pending || j.Key != before.Key || j.Attempt != 0 || j.TokensSpent != 0 || j.RedriveCount != 1 || j.VisibleAt != ms {
		t.Fatalf("redriven job %+v", j)
	}
	if env := h.sys.DLQEntries()[0]; env.Status != model.Resolved || env.RedriveCount != 1 {
		t.Fatalf("envelope after redrive: status %v, redrives %d", env.Status, env.RedriveCount)
	}
	if q := h.sys.Quarantined(); len(q) != 0 {
		t.Fatalf("still quarantined: %v", q)
	}
	audit := h.sys.Audit()
	if len(audit) != 1 || audit[0] != (model.AuditEntry{Action: "redrive", OldJob: id, NewJob: id, Operator: op.String(), Tenant: "acme", At: ms}) {
		t.Fatalf("audit %+v", audit)
	}
	if h.sys.Live() != 1 {
		t.Fatalf("live %d", h.sys.Live())
	}
	l2 := h.leaseJob(w1, id)
	if l2.Stage != model.StageValidate || l2.Fence != 2 || h.job(id).Attempt != 1 {
		t.Fatalf("lease after redrive %+v (attempt %d); want resume at validate", l2, h.job(id).Attempt)
	}
}

func TestRedriveIsRateLimited(t *testing.T) {
	h := newSys(t, func(c *model.Config) { c.Redrive = model.BucketConfig{Capacity: 2, Refill: 100 * ms} })
	var dead []model.JobID
	for _, doc := range []string{"a", "b", "c", "d"} {
		dead = append(dead, h.deadJob("acme", doc))
	}
	for _, id := range dead[:2] {
		if err := h.sys.Redrive(op, id); err != nil {
			t.Fatalf("redrive %v within capacity: %v", id, err)
		}
	}
	if err := h.sys.Redrive(op, dead[2]); !errors.Is(err, model.ErrRateLimited) {
		t.Fatalf("third redrive: %v, want ErrRateLimited", err)
	}
	if j := h.job(dead[2]); j.State != model.Dead || j.RedriveCount != 0 {
		t.Fatalf("a rate-limited redrive changed the job: %+v", j)
	}
	h.advance(100*ms - 1)
	if err := h.sys.Redrive(op, dead[2]); !errors.Is(err, model.ErrRateLimited) {
		t.Fatalf("redrive before the refill: %v", err)
	}
	h.advance(1)
	if err := h.sys.Redrive(op, dead[2]); err != nil {
		t.Fatalf("redrive after one refill: %v", err)
	}
	if err := h.sys.Redrive(op, dead[3]); !errors.Is(err, model.ErrRateLimited) {
		t.Fatalf("one refill is one token: %v", err)
	}
	if n := len(h.sys.Audit()); n != 3 {
		t.Fatalf("%d audit entries, want 3 (rejected redrives are not audited as done)", n)
	}
}

// Regression (design gap): Redrive resets attempts and budget but keeps the
// original deadlineAt, so a job redriven after its deadline — the normal
// case, since an operator fixes the dependency later — is cancelled by the
// very next LeaseNext and never runs.
func TestRedrivenJobRunsAfterItsOriginalDeadline(t *testing.T) {
	h := newSys(t)
	id := h.deadJob("acme", "d")
	h.advance(h.cfg().Deadline) // the operator fixes the dependency later
	if err := h.sys.Redrive(op, id); err != nil {
		t.Fatal(err)
	}
	if l, ok := h.sys.LeaseNext(w1); !ok || l.Job != id {
		t.Fatalf("redriven job was not leased: state %v, code %v", h.job(id).State, h.job(id).LastCode)
	}
}

func TestRedriveAndReprocessNeedADeadJob(t *testing.T) {
	h := newSys(t)
	cancelled, _ := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "late", Version: 1, Deadline: ms})
	h.advance(ms)
	h.noLease(w1) // cancels the late job
	leased := h.enqueue("acme", "leased")
	h.leaseJob(w1, leased)
	done := h.enqueue("acme", "done")
	h.ack(h.leaseJob(w1, done))
	pending := h.enqueue("acme", "pending")

	tests := []struct {
		name string
		id   model.JobID
		want error
	}{
		{"pending", pending, model.ErrNotDead},
		{"leased", leased, model.ErrNotDead},
		{"succeeded", done, model.ErrNotDead},
		{"cancelled", cancelled, model.ErrCancelled},
		{"unknown", 99, model.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := h.sys.Job(tt.id)
			if err := h.sys.Redrive(op, tt.id); !errors.Is(err, tt.want) {
				t.Errorf("Redrive: %v, want %v", err, tt.want)
			}
			if nid, err := h.sys.Reprocess(op, tt.id, "ana"); !errors.Is(err, tt.want) || nid != 0 {
				t.Errorf("Reprocess: %v, %v; want %v", nid, err, tt.want)
			}
			after, _ := h.sys.Job(tt.id)
			if diff := cmp.Diff(before, after, ignoreUnexported); diff != "" {
				t.Errorf("rejected operator call changed the job:\n%s", diff)
			}
		})
	}
	if h.sys.Jobs() != 4 || len(h.sys.Audit()) != 0 {
		t.Fatalf("jobs %d, audit %d: rejected calls left traces", h.sys.Jobs(), len(h.sys.Audit()))
	}
}

func TestCancelledJobHasNoPathBack(t *testing.T) {
	h := newSys(t)
	id, _ := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "d", Version: 1, Deadline: ms})
	h.advance(ms)
	h.noLease(w1)
	if err := h.sys.Redrive(op, id); !errors.Is(err, model.ErrCancelled) {
		t.Fatalf("Redrive(cancelled) = %v", err)
	}
	if _, err := h.sys.Reprocess(op, id, "ana"); !errors.Is(err, model.ErrCancelled) {
		t.Fatalf("Reprocess(cancelled) = %v", err)
	}
	if h.job(id).State != model.Cancelled || h.sys.Jobs() != 1 {
		t.Fatalf("state %v, jobs %d", h.job(id).State, h.sys.Jobs())
	}
	// Only a new explicit enqueue, with a new version, redoes the document.
	nid, err := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "d", Version: 2})
	if err != nil || nid == id {
		t.Fatalf("explicit re-enqueue = %v, %v", nid, err)
	}
}

func TestReprocessNeedsAnOperator(t *testing.T) {
	h := newSys(t)
	id := h.deadJob("acme", "d")
	nid, err := h.sys.Reprocess(op, id, "")
	if !errors.Is(err, model.ErrMissingOperator) || nid != 0 {
		t.Fatalf("Reprocess without operator = %v, %v", nid, err)
	}
	if h.sys.Jobs() != 1 || len(h.sys.Audit()) != 0 || h.job(id).State != model.Dead {
		t.Fatalf("jobs %d, audit %d, state %v", h.sys.Jobs(), len(h.sys.Audit()), h.job(id).State)
	}
}

// Reprocess (seed 000): a new job with version+1, never the dead one back.
func TestReprocessCreatesANewVersionedJob(t *testing.T) {
	h := newSys(t)
	old := h.deadJob("acme", "d")
	h.advance(7 * ms)
	nid, err := h.sys.Reprocess(op, old, "ana")
	if err != nil {
		t.Fatal(err)
	}
	n := h.job(nid)
	if nid == old || n.Version != 2 || n.Key != "acme:d:v2" || n.Origin != old || n.State != model.Pending || n.Tenant != "acme" || n.PayloadHash != h.job(old).PayloadHash {
		t.Fatalf("reprocessed job %+v", n)
	}
	if o := h.job(old); o.State != model.Dead || o.Key != "acme:d:v1" {
		t.Fatalf("old job was resurrected: %+v", o)
	}
	want := model.AuditEntry{Action: "reprocess", OldJob: old, NewJob: nid, Operator: "ana", Tenant: "acme", At: 7 * ms}
	if audit := h.sys.Audit(); len(audit) != 1 || audit[0] != want {
		t.Fatalf("audit %+v, want [%+v]", audit, want)
	}
	if env := h.sys.DLQEntries()[0]; env.Status != model.Resolved {
		t.Fatalf("envelope status %v", env.Status)
	}
	if e := h.lastEvent(model.EvReprocess); e.Other != nid || e.Job != old || !e.OK || e.Text != "operator=ana" {
		t.Fatalf("reprocess event %v", e.String())
	}
	h.leaseJob(w1, nid)
}

// A job at the largest operationVersion has no next version: its
// reprocess is refused and recorded, with no job created and no token of
// the tenant's rate limit spent (found by the sweep once documents came at
// that version: the refusal went unrecorded, and on 386 the version
// wrapped).
func TestReprocessAtTheLargestVersionIsRefused(t *testing.T) {
	h := newSys(t, func(c *model.Config) { c.Reprocess = model.BucketConfig{Capacity: 1, Refill: 60_000 * ms} })
	id, err := h.sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "top", Version: math.MaxInt32, Actor: api})
	if err != nil {
		t.Fatal(err)
	}
	h.deadLetter(h.leaseJob(w1, id), errPoison)
	jobs := h.sys.Jobs()
	if nid, err := h.sys.Reprocess(op, id, "ana"); !errors.Is(err, model.ErrNoNextVersion) || nid != 0 || model.RefusalCode(err) != model.CodeInvalidKey {
		t.Fatalf("Reprocess at v%d = %v, %v", math.MaxInt32, nid, err)
	}
	if e := h.lastEvent(model.EvReprocess); e.OK || e.Code != model.CodeInvalidKey || e.Job != id || e.Text != "operator=ana" {
		t.Fatalf("refusal recorded as %v", e.String())
	}
	if h.sys.Jobs() != jobs || len(h.sys.Audit()) != 0 || h.job(id).State != model.Dead {
		t.Fatalf("a refused reprocess created a job, wrote an audit entry or touched the old one")
	}
	if _, err := h.sys.Reprocess(op, h.deadJob("acme", "d"), "ana"); err != nil {
		t.Fatalf("the refusal spent acme's only token: %v", err)
	}
}

func TestReprocessIsRateLimitedPerTenant(t *testing.T) {
	h := newSys(t, func(c *model.Config) { c.Reprocess = model.BucketConfig{Capacity: 1, Refill: 60_000 * ms} })
	a1, a2 := h.deadJob("acme", "a1"), h.deadJob("acme", "a2")
	b1 := h.deadJob("beta", "b1")
	if _, err := h.sys.Reprocess(op, a1, "ana"); err != nil {
		t.Fatal(err)
	}
	jobs := h.sys.Jobs()
	if _, err := h.sys.Reprocess(op, a2, "ana"); !errors.Is(err, model.ErrRateLimited) {
		t.Fatalf("second reprocess for acme: %v, want ErrRateLimited", err)
	}
	if h.sys.Jobs() != jobs || h.job(a2).State != model.Dead {
		t.Fatalf("a rate-limited reprocess created a job or touched the old one")
	}
	if _, err := h.sys.Reprocess(op, b1, "bob"); err != nil {
		t.Fatalf("beta is limited by acme's reprocesses: %v", err)
	}
	h.advance(60_000 * ms)
	if _, err := h.sys.Reprocess(op, a2, "ana"); err != nil {
		t.Fatalf("acme after the refill: %v", err)
	}
	if n := len(h.sys.Audit()); n != 3 {
		t.Fatalf("%d audit entries, want 3", n)
	}
}
