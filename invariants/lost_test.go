package invariants

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// withActor is e sent by client id.
func withActor(e model.Event, id int32) model.Event { e.Actor.ID = id; return e }

func TestNothingLost(t *testing.T) {
	row1 := Final{Rows: []model.OutboxRow{{EventID: 1, Key: key(1), Stage: model.StageIngest, Tenant: "acme", Job: 1}}}
	direct := Final{Rows: []model.OutboxRow{{EventID: 1, Key: key(1), Stage: model.StageIngest, Tenant: "acme", Job: 1, Published: true}}}
	pending := Final{Jobs: []model.Job{{ID: 1, State: model.Pending}}}
	died := one(failed(1, 1, model.CodePermanentError), dlqWrite(1, model.CodePermanentError), dead(1, 1, model.CodePermanentError))
	twoClients := testCfg
	twoClients.Clients = 2
	refused := model.Event{Kind: model.EvAccept, Actor: model.Actor{Role: model.RoleClient, ID: 2}, Tenant: "acme",
		Code: model.CodeInvalidKey, Text: "refused: invalid tenant id"}
	runTable(t, NothingLost, []fixture{
		{name: "every row published and applied, the job succeeded", history: clean(1, 1, 1), final: succeeded(1)},
		{name: "both clients told a job id, one after a refusal", cfg: &twoClients,
			history: cat(clean(1, 1, 1), one(refused, withActor(accept(1), 2))), final: succeeded(1)},
		{name: "a client whose every request was refused", cfg: &twoClients,
			history: cat(clean(1, 1, 1), one(refused, refused)), final: succeeded(1),
			want: []want{{0, []uint64{25}, "client2 was never given a job id: its requests were refused"}}},
		{name: "a client never answered", cfg: &twoClients, history: clean(1, 1, 1), final: succeeded(1),
			want: []want{{0, nil, "client2 was never given a job id: no request of its was answered"}}},
		{name: "relay republished a row and the consumer skipped the duplicate",
			history: cat(clean(1, 1, 1), one(publish(1, model.StageReview, 4), duplicate(1, model.StageReview, 4))),
			final:   succeeded(1)},
		{name: "run that did not drain is not judged on finished jobs (liveness is)",
			history: clean(1, 1, 1)[:11], undrained: true},
		{name: "drained, but the final state has the job pending",
			history: one(enqueue(1)), final: pending,
			want: []want{{1, []uint64{1}, "j1 ended pending, not succeeded, dead or cancelled"}}},
		{name: "job id returned before a durable enqueue that never happened",
			history: one(accept(1)),
			want:    []want{{1, []uint64{1}, "j1 returned to the client but never enqueued"}}},
		{name: "committed row never published",
			history: cat(one(enqueue(1), lease(1, 1, 1), commit(1, model.StageIngest, 1)), died), final: row1,
			want: []want{{1, []uint64{3}, "e1 (j1 key acme:d1:v1 stage=ingest) committed but never published"}}},
		{name: "event published with no outbox row",
			history: cat(one(enqueue(1), lease(1, 1, 1), publish(1, model.StageIngest, 7), apply(1, model.StageIngest, 7)), died),
			want:    []want{{1, []uint64{3}, "e7 published for j1 stage=ingest, but no outbox row was committed"}}},
		{name: "event published with no event id",
			history: cat(one(enqueue(1), lease(1, 1, 1), publish(1, model.StageIngest, 0)), died),
			want:    []want{{1, []uint64{3}, "j1 stage=ingest published with no event id and nothing committed"}}},
		{name: "dual write published directly",
			history: cat(one(enqueue(1), lease(1, 1, 1), dbWriteEv(1, model.StageIngest), publish(1, model.StageIngest, 1), apply(1, model.StageIngest, 1)), died),
			final:   direct},
		{name: "dual write whose event was never published",
			history: cat(one(enqueue(1), lease(1, 1, 1), dbWriteEv(1, model.StageIngest)), died, one(dbWriteEv(1, model.StageIngest))),
			want:    []want{{1, []uint64{3}, "j1 stage=ingest written to the database under key acme:d1:v1 but its event was never published"}}},
		{name: "published but never applied",
			history: cat(one(enqueue(1), lease(1, 1, 1), commit(1, model.StageIngest, 1), publish(1, model.StageIngest, 1)), died), final: row1,
			want: []want{{1, []uint64{4}, "e1 (j1 stage=ingest) published but never applied"}}},
	})
}

// A job id handed to a client before the enqueue can end up naming
// another document's job (reply-before-enqueue): nothing-lost.
func TestPromisedKey(t *testing.T) {
	accept := func(seq uint64, key string) model.Event {
		return model.Event{Seq: seq, Kind: model.EvAccept, Actor: model.Actor{Role: model.RoleClient, ID: 1},
			Job: 1, Tenant: "acme", Key: key, OK: true}
	}
	enq := func(seq uint64, key string) model.Event {
		return model.Event{Seq: seq, Kind: model.EvEnqueue, Job: 1, Tenant: "acme", Key: key, N: 1000, N2: 1, OK: true}
	}
	cfg := Config{Model: model.DefaultConfig()}
	kept := Check(cfg, []model.Event{enq(1, "acme:a:v1"), accept(2, "acme:a:v1")}, Final{}, false)
	early := Check(cfg, []model.Event{accept(1, "acme:a:v1"), enq(2, "acme:a:v1")}, Final{}, false)
	for _, vs := range [][]Violation{kept, early} {
		for _, v := range vs {
			if v.Invariant == NothingLost && strings.Contains(v.Message, "given an id") {
				t.Fatalf("a kept promise flagged: %v", v)
			}
		}
	}
	broken := Check(cfg, []model.Event{accept(1, "acme:a:v1"), enq(2, "acme:b:v1")}, Final{}, false)
	found := false
	for _, v := range broken {
		found = found || v.Invariant == NothingLost && strings.Contains(v.Message, "acme:a:v1") && equalSeqs(v.Events, []uint64{1, 2})
	}
	if !found {
		t.Fatalf("id reused by another document not flagged: %v", broken)
	}
}

// TestBackedAnswers: backedAnswer — what a client was told must match the
// queue's record of its request, made at the same time.
func TestBackedAnswers(t *testing.T) {
	p := clean(1, 1, 1)[0].Payload
	refusedConflict := model.Event{Kind: model.EvAccept, Actor: model.Actor{Role: model.RoleClient, ID: 1}, Tenant: "acme",
		Code: model.CodeIdempotencyConflict, Text: "refused: idempotency conflict"}
	runOracle(t, Consistency, []fixture{
		{name: "a resubmission deduplicated, and its client given the job",
			history: cat(clean(1, 1, 1), one(deduped(1, p), accept(1))), final: succeeded(1)},
		{name: "an edited resubmission refused as a conflict",
			history: cat(clean(1, 1, 1), one(conflict(1, p+1), refusedConflict)), final: succeeded(1)},
		{name: "a conflict told for the payload the queue refused",
			history: cat(clean(1, 1, 1), one(conflict(1, p+1), pay(p+1, refusedConflict))), final: succeeded(1)},
		{name: "a conflict told for another payload than the queue refused",
			history: cat(clean(1, 1, 1), one(conflict(1, p+1), pay(p+2, refusedConflict))), final: succeeded(1),
			want: []want{{0, []uint64{24, 25}, "client1 was refused a conflict at 24ms with no conflicting enqueue recorded then"}}},
		{name: "a job id given with no enqueue recorded then",
			history: cat(clean(1, 1, 1), one(accept(1))), final: succeeded(1),
			want: []want{{1, []uint64{1, 24}, "j1 was given to client1 at 24ms with no enqueue of it recorded then"}}},
		{name: "a conflict told with no conflicting enqueue recorded",
			history: cat(clean(1, 1, 1), one(refusedConflict)), final: succeeded(1),
			want: []want{{0, []uint64{1, 24}, "client1 was refused a conflict at 24ms with no conflicting enqueue recorded then"}}},
	})
}
