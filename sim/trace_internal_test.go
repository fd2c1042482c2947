package sim

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// The trace hash is part of the replay contract: pin it, so a change to it
// is a deliberate one (and GOARCH=386 computes the same value).
func TestHashEventPinned(t *testing.T) {
	h := uint64(hashSeed)
	for _, e := range []model.Event{
		{At: 0, Kind: model.EvEnqueue, Actor: model.Actor{Role: model.RoleAPI}, Job: 1, Tenant: "acme", Key: "acme:d1:v1", Payload: 0x81f1ce5e9557168f, N: 900_000_000_000, N2: 1, OK: true},
		{At: 3_000_000, Kind: model.EvLease, Actor: model.Actor{Role: model.RoleWorker, ID: 2, Incarnation: 1}, Job: 1, Fence: 7, Attempt: 2, OK: true},
		{At: 4_000_000, Kind: model.EvPhase, Text: "quiesce", OK: true},
	} {
		h = hashEvent(h, &e, new(stringHashes))
	}
	if h != 0xaf42227a3a1ef6ea {
		t.Fatalf("hash = %#x", h)
	}
}

// Every field a trace line shows changes the hash.
func TestHashEventSeesEveryField(t *testing.T) {
	base := model.Event{At: 1, Kind: model.EvCommit, Actor: model.Actor{Role: model.RoleWorker, ID: 1, Incarnation: 1},
		Job: 2, Other: 3, Tenant: "acme", Key: "acme:d:v1", Stage: model.StageExtract, HasStage: true, Fence: 4,
		Attempt: 5, EventID: 6, Code: model.CodeDeduped, OK: true, N: 7, N2: 8, Boundary: model.AfterLease, Text: "x"}
	changes := map[string]func(e *model.Event){
		"at": func(e *model.Event) { e.At++ }, "kind": func(e *model.Event) { e.Kind++ },
		"role": func(e *model.Event) { e.Actor.Role++ }, "id": func(e *model.Event) { e.Actor.ID++ },
		"incarnation": func(e *model.Event) { e.Actor.Incarnation++ }, "job": func(e *model.Event) { e.Job++ },
		"other": func(e *model.Event) { e.Other++ }, "tenant": func(e *model.Event) { e.Tenant += "x" },
		"key": func(e *model.Event) { e.Key += "x" }, "stage": func(e *model.Event) { e.Stage++ },
		"hasStage": func(e *model.Event) { e.HasStage = false }, "fence": func(e *model.Event) { e.Fence++ },
		"attempt": func(e *model.Event) { e.Attempt++ }, "event": func(e *model.Event) { e.EventID++ },
		"code": func(e *model.Event) { e.Code++ }, "ok": func(e *model.Event) { e.OK = false },
		"n": func(e *model.Event) { e.N++ }, "n2": func(e *model.Event) { e.N2++ },
		"boundary": func(e *model.Event) { e.Boundary++ }, "text": func(e *model.Event) { e.Text = "y" },
		"key/tenant split": func(e *model.Event) { e.Tenant, e.Key = "acme:", "d:v1" },
		"payload":          func(e *model.Event) { e.Payload++ },
	}
	want := hashEvent(hashSeed, &base, new(stringHashes))
	for name, change := range changes {
		e := base
		change(&e)
		if hashEvent(hashSeed, &e, new(stringHashes)) == want {
			t.Errorf("changing %s does not change the hash", name)
		}
	}
}

// tailWord is the byte-by-byte little-endian packing of a string's last
// len%8 bytes, whatever their number.
func TestTailWord(t *testing.T) {
	s := "\x01\x82\x03\xf4\x05\x06\xa7"
	for n := 0; n <= 7; n++ {
		var want uint64
		for i := 0; i < n; i++ {
			want |= uint64(s[i]) << (8 * i)
		}
		if got := tailWord(s[:n]); got != want {
			t.Errorf("tailWord(%q) = %#x, want %#x", s[:n], got, want)
		}
	}
}
