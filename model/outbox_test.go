package model_test

import (
	"testing"

	"github.com/durasim/durasim/model"
)

func commitReq(key string, st model.Stage, hash uint64) model.CommitRequest {
	return model.CommitRequest{Actor: w1, Tenant: "acme", Key: key, Stage: st, PayloadHash: hash, Value: hash * 10}
}

func TestCommitResultWithEventDedupes(t *testing.T) {
	h := newSys(t)
	first, err := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageExtract, 1))
	if err != nil || first.Deduped || first.EventID != 1 || first.Value != 10 {
		t.Fatalf("first commit = %+v, %v", first, err)
	}
	again, err := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageExtract, 1))
	if err != nil || !again.Deduped || again.EventID != first.EventID || again.Value != first.Value {
		t.Fatalf("second commit = %+v, %v; want deduped %v", again, err, first.EventID)
	}
	if h.sys.Rows() != 1 || h.sys.PendingRows() != 1 {
		t.Fatalf("rows %d, pending %d; want one row", h.sys.Rows(), h.sys.PendingRows())
	}
	if e := h.lastEvent(model.EvCommit); e.Code != model.CodeDeduped || e.EventID != first.EventID || !e.OK {
		t.Fatalf("dedupe event %v", e.String())
	}
	// Another stage of the same key is another effect.
	other, err := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageValidate, 1))
	if err != nil || other.Deduped || other.EventID != 2 {
		t.Fatalf("next stage = %+v, %v", other, err)
	}
}

func TestCommitWithADifferentPayloadIsAConflict(t *testing.T) {
	h := newSys(t)
	if _, err := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageExtract, 1)); err != nil {
		t.Fatal(err)
	}
	res, err := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageExtract, 2))
	if !isConflict(err) || res != (model.CommitResult{}) {
		t.Fatalf("conflicting commit = %+v, %v; want IdempotencyConflictError", res, err)
	}
	if err.Error() != "acme:d:v1:extract already committed with a different payload" {
		t.Errorf("conflict message %q", err)
	}
	if model.Classify(err) != model.Permanent {
		t.Errorf("a conflict classifies as %v, want permanent", model.Classify(err))
	}
	if h.sys.Rows() != 1 {
		t.Fatalf("rows %d after a conflict, want 1", h.sys.Rows())
	}
	if r, _ := h.sys.Committed("acme:d:v1", model.StageExtract); r.PayloadHash != 1 || r.Value != 10 {
		t.Fatalf("the conflict overwrote the result: %+v", r)
	}
	if e := h.lastEvent(model.EvCommit); e.Code != model.CodeIdempotencyConflict || e.OK {
		t.Fatalf("conflict event %v", e.String())
	}
}

// relayOnce is one relay step: next row, publish, mark.
func relayOnce(h *harness) (model.OutboxRow, int64, bool) {
	row, ok := h.sys.NextUnpublished()
	if !ok {
		return row, 0, false
	}
	msg := h.sys.Publish(model.Actor{Role: model.RoleRelay}, row.EventID)
	h.sys.MarkPublished(model.Actor{Role: model.RoleRelay}, row.EventID)
	return row, msg, true
}

func TestRelayPublishesRowsInCommitOrder(t *testing.T) {
	h := newSys(t)
	keys := []string{"acme:a:v1", "acme:b:v1", "beta:a:v1"}
	for _, k := range keys {
		if _, err := h.sys.CommitResultWithEvent(commitReq(k, model.StageIngest, 1)); err != nil {
			t.Fatal(err)
		}
	}
	// Unmarked, the same row comes back: a relay crash republishes it.
	r1, _ := h.sys.NextUnpublished()
	r1again, _ := h.sys.NextUnpublished()
	if r1 != r1again || r1.EventID != 1 {
		t.Fatalf("NextUnpublished = %+v then %+v", r1, r1again)
	}
	for i, k := range keys {
		row, msg, ok := relayOnce(h)
		if !ok || row.EventID != model.EventID(i+1) || row.Key != k || msg != int64(i+1) {
			t.Fatalf("relay step %d = %+v (msg %d, ok %v), want %s", i, row, msg, ok, k)
		}
		if got, _ := h.sys.Row(row.EventID); !got.Published {
			t.Fatalf("row %v not marked published", row.EventID)
		}
		if h.sys.PendingRows() != len(keys)-i-1 {
			t.Fatalf("pending %d after %d marks", h.sys.PendingRows(), i+1)
		}
	}
	if _, _, ok := relayOnce(h); ok {
		t.Fatal("relay found a row after publishing all of them")
	}
}

func TestPruneOutboxRemovesOnlyOldPublishedRows(t *testing.T) {
	h := newSys(t)
	retention := h.cfg().Retention
	for _, k := range []string{"acme:a:v1", "acme:b:v1", "acme:c:v1"} {
		if _, err := h.sys.CommitResultWithEvent(commitReq(k, model.StageExtract, 1)); err != nil {
			t.Fatal(err)
		}
	}
	relayOnce(h) // e1 published at 0
	h.advance(ms)
	relayOnce(h) // e2 published at 1ms; e3 stays pending
	h.sys.NextUnpublished()

	h.advance(retention - ms) // e1 is exactly retention old, e2 one ms short
	if n := h.sys.PruneOutbox(op); n != 1 {
		t.Fatalf("pruned %d, want 1 (only e1)", n)
	}
	h.advance(ms)
	if n := h.sys.PruneOutbox(op); n != 1 {
		t.Fatalf("pruned %d, want 1 (e2; e1 already gone)", n)
	}
	h.advance(10 * retention)
	if n := h.sys.PruneOutbox(op); n != 0 {
		t.Fatalf("pruned %d, want 0: e3 is not published", n)
	}
	for i, want := range []bool{true, true, false} {
		if row, _ := h.sys.Row(model.EventID(i + 1)); row.Pruned != want {
			t.Errorf("row e%d pruned = %v, want %v", i+1, row.Pruned, want)
		}
	}
	// Results stay: dedupe still works after the announcement is gone.
	res, err := h.sys.CommitResultWithEvent(commitReq("acme:a:v1", model.StageExtract, 1))
	if err != nil || !res.Deduped || res.EventID != 1 {
		t.Fatalf("commit after pruning = %+v, %v; want deduped e1", res, err)
	}
	if _, err := h.sys.CommitResultWithEvent(commitReq("acme:a:v1", model.StageExtract, 2)); !isConflict(err) {
		t.Fatalf("conflict after pruning: %v", err)
	}
	if h.sys.Rows() != 3 {
		t.Fatalf("rows %d, want 3", h.sys.Rows())
	}
}

// Regression: PruneOutbox only looks at rows before the relay's cursor, which only
// NextUnpublished advances; rows marked published without a later
// NextUnpublished call are never pruned, whatever their age.
func TestPruneOutboxDoesNotDependOnTheRelayCursor(t *testing.T) {
	h := newSys(t)
	for _, k := range []string{"acme:a:v1", "acme:b:v1"} {
		res, err := h.sys.CommitResultWithEvent(commitReq(k, model.StageExtract, 1))
		if err != nil {
			t.Fatal(err)
		}
		h.sys.MarkPublished(model.Actor{Role: model.RoleRelay}, res.EventID)
	}
	h.advance(h.cfg().Retention)
	if n := h.sys.PruneOutbox(op); n != 2 {
		t.Fatalf("pruned %d of 2 published rows older than the retention", n)
	}
}

// Seed 000, basic exercise: the consumer dedupes a redelivered event.
func TestConsumerDedupesRedeliveredEvent(t *testing.T) {
	h := newSys(t)
	res, err := h.sys.CommitResultWithEvent(commitReq("acme:d:v1", model.StageReview, 1))
	if err != nil {
		t.Fatal(err)
	}
	msg := h.sys.Publish(model.Actor{Role: model.RoleRelay}, res.EventID)
	consumer := model.Actor{Role: model.RoleConsumer}

	if got := h.sys.Deliver(consumer, msg); got != (model.ApplyResult{Applied: true}) {
		t.Fatalf("first delivery = %+v", got)
	}
	if got := h.sys.Deliver(consumer, msg); got != (model.ApplyResult{Applied: false, Reason: model.CodeDuplicateEvent}) {
		t.Fatalf("second delivery = %+v, want {false duplicate_event}", got)
	}
	// A relay republish is a new message with the same event id.
	republished := h.sys.Publish(model.Actor{Role: model.RoleRelay}, res.EventID)
	if got := h.sys.Deliver(consumer, republished); got.Applied || got.Reason != model.CodeDuplicateEvent {
		t.Fatalf("republished delivery = %+v", got)
	}
	if n := len(h.sys.Effects()); n != 1 {
		t.Fatalf("effects %d, want 1", n)
	}
	if n := h.sys.EffectCount("acme:d:v1", model.StageReview); n != 1 {
		t.Fatalf("EffectCount %d, want 1", n)
	}
	if m, _ := h.sys.Message(msg); m.Deliveries != 2 {
		t.Fatalf("message deliveries %d, want 2", m.Deliveries)
	}
	if h.sys.Messages() != 2 || h.sys.Unacked() != 2 {
		t.Fatalf("messages %d, unacked %d", h.sys.Messages(), h.sys.Unacked())
	}
	h.sys.AckMessage(msg)
	if h.sys.Unacked() != 1 {
		t.Fatalf("unacked %d after one ack", h.sys.Unacked())
	}
	eff := h.sys.Effects()[0]
	if eff.EventID != res.EventID || eff.Key != "acme:d:v1" || eff.Stage != model.StageReview || eff.Tenant != "acme" {
		t.Fatalf("effect %+v", eff)
	}
}

// Seed 000, the opening incident end to end: a worker crashes after the
// commit and before the ack; the redelivered job extracts again, its commit
// dedupes, and the operator sees one review.
func TestCrashAfterCommitBeforeAckYieldsOneReview(t *testing.T) {
	h := newSys(t)
	id := h.enqueue("acme", "inv-1")
	key := h.job(id).Key
	commit := func(l model.Lease) model.CommitResult {
		t.Helper()
		res, err := h.sys.CommitResultWithEvent(model.CommitRequest{Actor: w1, Job: l.Job, Tenant: "acme", Key: key, Stage: model.StageReview, PayloadHash: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := commit(h.lease(w1)) // ...and the worker dies at after_commit_before_ack
	if j := h.job(id); j.State != model.Leased || h.sys.PendingRows() != 1 {
		t.Fatalf("after the crash: state %v, pending rows %d", j.State, h.sys.PendingRows())
	}
	h.advance(h.cfg().Lease + 5000*ms)
	l := h.lease(w2)
	second := commit(l)
	h.ack(l)
	if !second.Deduped || second.EventID != first.EventID || h.sys.PendingRows() != 1 {
		t.Fatalf("second commit %+v (first %+v), pending %d", second, first, h.sys.PendingRows())
	}
	for {
		_, msg, ok := relayOnce(h)
		if !ok {
			break
		}
		h.sys.Deliver(model.Actor{Role: model.RoleConsumer}, msg)
	}
	if n := h.sys.EffectCount(key, model.StageReview); n != 1 {
		t.Fatalf("%d reviews, want exactly one", n)
	}
	if j := h.job(id); j.State != model.Succeeded || j.Attempt != 2 {
		t.Fatalf("job %+v", j)
	}
}

// EachRow walks what Row returns, in order, and Effects names each effect's
// row, over two tenants (rows name their tenant by index).
func TestEachRowAndEffectsMatchTheRows(t *testing.T) {
	h := newSys(t)
	relay, consumer := model.Actor{Role: model.RoleRelay}, model.Actor{Role: model.RoleConsumer}
	for _, tenant := range []string{"acme", "globex", "acme"} {
		for _, st := range model.Stages() {
			r := commitReq(tenant+":d:v1", st, 1)
			r.Tenant = tenant
			if _, err := h.sys.CommitResultWithEvent(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for {
		row, ok := h.sys.NextUnpublished()
		if !ok {
			break
		}
		msg := h.sys.Publish(relay, row.EventID)
		h.sys.MarkPublished(relay, row.EventID)
		h.sys.Deliver(consumer, msg)
	}
	var rows []model.OutboxRow
	h.sys.EachRow(func(r *model.OutboxRow) { rows = append(rows, *r) })
	if len(rows) != h.sys.Rows() || len(rows) != 8 {
		t.Fatalf("EachRow gave %d rows, Rows %d, want 8", len(rows), h.sys.Rows())
	}
	for i, r := range rows {
		want, _ := h.sys.Row(model.EventID(i + 1))
		if r != want || !r.Published || r.Tenant != map[bool]string{true: "acme", false: "globex"}[i < 4] {
			t.Fatalf("row %d: EachRow %+v, Row %+v", i+1, r, want)
		}
	}
	effects := h.sys.Effects()
	if len(effects) != 8 {
		t.Fatalf("Effects gave %d effects, want 8", len(effects))
	}
	for i, e := range effects {
		if r := rows[i]; e.EventID != r.EventID || e.Job != r.Job || e.Stage != r.Stage || e.Key != r.Key || e.Tenant != r.Tenant {
			t.Fatalf("effect %d: %+v, its row %+v", i, e, r)
		}
	}
}

// Results lists every committed (key, stage) once, with the event its
// result carries, in event id order, whatever order the keys came in; a
// design that commits a stage again lists its latest event only.
func TestResultsInEventOrder(t *testing.T) {
	for _, variant := range []string{"", "no-idempotency"} {
		var design *model.Design
		if variant != "" {
			d, err := model.LookupDesign(variant)
			if err != nil {
				t.Fatal(err)
			}
			design = d
		}
		h := newHarness(t, design)
		commits := []struct {
			key string
			st  model.Stage
		}{
			{"acme:b:v1", model.StageExtract}, {"acme:a:v1", model.StageExtract}, {"acme:b:v1", model.StageValidate},
			{"acme:a:v1", model.StageExtract}, {"acme:c:v1", model.StageIngest}, {"acme:a:v1", model.StageValidate},
		}
		for _, c := range commits {
			if _, err := h.sys.CommitResultWithEvent(commitReq(c.key, c.st, 1)); err != nil {
				t.Fatal(err)
			}
		}
		got := h.sys.Results()
		want := 5 // the second extract of acme:a is a dedupe, or replaces the first
		if len(got) != want {
			t.Fatalf("%s: %d results, want %d: %+v", variant, len(got), want, got)
		}
		for i, r := range got {
			if i > 0 && got[i-1].EventID >= r.EventID {
				t.Fatalf("%s: results out of event order: %+v", variant, got)
			}
			c, ok := h.sys.Committed(r.Key, r.Stage)
			if !ok || c != r {
				t.Fatalf("%s: result %+v, committed %+v (%v)", variant, r, c, ok)
			}
		}
		if buf := h.sys.AppendResults(make([]model.Result, 1)); len(buf) != want+1 || buf[1] != got[0] {
			t.Fatalf("%s: AppendResults did not append: %+v", variant, buf)
		}
		if variant == "no-idempotency" && got[1].Key != "acme:b:v1" {
			t.Fatalf("the recommitted result should have left its first place: %+v", got)
		}
	}
}
