package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixtures of liveness as a verdict (liveness.go): a run that did not
// drain names every reason, each with the events behind it; and a job an
// operator brought back ends succeeded once the faults stopped.

// ended is a Final that only says when the run ended.
func ended(t model.Time) Final { return Final{End: t} }

// endedWith is f ending at t.
func endedWith(f Final, t model.Time) Final { f.End = t; return f }

// TestLiveness: finishLiveness, every reason, and nothing pending.
func TestLiveness(t *testing.T) {
	q := phase("quiesce")
	almostDelivered := cat(one(q, enqueue(1), lease(1, 1, 1)), stages(1, 1, 1), delivered(1, 1)[:9]) // e4 committed, never published
	held := cat(almostDelivered, one(publish(1, review, 4), apply(1, review, 4)))                    // e4 never marked
	unapplied := cat(almostDelivered, one(publish(1, review, 4), mark(1, review, 4)))                // e4 never applied
	var tenJobs []model.Event
	for j := model.JobID(1); j <= 10; j++ {
		tenJobs = append(tenJobs, enqueue(j))
	}
	msgs := Final{End: 10 * sec, Messages: []model.Message{
		{ID: 1, Event: 1, Deliveries: 1, Acked: true}, {ID: 2, Event: 2, Deliveries: 1, Acked: true},
		{ID: 3, Event: 3, Deliveries: 1, Acked: true}, {ID: 4, Event: 4, Deliveries: 1}, // the consumer died before its ack
	}}
	head := "the run did not drain in the 9999ms after the faults stopped at 1ms: "
	runOracle(t, Liveness, []fixture{
		{name: "a drained run", history: cat(one(q), clean(1, 1, 1)), final: succeeded(1)},
		{name: "a job still leased", history: one(q, enqueue(1), lease(1, 1, 1)), final: ended(10 * sec), undrained: true,
			want: []want{{0, []uint64{1, 3}, head + "1 jobs still leased: j1 (fence 1, until 30003ms)"}}},
		{name: "a job still waiting", history: one(q, enqueue(1)), final: ended(10 * sec), undrained: true,
			want: []want{{0, []uint64{1, 2}, head + "1 jobs still waiting: j1 pending"}}},
		{name: "a pending job never leased for over a lease", history: one(q, enqueue(1)), final: ended(60 * sec), undrained: true,
			want: []want{{0, []uint64{1, 2}, "1 jobs visible for over a lease yet never leased again (a wake-up that never came): j1 pending since 2ms"}}},
		{name: "a retry whose wake-up never came",
			history: one(q, enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 400*ms), phase("tick")),
			final:   ended(60 * sec), undrained: true,
			want: []want{{0, []uint64{1, 5}, "1 jobs visible for over a lease yet never leased again (a wake-up that never came): j1 retry_wait since 405ms"}}},
		{name: "a dead job still quarantined, which no operator action brings back",
			history: topVersion(cat(one(q, enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError))), final: ended(10 * sec), undrained: true,
			want: []want{{0, []uint64{1, 5}, head + "1 dead jobs still quarantined in the DLQ: j1 (permanent_error)"}}},
		{name: "a dead job still quarantined, which a reprocess brings back (named once, on every run)",
			history: cat(one(q, enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError)), final: ended(10 * sec), undrained: true,
			want: []want{{0, []uint64{5, 6}, "the run ended at 10000ms with 1 dead jobs an operator action could bring back, still dead at the end: j1 (permanent_error; a reprocess at v2 redoes it)"}}},
		{name: "a row never published", history: almostDelivered, final: endedWith(succeeded(1), 10*sec), undrained: true,
			want: []want{{0, []uint64{1, 10}, head + "1 rows committed and never published: e4"}}},
		{name: "a row published and never marked", history: held, final: endedWith(succeeded(1), 10*sec), undrained: true,
			want: []want{{0, []uint64{1, 21}, head + "1 rows published and never marked (held by a relay): e4"}}},
		{name: "an event published and never applied", history: unapplied, final: endedWith(succeeded(1), 10*sec), undrained: true,
			want: []want{{0, []uint64{1, 21}, head + "1 events published and never applied: e4"}}},
		{name: "a message never acked", history: cat(one(q), clean(1, 1, 1)), final: msgs, undrained: true,
			want: []want{{0, []uint64{1, 22}, head + "1 broker messages never acked: message 4 (e4)"}}},
		{name: "a breaker never closed, and the jobs it holds back", cfg: breakerCfg(1),
			history: cat(tripped(true), one(q)), final: ended(10 * sec), undrained: true,
			want: []want{
				{0, []uint64{6, 9, 10}, "the run did not drain in the 9990ms after the faults stopped at 10ms: 2 jobs still waiting: j1 retry_wait, j2 retry_wait"},
				{0, []uint64{8, 10}, "1 breaker not closed: open since 8ms"},
			}},
		{name: "more jobs than listed", history: tenJobs, final: ended(20 * ms), undrained: true,
			want: []want{{0, []uint64{1, 2, 3, 4, 5, 6, 7, 8},
				"the run did not drain by 20ms: 10 jobs still waiting: j1 pending, j2 pending, j3 pending, j4 pending, j5 pending, j6 pending, j7 pending, j8 pending and 2 more"}}},
		{name: "nothing pending", history: cat(one(q), clean(1, 1, 1)), final: endedWith(succeeded(1), 10*sec), undrained: true,
			want: []want{{0, []uint64{1}, head + "nothing in the history or the final state is pending, so the system's own accounting never reached zero"}}},
	})
}

// TestLivenessRevived: finishRevived.
func TestLivenessRevived(t *testing.T) {
	q := phase("quiesce")
	dead1 := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError))
	redriven := cat(dead1, one(q, redrive(1), lease(1, 2, 1)), rest(1, 2, 1))
	// Out of attempts (one, in its configuration), redriven after the faults
	// stopped, poison then: at the largest version, nothing brings it back.
	oneAttempt := cfgWith(func(c *model.Config) { c.MaxAttempts = 1 })
	poisonAgain := topVersion(cat(one(enqueue(1), lease(1, 1, 1)), exhaust(1, 1), one(q, redrive(1), lease(1, 2, 1)), failDead(1, 2, model.CodePoisonSchema)))
	reprocessedOK := cat(dead1, one(q, reprocessed(2), reprocess(1, 2, "op-ana"), lease(2, 2, 1)), retag(rest(2, 2, 1), "acme", "acme:d1:v2"))
	before := cat(dead1, one(redrive(1), lease(1, 2, 1)), rest(1, 2, 1), one(q))
	// After the faults stopped, the redriven job fails on each attempt.
	failsAgain := cat(dead1, one(q, redrive(1)), spentFrom(1, 2), one(failed(1, 4, model.CodeTransient),
		dlqOf(1, model.CodeMaxAttemptsExceeded, 3, 0), dead(1, 4, model.CodeMaxAttemptsExceeded)))
	// The reprocessed job's transient failure is dead-lettered.
	reprocessedDead := cat(dead1, one(q, reprocessed(2), reprocess(1, 2, "op-ana"), lease(2, 2, 1)),
		retag(one(failed(2, 2, model.CodeTransient), dlqOf(2, model.CodeMaxAttemptsExceeded, 1, 0), dead(2, 2, model.CodeMaxAttemptsExceeded)), "acme", "acme:d1:v2"))
	runOracle(t, OperatorActions, []fixture{
		{name: "redriven after the faults stopped, succeeded", history: redriven, final: withAudit(succeeded(1), redriveAudit(1))},
		{name: "redriven after the faults stopped, poison again", history: poisonAgain, final: redriveAudit(1), cfg: oneAttempt},
		{name: "reprocessed after the faults stopped, succeeded", history: reprocessedOK, final: withAudit(reprocessedFinal(), reprocessAudit(1, 2))},
		{name: "redriven and succeeded before the faults stopped", history: before, final: withAudit(succeeded(1), redriveAudit(1))},
		{name: "redriven after the faults stopped, dead with no permanent failure", history: failsAgain, final: redriveAudit(1),
			want: []want{{1, []uint64{6, 7, 17}, "j1, brought back by an operator, ended dead after the faults stopped, with no permanent failure since"}}},
	})
	// The transient failure of the reprocessed job is itself a violation
	// (bounded-retries: it had attempts left); this checker reports the
	// outcome.
	// Redriven after the faults stopped, it waits out its deadline: behind
	// a breaker still open from the faults (excused: the breaker's stop is
	// in the history), or with nothing holding it back.
	cancelledOpen := cat(dead1, one(breakerTo(model.Open), q, redrive(1), at(deadline+10*sec, cancelAtLease(1))))
	cancelledClosed := cat(dead1, one(q, redrive(1), at(deadline+10*sec, cancelAtLease(1))))
	runTable(t, OperatorActions, []fixture{
		{name: "redriven after the faults stopped, cancelled behind an open breaker", history: cancelledOpen, final: redriveAudit(1)},
		{name: "redriven after the faults stopped, cancelled with the breaker closed", history: cancelledClosed, final: redriveAudit(1),
			want: []want{{1, []uint64{6, 7, 8}, "j1, brought back by an operator, ended cancelled after the faults stopped, with no permanent failure since"}}},
		{name: "reprocessed after the faults stopped, dead with no permanent failure", history: reprocessedDead,
			final: withAudit(Final{}, reprocessAudit(1, 2)),
			want:  []want{{2, []uint64{6, 7, 12}, "j2, brought back by an operator, ended dead after the faults stopped, with no permanent failure since"}}},
	})
}

// spentFrom is job j leased under fences first.. and failing transiently
// on attempts 1 and 2, then leased for attempt 3.
func spentFrom(j model.JobID, first uint64) []model.Event {
	return one(lease(j, first, 1), failed(j, first, model.CodeTransient), retry(j, first, 1, 0),
		lease(j, first+1, 2), failed(j, first+1, model.CodeTransient), retry(j, first+1, 2, 0), lease(j, first+2, 3))
}

// reprocessedFinal is job 2, the reprocess of j1 under acme:d1:v2, having
// run its four stages (events 1..4).
func reprocessedFinal() Final {
	var f Final
	finished(&f, 2, "acme", "acme:d1:v2", 1)
	return f
}

func withAudit(f, audit Final) Final { f.Audit = audit.Audit; return f }

func TestLivenessRegressions(t *testing.T) {
	q := phase("quiesce")
	// Redriven during the faults; transient failures and a crash spend its
	// attempts before they stop, and the redelivery after they stopped
	// finds none left: the correct design dead-letters it (no permanent
	// failure since the redrive).
	spentBefore := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError), one(redrive(1)), spentFrom(1, 2),
		one(crash(1, 4), q), from(30014*ms, expiredLease(1, 4, 3), by(w1, dlqOf(1, model.CodeMaxAttemptsExceeded, 3, 0)),
			exhaustedAt(1, 4, 3, model.CodeMaxAttemptsExceeded)))
	// Reprocessed during the faults (the simulator's operator reprocesses
	// poison jobs at once); three crashes spend the new job's attempts, and
	// the redelivery after the faults stopped finds none left.
	v2 := func(evs ...model.Event) []model.Event { return retag(evs, "acme", "acme:d1:v2") }
	crashedOut := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePoisonSchema), one(reprocessed(2), reprocess(1, 2, "op-ana")),
		v2(lease(2, 2, 1), crash(2, 2)), v2(from(30008*ms, expiredLease(2, 2, 1), lease(2, 3, 2), crash(2, 3))...),
		v2(from(60011*ms, expiredLease(2, 3, 2), lease(2, 4, 3), crash(2, 4))...), one(at(60014*ms, q)),
		v2(from(90014*ms, expiredLease(2, 4, 3), by(w1, dlqOf(2, model.CodeMaxAttemptsExceeded, 3, 0)),
			exhaustedAt(2, 4, 3, model.CodeMaxAttemptsExceeded))...))
	// Two regressions of finishRevived, held to its verdict alone: these
	// histories stop where the checked job is dead again, so the runbook's
	// checks see more (each job is a redrive from coming back after the
	// faults stopped; the redrive during the faults was wasted, and the job
	// died again: TestRunbookOutcomes).
	//  - A job reprocessed while the faults were on (the simulator's operator
	//    reprocesses poison at once) whose attempts three crashes spent is
	//    dead-lettered at the first lease after the faults stopped, and was
	//    reported: crashes before the quiesce are no excuse.
	//  - A job redriven while the faults were on, whose attempts the faults
	//    spent, is dead-lettered at the first lease after they stopped; the
	//    check reported it because its end came after the quiesce. It judges
	//    jobs revived after the faults stopped.
	runTable(t, OperatorActions, []fixture{
		{name: "reprocessed during the faults, crashed out after them", history: crashedOut, final: reprocessAudit(1, 2)},
		{name: "revived during the faults, exhausted after them", history: spentBefore, final: redriveAudit(1)},
	})
}

// quiesce records the phase event that stops the faults.
func (h *harness) quiesce() {
	h.Record(&model.Event{Kind: model.EvPhase, Actor: simActor, Text: "quiesce", OK: true, At: h.clk.now})
}

// revivals runs the real model through three revivals after the faults
// stopped: a poison job reprocessed, a job out of attempts (its last
// worker died: dead-lettered at the next lease) redriven, and a job that
// failed permanently past its first stage redriven to resume at its
// checkpoint. It returns the jobs revived (the reprocess's new job first).
func revivals(h *harness) []model.JobID {
	t := h.t
	t.Helper()
	poison := h.enqueue("acme", "d1")
	tired := h.enqueue("acme", "d2")
	h.fail(w0, h.lease(w0), model.CodePoisonSchema)
	for range testCfg.Model.MaxAttempts - 1 {
		h.wait(h.fail(w0, h.lease(w0), model.CodeTransient).Delay)
	}
	h.lease(w0) // the third attempt's worker dies
	halfway := h.enqueue("acme", "d3")
	l := h.lease(w1)
	h.commit(w1, l, model.StageIngest)
	if err := h.sys.Advance(w1, l.Job, l.Fence, model.StageExtract); err != nil {
		t.Fatal(err)
	}
	h.fail(w1, l, model.CodeContextOverflow)
	h.wait(testCfg.Model.Lease)
	if _, ok := h.sys.LeaseNext(w0); ok { // finds the tired job out of attempts
		t.Fatal("a job with no attempt left was leased")
	}
	for _, id := range []model.JobID{poison, tired, halfway} {
		if j, _ := h.sys.Job(id); j.State != model.Dead {
			t.Fatalf("%v is %v, want dead", id, j.State)
		}
	}
	h.quiesce()
	redone, err := h.sys.Reprocess(op, poison, "op-ana")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []model.JobID{tired, halfway} {
		h.wait(testCfg.Model.Redrive.Refill)
		if err := h.sys.Redrive(op, id); err != nil {
			t.Fatal(err)
		}
	}
	drainQueue(h)
	return []model.JobID{redone, tired, halfway}
}

// Each revived job gets fresh attempts and succeeds; no oracle objects.
func TestModelRevivalsAreClean(t *testing.T) {
	h := newHarness(t, "correct")
	revived := revivals(h)
	if got := h.finish(); len(got) != 0 {
		t.Fatalf("revivals: %d violations:\n%s", len(got), lines(got))
	}
	for _, id := range revived {
		if j, _ := h.sys.Job(id); j.State != model.Succeeded || h.suite.known(id).sh.revived == 0 {
			t.Fatalf("%v ended %v, revived %d by the oracle", id, j.State, h.suite.known(id).sh.revived)
		}
	}
	if j, _ := h.sys.Job(revived[2]); j.Attempt != 1 || j.Stage != model.StageDone {
		t.Fatalf("the redriven %v took %d attempts", j.ID, j.Attempt)
	}
}

// The same revivals by a design that redrives under a fresh key, or
// reprocesses without an audit entry, break the operator invariant.
func TestModelRevivalsOfNaiveDesigns(t *testing.T) {
	for _, variant := range []string{"redrive-fresh-key", "reprocess-unaudited"} {
		t.Run(variant, func(t *testing.T) {
			h := newHarness(t, variant)
			revivals(h)
			got := h.finish()
			if len(only(got, OperatorActions)) == 0 {
				t.Fatalf("want a %s violation, got:\n%s", OperatorActions, lines(got))
			}
			t.Log(lines(got))
		})
	}
}
