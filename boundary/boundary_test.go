package boundary

import (
	"strings"
	"testing"
)

// The model's boundaries keep the numbers its trace hash was pinned with.
func TestModelNumbersPinned(t *testing.T) {
	want := []string{"none", "after_lease", "after_extract", "after_commit_before_ack", "after_ack", "after_dlq_write",
		"after_db_write_before_publish", "relay_after_publish_before_mark", "consumer_after_apply",
		"after_accept_before_enqueue", "relay_after_mark_before_publish", "consumer_after_receive"}
	for i, name := range want {
		if got := Boundary(i).String(); got != name {
			t.Errorf("boundary %d is %q, want %q", i, got, name)
		}
	}
}

func TestEveryBoundaryDeclared(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range All() {
		switch {
		case b.String() == "" || b.Doc() == "" || b.Actor() == NoActor:
			t.Errorf("boundary %d is not fully declared: %q %q %v", b, b.String(), b.Doc(), b.Actor())
		case seen[b.String()]:
			t.Errorf("boundary name %q declared twice", b)
		}
		seen[b.String()] = true
		if p, ok := Parse(b.String()); !ok || p != b {
			t.Errorf("Parse(%q) = %v, %v", b, p, ok)
		}
	}
	if _, ok := Parse("none"); ok {
		t.Error(`Parse("none") found a boundary`)
	}
	if got := Count.String(); got != "boundary(29)" {
		t.Errorf("Count.String() = %q", got)
	}
}

func TestSetLookup(t *testing.T) {
	s := NewSet("river", AfterFetch, AfterEffect, RescuerAfterStuck)
	if b, err := s.Lookup("after_fetch"); err != nil || b != AfterFetch {
		t.Fatalf("Lookup(after_fetch) = %v, %v", b, err)
	}
	if _, err := s.Lookup("after_lease"); err == nil || !strings.Contains(err.Error(), "river has no boundary after_lease") {
		t.Errorf("a boundary of another system: %v", err)
	}
	if _, err := s.Lookup("after_lunch"); err == nil || !strings.Contains(err.Error(), `unknown boundary "after_lunch"`) {
		t.Errorf("an unknown boundary: %v", err)
	}
	if got := s.Of(Worker); len(got) != 2 {
		t.Errorf("Of(Worker) = %v", got)
	}
	if s.Named("mine").System() != "mine" || s.System() != "river" {
		t.Error("Named changed the original or did not rename")
	}
}

func TestNewSetRefusesRepeats(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSet accepted a repeated boundary")
		}
	}()
	NewSet("x", AfterFetch, AfterFetch)
}
