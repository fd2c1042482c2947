package model_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"pgregory.net/rapid"
)

func TestBuildIdempotencyKey(t *testing.T) {
	tests := []struct {
		name    string
		tenant  string
		doc     string
		version int
		want    string // "" means an error
		tenantE bool   // the error is ErrInvalidTenant
	}{
		{"valid", "tenant", "doc", 1, "tenant:doc:v1", false},
		{"digits and dashes", "acme-2", "inv/4411", 12, "acme-2:inv/4411:v12", false},
		{"two chars is the minimum", "ab", "d", 1, "ab:d:v1", false},
		{"33 chars is the maximum", "a" + strings.Repeat("b", 32), "d", 1, "a" + strings.Repeat("b", 32) + ":d:v1", false},
		{"uppercase tenant", "Acme", "doc", 1, "", true},
		{"too short tenant", "a", "doc", 1, "", true},
		{"too long tenant (34)", "a" + strings.Repeat("b", 33), "doc", 1, "", true},
		{"tenant starts with digit", "1acme", "doc", 1, "", true},
		{"tenant starts with dash", "-acme", "doc", 1, "", true},
		{"empty tenant", "", "doc", 1, "", true},
		{"tenant with colon", "ac:me", "doc", 1, "", true},
		{"tenant with space", "ac me", "doc", 1, "", true},
		{"empty document", "acme", "", 1, "", false},
		{"version 0", "acme", "doc", 0, "", false},
		{"version -1", "acme", "doc", -1, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := model.BuildIdempotencyKey(tt.tenant, tt.doc, tt.version)
			if got != tt.want {
				t.Errorf("key = %q, want %q", got, tt.want)
			}
			if (err != nil) != (tt.want == "") {
				t.Errorf("err = %v, want error: %v", err, tt.want == "")
			}
			if errors.Is(err, model.ErrInvalidTenant) != tt.tenantE {
				t.Errorf("errors.Is(err, ErrInvalidTenant) = %v, want %v (err %v)", !tt.tenantE, tt.tenantE, err)
			}
			if model.ValidTenant(tt.tenant) == tt.tenantE {
				t.Errorf("ValidTenant(%q) = %v", tt.tenant, !tt.tenantE)
			}
		})
	}
}

// Seed 000, failure 4: the same document id and version in two tenants never
// share a key, nor a job, nor a committed result.
func TestSameDocumentInTwoTenantsNeverShares(t *testing.T) {
	a, errA := model.BuildIdempotencyKey("acme", "inv-1", 1)
	b, errB := model.BuildIdempotencyKey("beta", "inv-1", 1)
	if errA != nil || errB != nil || a == b {
		t.Fatalf("keys %q (%v) and %q (%v) must both exist and differ", a, errA, b, errB)
	}

	h := newSys(t)
	ja, jb := h.enqueue("acme", "inv-1"), h.enqueue("beta", "inv-1")
	if ja == jb {
		t.Fatalf("both tenants got job %v", ja)
	}
	for _, r := range []model.CommitRequest{
		{Tenant: "acme", Job: ja, Key: a, Stage: model.StageExtract, PayloadHash: 1, Value: 10},
		{Tenant: "beta", Job: jb, Key: b, Stage: model.StageExtract, PayloadHash: 1, Value: 20},
	} {
		if res, err := h.sys.CommitResultWithEvent(r); err != nil || res.Deduped {
			t.Fatalf("commit for %s = %+v, %v; want a fresh result", r.Tenant, res, err)
		}
	}
	ra, _ := h.sys.Committed(a, model.StageExtract)
	rb, _ := h.sys.Committed(b, model.StageExtract)
	if ra.Tenant != "acme" || ra.Value != 10 || rb.Tenant != "beta" || rb.Value != 20 {
		t.Fatalf("results crossed tenants: %+v / %+v", ra, rb)
	}
}

// A key names exactly one (tenant, document, version): building is
// injective, so no two operations can collide on a key.
func TestBuildIdempotencyKeyIsInjective(t *testing.T) {
	tenant := rapid.StringMatching(`[a-z][a-z0-9-]{1,6}`)
	doc := rapid.StringMatching(`[a-z0-9:v-]{1,8}`)
	rapid.Check(t, func(t *rapid.T) {
		t1, d1, v1 := tenant.Draw(t, "t1"), doc.Draw(t, "d1"), rapid.IntRange(1, 12).Draw(t, "v1")
		t2, d2, v2 := tenant.Draw(t, "t2"), doc.Draw(t, "d2"), rapid.IntRange(1, 12).Draw(t, "v2")
		k1, err1 := model.BuildIdempotencyKey(t1, d1, v1)
		k2, err2 := model.BuildIdempotencyKey(t2, d2, v2)
		if err1 != nil || err2 != nil {
			t.Fatalf("valid inputs rejected: %v, %v", err1, err2)
		}
		same := t1 == t2 && d1 == d2 && v1 == v2
		if (k1 == k2) != same {
			t.Fatalf("(%q,%q,%d) → %q and (%q,%q,%d) → %q", t1, d1, v1, k1, t2, d2, v2, k2)
		}
	})
}

func TestEnqueueRejectsInvalidKeys(t *testing.T) {
	h := newSys(t)
	for _, r := range []model.EnqueueRequest{
		{Tenant: "ACME", Document: "d", Version: 1},
		{Tenant: "acme", Document: "", Version: 1},
		{Tenant: "acme", Document: "d", Version: 0},
	} {
		if id, err := h.sys.Enqueue(r); err == nil || id != 0 {
			t.Errorf("Enqueue(%+v) = %v, %v; want an error and no job", r, id, err)
		}
	}
	if h.sys.Jobs() != 0 {
		t.Fatalf("%d jobs exist after invalid enqueues", h.sys.Jobs())
	}
}

func ExampleBuildIdempotencyKey() {
	key, err := model.BuildIdempotencyKey("acme", "invoice-4411", 1)
	fmt.Println(key, err)

	_, err = model.BuildIdempotencyKey("ACME", "invoice-4411", 1)
	fmt.Println(err)

	key, _ = model.BuildIdempotencyKey("acme", "invoice-4411", 2)
	fmt.Println(model.StageKey(key, model.StageExtract))
	// Output:
	// acme:invoice-4411:v1 <nil>
	// invalid tenant id: "ACME"
	// acme:invoice-4411:v2:extract
}
