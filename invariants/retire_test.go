package invariants

import (
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// Retirement: an outbox event committed, published and applied leaves the
// suite's table; these fixtures hold the checks that still read it.

// A finished job's events retire, and its stages go into its published
// bits.
func TestRetiredEventsLeaveTheTable(t *testing.T) {
	s := NewSuite(testCfg)
	for _, e := range hist(clean(1, 1, 1)...) {
		s.Record(&e)
	}
	if n := len(s.outbox.live); n != 0 || s.outbox.base != 5 {
		t.Fatalf("%d events still live, base e%d; want none, base e5", n, s.outbox.base)
	}
	if j := s.known(1); j.published != 0b1111 {
		t.Fatalf("published bits %04b, want 1111", j.published)
	}
	if len(s.outbox.retired) != 0 {
		t.Fatalf("retired keys %v, want none: every event carried the job's key", s.outbox.retired)
	}
}

// An event waits for the oldest incomplete one: retirement goes in id
// order.
func TestRetirementWaitsForTheOldestEvent(t *testing.T) {
	s := NewSuite(testCfg)
	for _, e := range hist(
		enqueue(1), lease(1, 1, 1),
		commit(1, model.StageIngest, 1), commit(1, model.StageExtract, 2),
		publish(1, model.StageExtract, 2), apply(1, model.StageExtract, 2),
	) {
		s.Record(&e)
	}
	if len(s.outbox.live) != 2 || s.outbox.base != 1 {
		t.Fatalf("%d events live from e%d; want 2 from e1", len(s.outbox.live), s.outbox.base)
	}
}

func TestRetiredEventsStillCount(t *testing.T) {
	fresh := "acme:d1:v1:redrive:1"
	freshKey := func(e *model.Event) { e.Key = fresh }
	lateRow := succeeded(1)
	lateRow.Rows = append(lateRow.Rows, model.OutboxRow{EventID: 5, Key: key(1), Stage: model.StageReview, Tenant: "acme", Job: 1})
	cases := []struct {
		name    string
		history []model.Event
		final   Final
		want    []string
	}{
		{name: "a retired event delivered again and applied is a duplicate",
			history: cat(clean(1, 1, 1), one(apply(1, model.StageIngest, 1))),
			final:   succeeded(1),
			want:    []string{"exactly-once-effect: j1 stage=ingest applied twice under key acme:d1:v1 (events #14, #24)"}},
		{name: "a zombie's late commit, publish and apply of a retired event change nothing",
			history: cat(clean(1, 1, 1), one(by(w1, with(commit(1, model.StageReview, 4), func(e *model.Event) { e.Code = model.CodeDeduped })), publish(1, model.StageReview, 4), duplicate(1, model.StageReview, 4))),
			final:   succeeded(1)},
		{name: "a dual write of a stage a retired event published is not lost",
			history: cat(clean(1, 1, 1), one(dbWriteEv(1, model.StageReview))),
			final:   succeeded(1)},
		{name: "a retired event under another key than its job's still counts as published",
			history: cat(clean(1, 1, 1), one(
				with(commit(1, model.StageExtract, 5), freshKey), with(publish(1, model.StageExtract, 5), freshKey),
				with(apply(1, model.StageExtract, 5), freshKey), with(dbWriteEv(1, model.StageExtract), freshKey),
				with(dbWriteEv(1, model.StageValidate), freshKey))),
			final: succeeded(1),
			want: []string{
				"exactly-once-effect: j1 stage=extract applied twice, the second time under key acme:d1:v1:redrive:1 (events #17, #26)",
				"nothing-lost: j1 stage=validate written to the database under key acme:d1:v1:redrive:1 but its event was never published (event #28)",
			}},
		{name: "a row of a retired event is published; a later row is not",
			history: clean(1, 1, 1),
			final:   lateRow,
			want:    []string{"nothing-lost: e5 (j1 key acme:d1:v1 stage=review) committed but never published"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Check(testCfg, hist(c.history...), c.final, true)
			if len(got) != len(c.want) {
				t.Fatalf("got %d violations, want %d:\n%s", len(got), len(c.want), lines(got))
			}
			for i := range got {
				if got[i].String() != c.want[i] {
					t.Errorf("violation %d:\n got  %s\n want %s", i, got[i], c.want[i])
				}
			}
		})
	}
}

// A key's first applied effect is kept with its owner; an effect applied
// under a key before anyone enqueued it is kept apart, and both catch a
// second one.
func TestAppliedBeforeTheKeyIsOwned(t *testing.T) {
	got := Check(testCfg, hist(
		apply(1, model.StageIngest, 1), // #1: no job, no owner yet
		enqueue(1),                     // #2: claims the key
		apply(1, model.StageIngest, 2), // #3
	), Final{}, false)
	got = only(got, ExactlyOnce)
	want := "exactly-once-effect: j1 stage=ingest applied twice under key acme:d1:v1 (events #1, #3)"
	if len(got) != 1 || got[0].String() != want {
		t.Fatalf("got:\n%s\nwant %s", lines(got), want)
	}
}

// A promise made before the enqueue waits for it; one made after is
// checked at once; each is reported once.
func TestPromisesBeforeAndAfterTheEnqueue(t *testing.T) {
	cfg := Config{Model: model.DefaultConfig()}
	other := func(e *model.Event) { e.Key = "acme:b:v1" }
	got := Check(cfg, hist(
		with(accept(1), other), // #1: before the enqueue
		enqueue(1),             // #2: the job of another document
		with(accept(1), other), // #3: the promise was kept: nothing new
		enqueue(2),             // #4
		with(accept(2), other), // #5: after the enqueue
		with(accept(2), other), // #6
	), Final{}, false)
	var broken []string
	for _, v := range got {
		if strings.Contains(v.Message, "was given an id") {
			broken = append(broken, v.String())
		}
	}
	want := []string{
		"nothing-lost: the client of acme:b:v1 was given an id that now names the job of acme:d1:v1: its own job was never enqueued (events #1, #2)",
		"nothing-lost: the client of acme:b:v1 was given an id that now names the job of acme:d2:v1: its own job was never enqueued (events #4, #5)",
	}
	if !slices.Equal(broken, want) {
		t.Fatalf("got:\n%s", lines(got))
	}
}
