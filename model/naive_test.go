package model_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

func TestLookupDesign(t *testing.T) {
	names := model.VariantNames()
	if !slices.IsSorted(names) {
		t.Fatalf("VariantNames not sorted: %v", names)
	}
	for _, required := range []string{"key-without-tenant", "no-fencing", "no-idempotency", "unbounded-retry"} {
		if !slices.Contains(names, required) {
			t.Errorf("variant %q is missing from %v", required, names)
		}
	}
	for _, name := range append([]string{"correct", ""}, names...) {
		d, err := model.LookupDesign(name)
		if err != nil {
			t.Fatalf("LookupDesign(%q): %v", name, err)
		}
		want := name
		if name == "" {
			want = "correct"
		}
		if d.Name != want || d.Source == "" || d.Doc == "" {
			t.Errorf("LookupDesign(%q) = name %q, source %q, doc %q", name, d.Name, d.Source, d.Doc)
		}
		if d.BuildKey == nil || d.Commit == nil || d.Apply == nil || d.FenceOK == nil || d.Decide == nil ||
			d.Exhausted == nil || d.PastDeadline == nil || d.Revivable == nil || d.Redrive == nil || d.Reprocess == nil ||
			d.Visible == nil || d.Sanitize == nil || len(d.Protocol.Steps) == 0 || len(d.Relay) != 2 || len(d.Accept) != 3 {
			t.Errorf("design %q has an empty seam", name)
		}
	}
}

func TestLookupDesignUnknownListsTheNames(t *testing.T) {
	_, err := model.LookupDesign("no-such-variant")
	if err == nil {
		t.Fatal("unknown variant accepted")
	}
	for _, name := range append([]string{"correct", "no-such-variant"}, model.VariantNames()...) {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not mention %q", err, name)
		}
	}
}

func TestDesignsAreFreshCopies(t *testing.T) {
	d, _ := model.LookupDesign("no-fencing")
	d.Name = "edited"
	d.FenceOK = nil
	again, _ := model.LookupDesign("no-fencing")
	if again.Name != "no-fencing" || again.FenceOK == nil {
		t.Fatal("editing a looked-up design changed the catalogue")
	}
	c := model.Correct()
	c.Name = "edited"
	if model.Correct().Name != "correct" {
		t.Fatal("editing Correct() changed the next Correct()")
	}
}

func design(t *testing.T, name string) *model.Design {
	t.Helper()
	d, err := model.LookupDesign(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Each naive variant's mistake, shown concretely beside the correct design.

func TestNoIdempotencyDuplicatesEvents(t *testing.T) {
	for _, tt := range []struct {
		variant   string
		wantRows  int
		wantDedup bool
	}{
		{"correct", 1, true},
		{"no-idempotency", 2, false},
	} {
		t.Run(tt.variant, func(t *testing.T) {
			h := newHarness(t, design(t, tt.variant))
			a, errA := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageReview, 1))
			b, errB := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageReview, 1))
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if h.sys.Rows() != tt.wantRows || b.Deduped != tt.wantDedup || (a.EventID == b.EventID) != tt.wantDedup {
				t.Fatalf("rows %d, events %v and %v (deduped %v)", h.sys.Rows(), a.EventID, b.EventID, b.Deduped)
			}
			for {
				_, msg, ok := relayOnce(h)
				if !ok {
					break
				}
				h.sys.Deliver(model.Actor{Role: model.RoleConsumer}, msg)
			}
			if n := h.sys.EffectCount("acme:d:v1", model.StageReview); n != tt.wantRows {
				t.Fatalf("%d reviews applied", n) // the opening incident: two reviews
			}
		})
	}
}

func TestNoFencingAcceptsAZombieAck(t *testing.T) {
	for _, tt := range []struct {
		variant  string
		stale    bool
		endState model.State
	}{
		{"correct", true, model.Leased},
		{"no-fencing", false, model.Succeeded},
	} {
		t.Run(tt.variant, func(t *testing.T) {
			h := newHarness(t, design(t, tt.variant))
			id := h.enqueue("acme", "d")
			zombie := h.lease(w1)
			h.advance(h.cfg().Lease)
			h.leaseJob(w2, id) // the job now belongs to w2
			err := h.sys.Ack(w1, id, zombie.Fence)
			if errors.Is(err, model.ErrStaleFence) != tt.stale {
				t.Fatalf("zombie ack: %v", err)
			}
			if got := h.job(id).State; got != tt.endState {
				t.Fatalf("state %v, want %v", got, tt.endState)
			}
		})
	}
}

func TestKeyWithoutTenantMixesTenants(t *testing.T) {
	d := design(t, "key-without-tenant")
	ka, _ := d.BuildKey("acme", "inv-1", 1)
	kb, _ := d.BuildKey("beta", "inv-1", 1)
	if ka != kb || ka != "inv-1:v1" {
		t.Fatalf("naive keys %q and %q, want the same tenant-less key", ka, kb)
	}
	if _, err := d.BuildKey("", "inv-1", 1); err != nil {
		t.Fatalf("the naive key does not even need a tenant, got %v", err)
	}

	for _, tt := range []struct {
		variant string
		shared  bool
	}{
		{"correct", false},
		{"key-without-tenant", true},
	} {
		t.Run(tt.variant, func(t *testing.T) {
			h := newHarness(t, design(t, tt.variant))
			a, b := h.enqueue("acme", "inv-1"), h.enqueue("beta", "inv-1")
			if (a == b) != tt.shared {
				t.Fatalf("acme got %v, beta got %v", a, b)
			}
			// Seed 000, failure 4: beta's accept returned acme's job.
			if owner := h.job(b).Tenant; (owner == "acme") != tt.shared {
				t.Fatalf("beta's job belongs to %q", owner)
			}
		})
	}
}

func TestUnboundedRetryNeverStops(t *testing.T) {
	for _, tt := range []struct {
		variant  string
		attempts int32
		dead     bool
	}{
		{"correct", 3, true},
		{"unbounded-retry", 10, false},
	} {
		t.Run(tt.variant, func(t *testing.T) {
			h := newHarness(t, design(t, tt.variant))
			id := h.enqueue("acme", "d")
			for range 10 {
				l, ok := h.sys.LeaseNext(w1)
				if !ok {
					break
				}
				d, err := h.sys.Fail(w1, id, l.Fence, errTransient)
				if err != nil {
					t.Fatal(err)
				}
				if d.Outcome == model.DeadLetterOutcome {
					h.sys.WriteDLQ(w1, id, d.Reason, errTransient)
					if err := h.sys.MarkDead(w1, id, l.Fence, d.Reason); err != nil {
						t.Fatal(err)
					}
					break
				}
				h.advance(d.Delay)
			}
			j := h.job(id)
			if j.Attempt != tt.attempts || (j.State == model.Dead) != tt.dead {
				t.Fatalf("after up to 10 transient failures: attempt %d, state %v", j.Attempt, j.State)
			}
			if !tt.dead && j.State != model.RetryWait {
				t.Fatalf("state %v: the naive policy should still be retrying", j.State)
			}
		})
	}
}

// Seed 000, failure 3: the dual write's result reaches the database, the
// process dies before the publish, and nothing durable remembers the event.
func TestDualWriteLosesTheEventOnACrash(t *testing.T) {
	d := design(t, "dual-write")
	if !slices.Equal(d.Protocol.Steps, []model.Step{model.StepWork, model.StepDBWrite, model.StepPublish, model.StepAck}) {
		t.Fatalf("dual-write protocol %v", d.Protocol.Steps)
	}
	h := newHarness(t, d)
	id := h.enqueue("acme", "d")
	key := h.job(id).Key
	h.lease(w1)
	h.sys.DualWrite(w1, id, key, model.StageReview)
	// crash at after_db_write_before_publish

	if _, ok := h.sys.Committed(key, model.StageReview); !ok {
		t.Fatal("db.has(key) is false: the write did not happen")
	}
	if _, _, ok := relayOnce(h); ok || h.sys.Rows() != 0 || h.sys.Messages() != 0 {
		t.Fatalf("something remembers the event: rows %d, messages %d", h.sys.Rows(), h.sys.Messages())
	}

	// Had it not crashed, the event would go out, born published.
	msg, ok := h.sys.PublishDirect(w1, key, model.StageReview)
	if !ok || h.sys.Messages() != 1 {
		t.Fatalf("PublishDirect = %d, %v", msg, ok)
	}
	if m, _ := h.sys.Message(msg); m.Event != 1 {
		t.Fatalf("message %+v", m)
	}
	if row, _ := h.sys.Row(1); !row.Published || h.sys.PendingRows() != 0 {
		t.Fatalf("direct row %+v, pending %d", row, h.sys.PendingRows())
	}
	if _, ok := h.sys.PublishDirect(w1, "acme:other:v1", model.StageReview); ok {
		t.Fatal("published an event for a write that never happened")
	}
}

func TestOutboxKeepsTheEventOnTheSameCrash(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "d")
	key := h.job(id).Key
	h.lease(w1)
	if _, err := h.sys.CommitResultWithEvent(model.CommitRequest{Actor: w1, Job: id, Tenant: "acme", Key: key, Stage: model.StageReview, PayloadHash: 1}); err != nil {
		t.Fatal(err)
	}
	// crash at after_commit_before_ack: the relay still has the row
	if row, msg, ok := relayOnce(h); !ok || row.Key != key || msg != 1 {
		t.Fatalf("relay = %+v, %d, %v", row, msg, ok)
	}
}
