package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixtures of the idempotency decisions recomputed from payload hashes,
// and of the broker, consumer and relay numbers (idem.go).

// commitAs is a commit answered with code (deduped: accepted; conflict:
// refused, no event id) for payload p.
// TestIdemDedupeRecorded: a deduplicated commit is an accepted one.
func TestIdemDedupeRecorded(t *testing.T) {
	first := one(enqueue(1), lease(1, 1, 1), pay(7, commit(1, ingest, 1)))
	runTable(t, Consistency, []fixture{
		{name: "a dedupe recorded as accepted", history: cat(first, one(commitAs(1, ingest, 1, 7, model.CodeDeduped))), undrained: true},
		{name: "a dedupe recorded as refused", undrained: true,
			history: cat(first, one(rejectedAs(commitAs(1, ingest, 1, 7, model.CodeDeduped)))),
			want: []want{{1, []uint64{3, 4},
				"j1 stage=ingest commit deduplicated into e1 but recorded as refused: the worker is told the committed result"}}},
	})
}

// rejectedAs is e recorded as refused, its code kept.
func rejectedAs(e model.Event) model.Event { e.OK = false; return e }

func commitAs(j model.JobID, st model.Stage, id model.EventID, p uint64, c model.Code) model.Event {
	e := pay(p, commit(j, st, id))
	switch c {
	case model.CodeDeduped:
		e.Code = c
	case model.CodeIdempotencyConflict:
		e.OK, e.Code, e.EventID = false, c, 0
	}
	return e
}

// TestIdemEnqueue: enqueueDecision.
func TestIdemEnqueue(t *testing.T) {
	retried := cat(one(pay(7, enqueue(1)), accept(1), deduped(1, 7), lease(1, 1, 1)), rest(1, 1, 1))
	edited := cat(one(pay(7, enqueue(1)), accept(1), conflict(1, 8), lease(1, 1, 1)), rest(1, 1, 1))
	runOracle(t, ExactlyOnce, []fixture{
		{name: "a resubmission of the same payload deduplicated", history: retried, final: succeeded(1)},
		{name: "a resubmission of an edited payload refused", history: edited, final: succeeded(1)},
		{name: "a second job under one key",
			history: one(pay(7, enqueue(1)), pay(7, enqueueAs(2, "acme", key(1)))),
			want:    []want{{2, []uint64{1, 2}, "j2 enqueued under key acme:d1:v1, which j1 already holds: a second job for one operation"}}},
		{name: "an edited payload deduplicated",
			history: one(pay(7, enqueue(1)), deduped(1, 8)),
			want: []want{{1, []uint64{1, 2},
				"a request under key acme:d1:v1 with payload 0000000000000008 was deduplicated into j1, enqueued with payload 0000000000000007"}}},
		{name: "a resubmission deduplicated into another job",
			history: one(pay(7, enqueue(1)), pay(9, enqueue(2)), with(deduped(1, 7), func(e *model.Event) { e.Job = 2 })),
			want: []want{{1, []uint64{1, 3},
				"a request under key acme:d1:v1 with payload 0000000000000007 was deduplicated into j2, enqueued with payload 0000000000000007"}}},
	})
	runOracle(t, NothingLost, []fixture{
		{name: "an edited payload refused as a conflict", history: edited, final: succeeded(1)},
		{name: "the same payload refused as a conflict",
			history: one(pay(7, enqueue(1)), conflict(1, 7)), undrained: true,
			want: []want{{1, []uint64{1, 2}, "a request under key acme:d1:v1 was refused as a conflict, but its payload is the one j1 was enqueued with"}}},
	})
}

// TestIdemCommit: commitDecision.
func TestIdemCommit(t *testing.T) {
	// The worker dies after committing ingest; the redelivery commits it
	// again and gets the same event back.
	redone := payAll(7, cat(one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), crash(1, 1)),
		from(30002*ms, cat(one(expiredLease(1, 1, 1), by(w1, lease(1, 2, 2)), commitAs(1, ingest, 1, 7, model.CodeDeduped),
			advance(1, 2, extract)), fromStage(1, 2, 1, extract), delivered(1, 1))...)))
	// A commit of another payload under a committed (key, stage) is
	// refused, and the job dead-lettered.
	refused := one(pay(7, enqueue(1)), lease(1, 1, 1), pay(7, commit(1, ingest, 1)), commitAs(1, ingest, 0, 8, model.CodeIdempotencyConflict),
		failed(1, 1, model.CodeIdempotencyConflict), dlqOf(1, model.CodeIdempotencyConflict, 1, 0), dead(1, 1, model.CodeIdempotencyConflict),
		publish(1, ingest, 1), mark(1, ingest, 1), apply(1, ingest, 1))
	first := one(pay(7, enqueue(1)), lease(1, 1, 1), pay(7, commit(1, ingest, 1)))
	runOracle(t, ExactlyOnce, []fixture{
		{name: "a redelivered commit deduplicated into the first event", history: redone, final: succeeded(1)},
		{name: "a stage committed twice",
			history: cat(first, one(pay(7, commit(1, ingest, 2)))),
			want:    []want{{1, []uint64{3, 4}, "j1 stage=ingest committed twice under key acme:d1:v1 (e1, then e2): the second commit must deduplicate"}}},
		{name: "a dedupe answering another event",
			history: cat(first, one(commitAs(1, ingest, 2, 7, model.CodeDeduped))),
			want: []want{{1, []uint64{3, 4},
				"j1 stage=ingest commit with payload 0000000000000007 deduplicated into e1 of payload 0000000000000007, answered e2"}}},
		{name: "a dedupe of another payload",
			history: cat(first, one(commitAs(1, ingest, 1, 8, model.CodeDeduped))),
			want: []want{{1, []uint64{3, 4},
				"j1 stage=ingest commit with payload 0000000000000008 deduplicated into e1 of payload 0000000000000007, answered e1"}}},
	})
	runOracle(t, NothingLost, []fixture{
		{name: "another payload refused as a conflict", history: refused},
		{name: "the committed payload refused as a conflict",
			history: cat(first, one(commitAs(1, ingest, 0, 7, model.CodeIdempotencyConflict))), undrained: true,
			want: []want{{1, []uint64{3, 4}, "j1 stage=ingest commit refused as a conflict, but its payload is the committed one"}}},
	})
	runOracle(t, Consistency, []fixture{
		{name: "a dedupe where a commit came first", history: redone, final: succeeded(1)},
		{name: "a dedupe where nothing was committed",
			history: one(pay(7, enqueue(1)), lease(1, 1, 1), commitAs(1, ingest, 1, 7, model.CodeDeduped)),
			want:    []want{{1, []uint64{3}, "j1 stage=ingest commit answered deduped under key acme:d1:v1, where nothing was committed"}}},
		{name: "a conflict where nothing was committed",
			history: one(pay(7, enqueue(1)), lease(1, 1, 1), commitAs(1, ingest, 0, 7, model.CodeIdempotencyConflict)),
			want:    []want{{1, []uint64{3}, "j1 stage=ingest commit answered idempotency_conflict under key acme:d1:v1, where nothing was committed"}}},
	})
}

// TestIdemPublished: published.
func TestIdemPublished(t *testing.T) {
	twoRows := one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), advance(1, 1, extract), commit(1, extract, 2), publish(1, ingest, 1))
	runOracle(t, Consistency, []fixture{
		{name: "message ids handed out in order", history: clean(1, 1, 1), final: succeeded(1)},
		{name: "a first message numbered 5",
			history: one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), withN(5, publish(1, ingest, 1))),
			want:    []want{{1, []uint64{4}, "e1 published as message 5, the history counts 1"}}},
		{name: "a message id handed out twice",
			history: cat(twoRows, one(withN(1, publish(1, extract, 2)))),
			want:    []want{{1, []uint64{7}, "e2 published as message 1, the history counts 2"}}},
	})
}

// TestIdemDelivered: delivered.
func TestIdemDelivered(t *testing.T) {
	twoMsgs := one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), advance(1, 1, extract), commit(1, extract, 2),
		publish(1, ingest, 1), publish(1, extract, 2))
	runOracle(t, Consistency, []fixture{
		{name: "a message delivered twice, the second time skipped",
			history: cat(clean(1, 1, 1), one(duplicate(1, review, 4))), final: succeeded(1)},
		{name: "a message never published",
			history: one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), withN2(9, apply(1, ingest, 1))),
			want:    []want{{1, []uint64{4}, "e1 applied from message 9, which was never published"}}},
		{name: "a message that carried another event",
			history: cat(twoMsgs, one(withN2(1, apply(1, extract, 2)))),
			want:    []want{{1, []uint64{6, 8}, "message 1 carried e1, the consumer applied e2"}}},
		{name: "a first delivery numbered 2",
			history: one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), publish(1, ingest, 1), withN(2, apply(1, ingest, 1))),
			want:    []want{{1, []uint64{4, 5}, "e1 delivery 2 of message 1, the history counts 1"}}},
	})
}

// TestIdemSkipped: skipped.
func TestIdemSkipped(t *testing.T) {
	runOracle(t, NothingLost, []fixture{
		{name: "a duplicate skipped after the apply",
			history: cat(clean(1, 1, 1), one(publish(1, review, 4), duplicate(1, review, 4))), final: succeeded(1)},
		{name: "a first delivery skipped as a duplicate",
			history: one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), publish(1, ingest, 1), duplicate(1, ingest, 1)), undrained: true,
			want: []want{{1, []uint64{5}, "e1 (j1 stage=ingest) skipped as a duplicate, but it was never applied"}}},
	})
}

// TestIdemMarked: marked.
func TestIdemMarked(t *testing.T) {
	runOracle(t, NothingLost, []fixture{
		{name: "marked after the publish", history: clean(1, 1, 1), final: succeeded(1)},
		{name: "marked before the publish",
			history: one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), mark(1, ingest, 1), publish(1, ingest, 1)), undrained: true,
			want: []want{{1, []uint64{4}, "e1 (j1 stage=ingest) marked published before it was published"}}},
	})
}

// TestIdemPruned: pruned, both branches. e1 of clean(1, 1, 1) is marked at
// 13ms.
func TestIdemPruned(t *testing.T) {
	retention := testCfg.Model.Retention
	runOracle(t, NothingLost, []fixture{
		{name: "pruned once the retention passed",
			history: cat(clean(1, 1, 1), one(at(13*ms+retention, prune(1, 1)))), final: succeeded(1)},
		{name: "pruned before it was marked",
			history: one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), publish(1, ingest, 1), prune(1, 1)), undrained: true,
			want: []want{{1, []uint64{5}, "e1 pruned from the outbox before it was marked published"}}},
		// The message names only the prune; TestIdemBugs wants the mark too.
		{name: "pruned before the retention passed",
			history: cat(clean(1, 1, 1), one(at(sec, prune(1, 1)))), final: succeeded(1),
			want: []want{{1, []uint64{13, 24}, "e1 pruned 987ms after it was marked published, before the retention of 600000ms"}}},
	})
}

// TestIdemPrunePass: prunePassDone and keptPastRetention — a relay's
// record of its pass against the rows the history saw it prune.
func TestIdemPrunePass(t *testing.T) {
	late := sec + testCfg.Model.Retention
	every := one(at(late, prune(1, 1)), at(late, prune(1, 2)), at(late, prune(1, 3)), at(late, prune(1, 4)))
	oneRow := one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), publish(1, ingest, 1), mark(1, ingest, 1))
	runOracle(t, NothingLost, []fixture{
		{name: "a pass that pruned every row past its retention",
			history: cat(clean(1, 1, 1), every, one(at(late, passDone(4)))), final: succeeded(1)},
		{name: "a pass with nothing old enough", history: cat(clean(1, 1, 1), one(at(sec, passDone(0)))), final: succeeded(1)},
		{name: "a pass that kept a row past its retention",
			history: cat(oneRow, one(at(late, passDone(0)))), undrained: true,
			want: []want{{0, []uint64{5, 6}, "e1 marked published 600995ms before the prune pass by relay at 601000ms, past the retention of 600000ms, yet kept"}}},
		{name: "a row pruned twice",
			history: cat(clean(1, 1, 1), every, one(at(late+sec, prune(1, 1)))), final: succeeded(1),
			want: []want{{1, []uint64{24, 28}, "e1 pruned from the outbox twice"}}},
	})
	runOracle(t, Consistency, []fixture{
		{name: "a pass whose count the history bears out",
			history: cat(clean(1, 1, 1), every, one(at(late, passDone(4)))), final: succeeded(1)},
		{name: "a pass that claims more rows than it pruned",
			history: cat(clean(1, 1, 1), every[:3], one(at(late, prune(1, 4)), at(late+1, passDone(1)))), final: succeeded(1),
			want: []want{{0, []uint64{28}, "prune pass by relay at 601000ms says it pruned 1 rows, the history shows 0"}}},
	})
}

func TestIdemRegressions(t *testing.T) {
	retention := testCfg.Model.Retention
	// Dual write (a naive variant): the row is born published, and the
	// worker's direct publish is its only publication.
	direct := one(enqueue(1), lease(1, 1, 1), dbWriteEv(1, ingest), publish(1, ingest, 1), apply(1, ingest, 1),
		failed(1, 1, model.CodePermanentError), dlqOf(1, model.CodePermanentError, 1, 0), dead(1, 1, model.CodePermanentError),
		at(4*ms+retention, prune(1, 1)))
	runRegressions(t, []regression{
		{bug: "pruned: the violation names the prune only; the mark that started the retention (and proves it did not pass) is not named",
			inv: NothingLost, fixture: fixture{name: "pruned before the retention passed names the mark",
				history: cat(clean(1, 1, 1), one(at(sec, prune(1, 1)))), final: succeeded(1),
				want: []want{{1, []uint64{13, 24}, "e1 pruned 987ms after it was marked published, before the retention of 600000ms"}}}},
		{bug: "pruned: a dual-written row is born published (model.PublishDirect) and never marked; pruning it after the retention " +
			"is reported as 'pruned before it was marked published' (a wrong reason, in the dual-write variant's reports)",
			inv: NothingLost, fixture: fixture{name: "a dual-written row pruned after the retention",
				history: direct}},
	})
}
