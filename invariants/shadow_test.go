package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixtures of the shadow account's own numbers (shadow.go) and of the
// lease checks that use them (fencing.go: expired, refusal).

// TestShadowDeadline: expectDeadline.
func TestShadowDeadline(t *testing.T) {
	minute := 60 * sec
	runOracle(t, Consistency, []fixture{
		{name: "the configured deadline", history: clean(1, 1, 1), final: succeeded(1)},
		{name: "the deadline a request asked for",
			history: cat(one(askDeadline(1, minute), withN(minute, enqueue(1)), accept(1), lease(1, 1, 1)), rest(1, 1, 1)),
			final:   succeeded(1)},
		{name: "a deadline no request asked for",
			history: one(withN(2*deadline, enqueue(1))),
			want:    []want{{1, []uint64{1}, "j1 enqueued with a deadline of 1800000ms, but its request asked for 900000ms"}}},
		{name: "the deadline asked for ignored",
			history: one(askDeadline(1, minute), enqueue(1)),
			want:    []want{{1, []uint64{1, 2}, "j1 enqueued with a deadline of 900000ms, but its request asked for 60000ms"}}},
		{name: "a fault on one request leaves the next one's deadline alone",
			history: cat(one(askDeadline(1, minute), withN(minute, enqueue(1)), enqueue(2), lease(1, 1, 1), lease(2, 2, 1)),
				rest(1, 1, 1), rest(2, 2, 5)),
			final: succeeded(1, 2)},
	})
}

// TestShadowFences: grantFence.
func TestShadowFences(t *testing.T) {
	runOracle(t, Fencing, []fixture{
		{name: "fences grow across jobs",
			history: cat(one(enqueue(1), enqueue(2), lease(1, 1, 1), lease(2, 2, 1)), rest(1, 1, 1), rest(2, 2, 5)),
			final:   succeeded(1, 2)},
		{name: "a lease below a fence granted to another job",
			history: one(enqueue(1), enqueue(2), lease(1, 2, 1), lease(2, 1, 1)),
			want:    []want{{2, []uint64{3, 4}, "j2 leased with fence 1, but fence 2 was granted before"}}},
		{name: "one fence granted to two jobs",
			history: one(enqueue(1), enqueue(2), lease(1, 1, 1), lease(2, 1, 1)),
			want:    []want{{2, []uint64{3, 4}, "j2 leased with fence 1, but fence 1 was granted before"}}},
	})
}

// TestShadowAttempts: countAttempt.
func TestShadowAttempts(t *testing.T) {
	runOracle(t, Consistency, []fixture{
		{name: "a retry, then the second attempt",
			history: cat(one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0), lease(1, 2, 2)), rest(1, 2, 1)),
			final:   succeeded(1)},
		{name: "a redrive starts the count again",
			history: cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError), one(redrive(1), lease(1, 2, 1)), rest(1, 2, 1)),
			final:   full(succeeded(1), func(f *Final) { f.Audit = redriveAudit(1).Audit })},
		{name: "a first lease that says attempt 2",
			history: one(enqueue(1), lease(1, 1, 2)),
			want:    []want{{1, []uint64{1, 2}, "j1 lease says attempt 2, the history counts 1 since its enqueue"}}},
		{name: "a redriven job that kept its count",
			history: cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError), one(redrive(1), lease(1, 2, 2))),
			want:    []want{{1, []uint64{6, 7}, "j1 lease says attempt 2, the history counts 1 since its last redrive"}}},
		{name: "a redelivery not counted",
			history: one(enqueue(1), lease(1, 1, 1), crash(1, 1), at(30002*ms, expiredLease(1, 1, 1)), at(30002*ms, by(w1, lease(1, 2, 1)))),
			want:    []want{{1, []uint64{1, 5}, "j1 lease says attempt 1, the history counts 2 since its enqueue"}}},
	})
}

// TestShadowLeaseSpan: span.
func TestShadowLeaseSpan(t *testing.T) {
	runOracle(t, Consistency, []fixture{
		{name: "lease and heartbeat of the configured span",
			history: cat(one(enqueue(1), lease(1, 1, 1), heartbeat(1, 1)), rest(1, 1, 1)), final: succeeded(1)},
		{name: "a lease longer than configured",
			history: one(enqueue(1), withN(60*sec, lease(1, 1, 1))),
			want:    []want{{1, []uint64{2}, "j1 lease announces a lease of 60000ms, the configuration gives 30000ms"}}},
		{name: "a heartbeat shorter than configured",
			history: one(enqueue(1), lease(1, 1, 1), withN(10*sec, heartbeat(1, 1))),
			want:    []want{{1, []uint64{3}, "j1 heartbeat announces a lease of 10000ms, the configuration gives 30000ms"}}},
	})
	// The oracle extends a lease by the configured span, not the announced
	// one: a lease announcing 60s does not keep another worker out at 31s.
	got := only(Check(testCfg, hist(enqueue(1), withN(60*sec, lease(1, 1, 1)), at(31*sec, by(w1, lease(1, 2, 2)))), Final{}, false), Fencing)
	if len(got) != 0 {
		t.Fatalf("a lease judged by its announced span:\n%s", lines(got))
	}
}

// redelivered is job 1 leased at 2ms by a worker that crashed, and
// redelivered to w1 once its lease ran out, at 30002ms.
func redelivered() []model.Event {
	return cat(one(enqueue(1), lease(1, 1, 1), crash(1, 1)),
		from(30002*ms, cat(one(expiredLease(1, 1, 1), by(w1, lease(1, 2, 2))), rest(1, 2, 1))...))
}

// TestShadowExpiry: expired.
func TestShadowExpiry(t *testing.T) {
	runOracle(t, Consistency, []fixture{
		{name: "the expired lease is the current one", history: redelivered(), final: succeeded(1)},
		{name: "an expiry naming another fence",
			history: one(enqueue(1), lease(1, 1, 1), crash(1, 1), at(30002*ms, expiredLease(1, 2, 1))),
			want:    []want{{1, []uint64{2, 4}, "j1 lease of fence 2 attempt 1 expired, the history holds fence 1 attempt 1"}}},
		{name: "an expiry naming another attempt",
			history: one(enqueue(1), lease(1, 1, 1), crash(1, 1), at(30002*ms, expiredLease(1, 1, 2))),
			want:    []want{{1, []uint64{2, 4}, "j1 lease of fence 1 attempt 2 expired, the history holds fence 1 attempt 1"}}},
	})
	runOracle(t, Fencing, []fixture{
		{name: "expired when its time was up", history: redelivered(), final: succeeded(1)},
		{name: "expired while valid",
			history: one(enqueue(1), lease(1, 1, 1), crash(1, 1), at(20*sec, expiredLease(1, 1, 1))),
			want:    []want{{1, []uint64{2, 4}, "j1 lease of fence 1 declared expired at 20000ms, but it is valid until 30002ms"}}},
		{name: "expired while a heartbeat kept it valid",
			history: one(enqueue(1), lease(1, 1, 1), at(10*sec, heartbeat(1, 1)), at(35*sec, expiredLease(1, 1, 1))),
			want:    []want{{1, []uint64{2, 3, 4}, "j1 lease of fence 1 declared expired at 35000ms, but it is valid until 40000ms"}}},
	})
}

// staleRefused is a refusal of a call with an old fence, naming the
// current one as the queue does (N2).
func staleRefused(e model.Event, current uint64) model.Event {
	return withN2(int64(current), rejected(e, model.CodeStaleFence))
}

// TestShadowRefusals: refusal.
func TestShadowRefusals(t *testing.T) {
	zombie := cat(one(enqueue(1), lease(1, 1, 1), at(31*sec, expiredLease(1, 1, 1)), at(31*sec, by(w1, lease(1, 2, 2))), at(32*sec, staleRefused(heartbeat(1, 1), 2))),
		from(33*sec, rest(1, 2, 1)...))
	late := cat(clean(1, 1, 1), one(rejected(heartbeat(1, 1), model.CodeNotLeased)))
	runOracle(t, Fencing, []fixture{
		{name: "a zombie's heartbeat refused as stale", history: zombie, final: succeeded(1)},
		{name: "a heartbeat after the ack refused as not leased", history: late, final: succeeded(1)},
		{name: "the current fence refused as stale",
			history: one(enqueue(1), lease(1, 1, 1), staleRefused(heartbeat(1, 1), 1)),
			want:    []want{{1, []uint64{2, 3}, "j1 heartbeat with the current fence 1 refused as stale"}}},
		{name: "the holder refused as not leased",
			history: one(enqueue(1), lease(1, 1, 1), rejected(advance(1, 1, extract), model.CodeNotLeased)),
			want:    []want{{1, []uint64{2, 3}, "j1 advance refused as not leased, but fence 1 holds its lease"}}},
	})
	runOracle(t, Consistency, []fixture{
		{name: "a refusal naming the current fence", history: zombie, final: succeeded(1)},
		{name: "a refusal naming a fence never granted",
			history: one(enqueue(1), lease(1, 1, 1), at(31*sec, expiredLease(1, 1, 1)), at(31*sec, by(w1, lease(1, 2, 2))), at(32*sec, staleRefused(ack(1, 1), 3))),
			want:    []want{{1, []uint64{4, 5}, "j1 ack refusal names fence 3 as current, the history 2"}}},
		{name: "a lease taken over with no expiry announced",
			history: one(enqueue(1), lease(1, 1, 1), at(31*sec, by(w1, lease(1, 2, 2)))),
			want:    []want{{1, []uint64{2, 3}, "j1 lease by w1 takes over the lease of fence 1 held by w0, with no lease_expired announcing its end"}}},
		{name: "an expiry announced in another worker's name",
			history: one(enqueue(1), lease(1, 1, 1), at(31*sec, by(w1, expiredLease(1, 1, 1)))),
			want:    []want{{1, []uint64{2, 3}, "j1 lease of fence 1 expired in the name of w1, but w0 holds it"}}},
	})
}

// toldRefused is an actor's record that the system refused its call.
func toldRefused(e model.Event, call model.EventKind, c model.Code) model.Event {
	return model.Event{Kind: model.EvRefused, Actor: e.Actor, Job: e.Job, Fence: e.Fence, Code: c, Text: "call=" + call.String()}
}

// TestRefusalRecords: refusedCall — an actor's record of a refusal must
// follow the system's record of the same refusal.
func TestRefusalRecords(t *testing.T) {
	beat := staleRefused(heartbeat(1, 1), 2)
	zombie := one(enqueue(1), lease(1, 1, 1), at(31*sec, expiredLease(1, 1, 1)), at(31*sec, by(w1, lease(1, 2, 2))))
	then := from(33*sec, rest(1, 2, 1)...)
	runOracle(t, Consistency, []fixture{
		{name: "a zombie told its heartbeat was stale, as the queue recorded",
			history: cat(zombie, one(at(32*sec, beat), at(32*sec, toldRefused(beat, model.EvHeartbeat, model.CodeStaleFence))), then), final: succeeded(1)},
		{name: "a zombie told of a refusal the queue never recorded",
			history: cat(zombie, one(at(32*sec, toldRefused(beat, model.EvHeartbeat, model.CodeStaleFence))), then), final: succeeded(1),
			want: []want{{1, []uint64{4, 5}, "w0 was refused its heartbeat of j1 (stale_fence), and the system recorded no such refusal"}}},
		{name: "told another reason than the queue recorded",
			history: cat(zombie, one(at(32*sec, beat), at(32*sec, toldRefused(beat, model.EvHeartbeat, model.CodeNotLeased))), then), final: succeeded(1),
			want: []want{{1, []uint64{5, 6}, "w0 was refused its heartbeat of j1 (not_leased), and the system recorded no such refusal"}}},
	})
	// A worker told the breaker held a ready job back: the queue's record
	// of that refusal (a lease event with code breaker_open) comes first.
	heldUp := cat(halfOpen(), one(at(30009*ms, lease(1, 3, 2)), at(30010*ms, held(2))))
	runTable(t, Consistency, []fixture{
		{name: "a worker told the breaker held a job back, as the queue recorded",
			history: cat(heldUp, one(at(30010*ms, toldRefused(held(2), model.EvLease, model.CodeBreakerOpen))))},
		{name: "a worker told the breaker held a job back, with no record of it",
			history: cat(halfOpen(), one(at(30009*ms, lease(1, 3, 2)), at(30010*ms, toldRefused(held(2), model.EvLease, model.CodeBreakerOpen)))),
			want:    []want{{2, []uint64{11, 12}, "w1 was refused its lease of j2 (breaker_open), and the system recorded no such refusal"}}},
	})
}
