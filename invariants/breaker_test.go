package invariants

import (
	"slices"
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixtures of the reference circuit breaker (breaker.go). The breaker of
// these fixtures opens when half of at least two outcomes failed, cools
// down for 30s and admits canaries (one, unless a fixture says two).

func breakerCfg(canaries int32) *Config {
	return cfgWith(func(c *model.Config) {
		c.Breaker = model.BreakerConfig{Window: 4, MinSamples: 2, ThresholdPPM: 500_000, Cooldown: 30 * sec, Canaries: canaries}
	})
}

// tripped is two jobs failing on their first attempt; the second failure
// opens the breaker (#8, at 8ms) unless announce is false.
func tripped(announce bool) []model.Event {
	h := one(enqueue(1), enqueue(2), lease(1, 1, 1), lease(2, 2, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0),
		failed(2, 2, model.CodeTransient))
	if announce {
		h = append(h, breakerTo(model.Open))
	}
	return append(h, retry(2, 2, 1, 0))
}

// halfOpen is the breaker half-open a cool-down after tripped(true): #10,
// at 30008ms.
func halfOpen() []model.Event {
	return cat(tripped(true), one(at(30008*ms, breakerTo(model.HalfOpen))))
}

// closing is job j's stages under fence whose ack closes the breaker.
func closing(j model.JobID, fence uint64, first model.EventID) []model.Event {
	s := stages(j, fence, first)
	return cat(s[:7], one(breakerTo(model.Closed)), s[7:])
}

// cycle is closed → open → half-open → closed: j1 is the canary, j2 runs
// once the breaker closed.
func cycle() []model.Event {
	return cat(halfOpen(), from(30009*ms, cat(one(lease(1, 3, 2)), closing(1, 3, 1), one(lease(2, 4, 2)), rest(2, 4, 5), delivered(1, 1))...))
}

// reopened is a canary that fails: open again, and after another
// cool-down a canary that closes it.
func reopened() []model.Event {
	return cat(halfOpen(), from(30009*ms, lease(1, 3, 2), failed(1, 3, model.CodeTransient), breakerTo(model.Open), retry(1, 3, 2, 0)),
		from(60012*ms, cat(one(breakerTo(model.HalfOpen), lease(2, 4, 2)), closing(2, 4, 1), one(lease(1, 5, 3)), rest(1, 5, 5), delivered(2, 1))...))
}

// crashedCanary is a canary whose worker dies: a cool-down later the
// breaker admits another round, and the redelivered job closes it.
func crashedCanary() []model.Event {
	// A cool-down later the next canary is j2, ready since its retry
	// (before j1's lease ended): the queue hands it out first.
	return cat(halfOpen(), one(at(30009*ms, lease(1, 3, 2)), crash(1, 3)),
		from(60009*ms, cat(one(lease(2, 4, 2)), closing(2, 4, 1), one(expiredLease(1, 3, 2), lease(1, 5, 3)), rest(1, 5, 5), delivered(2, 1))...))
}

func TestBreaker(t *testing.T) {
	one1, two := breakerCfg(1), breakerCfg(2)
	// cutCfg: j1's deadline (enqueued at 1ms) falls just after the first
	// canary's lease at 30009ms.
	cutCfg := breakerCfg(1)
	cutCfg.Model.Deadline = 30009 * ms
	// j1 has the configured deadline, 30010ms; j2, the canary that closes
	// the breaker after j1's cut, asked for a minute (its work must end
	// before its deadline: deadline.go).
	cutHalfOpen := func() []model.Event {
		h := halfOpen()
		for i := range h {
			if h[i].Kind == model.EvEnqueue {
				h[i].N = cutCfg.Model.Deadline
			}
		}
		h[1].N = 60 * sec
		for i := range h {
			if h[i].At == 0 {
				h[i].At = model.Time(i+1) * ms // the times hist gives them, kept past the insert
			}
		}
		return slices.Insert(h, 1, at(ms, askDeadline(2, 60*sec)))
	}
	cancelledAnd := func(cut, done model.JobID) Final {
		f := succeeded(done)
		f.Jobs = append(f.Jobs, model.Job{ID: cut, Tenant: "acme", Key: key(cut), State: model.Cancelled})
		return f
	}
	runOracle(t, Breaker, []fixture{
		{name: "closed, open, half-open, closed", cfg: one1, history: cycle(), final: succeeded(1, 2)},
		{name: "a failed canary opens it again", cfg: one1, history: reopened(), final: succeeded(2, 1)},
		{name: "a crashed canary's round given up after a cool-down", cfg: one1, history: crashedCanary(), final: succeeded(2, 1)},
		{name: "two canaries close it", cfg: two,
			history: cat(halfOpen(), from(30009*ms, cat(one(lease(1, 3, 2), lease(2, 4, 2)), stages(1, 3, 1), closing(2, 4, 5),
				delivered(1, 1), delivered(2, 5))...)),
			final: succeeded(1, 2)},
		// breakerCut
		{name: "a canary cut at its deadline gives its slot back", cfg: cutCfg,
			history: cat(cutHalfOpen(), one(at(30009*ms, lease(1, 3, 2)), at(30010*ms, failed(1, 3, model.CodeDeadlineExceeded)),
				at(30010*ms, cancelled(1, 3)), at(30010*ms, lease(2, 4, 2))), from(30011*ms, cat(closing(2, 4, 1), delivered(2, 1))...)),
			final: cancelledAnd(1, 2)},
		{name: "a canary cut at its deadline opens it", cfg: cutCfg,
			history: cat(cutHalfOpen(), one(at(30009*ms, lease(1, 3, 2)), at(30010*ms, failed(1, 3, model.CodeDeadlineExceeded)),
				at(30010*ms, breakerTo(model.Open)), at(30010*ms, cancelled(1, 3)))),
			want: []want{{0, []uint64{10, 14}, "breaker went open with no attempt outcome to cause it"}}},
		// breakerEvent
		{name: "closed to half-open", cfg: one1,
			history: one(breakerTo(model.HalfOpen)),
			want:    []want{{0, []uint64{1}, "breaker went from closed to half-open"}}},
		{name: "open to closed", cfg: one1,
			history: cat(tripped(true), one(breakerTo(model.Closed))),
			want:    []want{{0, []uint64{8, 10}, "breaker went from open to closed"}}},
		{name: "half-open before the cool-down", cfg: one1,
			history: cat(tripped(true), one(at(10*sec, breakerTo(model.HalfOpen)))),
			want:    []want{{0, []uint64{8, 10}, "breaker half-open at 10000ms, 9992ms after it opened: before the cool-down of 30000ms"}}},
		// breakerLease
		{name: "a lease while open", cfg: one1,
			history: cat(tripped(true), one(at(20*ms, lease(1, 3, 2)))),
			want:    []want{{1, []uint64{8, 10}, "j1 leased while the breaker is open"}}},
		{name: "two canaries where one is admitted", cfg: one1,
			history: cat(halfOpen(), from(30009*ms, lease(1, 3, 2), lease(2, 4, 2))),
			want:    []want{{2, []uint64{10, 12}, "j2 is canary 2 of a half-open breaker that admits 1 per cool-down"}}},
		// breakerOutcome
		{name: "open at an outcome that does not open it", cfg: one1,
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), breakerTo(model.Open), retry(1, 1, 1, 0)),
			want:    []want{{1, []uint64{4, 5}, "breaker went open at this outcome, but the history counts 1 failures in the last 1 outcomes"}}},
		{name: "no open at the outcome that opens it", cfg: one1,
			history: tripped(false),
			want:    []want{{2, []uint64{6, 8}, "breaker should have gone open at this outcome: the history counts 2 failures in the last 2 outcomes"}}},
		{name: "closed by the first of two canaries", cfg: two,
			history: cat(halfOpen(), from(30009*ms, cat(one(lease(1, 3, 2), lease(2, 4, 2)), closing(1, 3, 1))...)),
			want:    []want{{1, []uint64{10, 20, 21}, "breaker went closed at this outcome"}}},
		{name: "a failed canary that does not open it", cfg: one1,
			history: cat(halfOpen(), from(30009*ms, lease(1, 3, 2), failed(1, 3, model.CodeTransient), retry(1, 3, 2, 0))),
			want:    []want{{1, []uint64{10, 13}, "breaker should have gone open at this outcome"}}},
		{name: "a failed canary that closes it", cfg: one1,
			history: cat(halfOpen(), from(30009*ms, lease(1, 3, 2), failed(1, 3, model.CodeTransient), breakerTo(model.Closed), retry(1, 3, 2, 0))),
			want: []want{
				{1, []uint64{10, 13, 14}, "breaker went closed at this outcome"},
				{1, []uint64{10, 14}, "breaker should have gone open at this outcome"},
			}},
		{name: "a dead letter is a failure too", cfg: one1,
			history: one(enqueue(1), enqueue(2), lease(1, 1, 1), lease(2, 2, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0),
				failed(2, 2, model.CodePermanentError), dlqOf(2, model.CodePermanentError, 1, 0), dead(2, 2, model.CodePermanentError)),
			want: []want{{2, []uint64{6, 8}, "breaker should have gone open at this outcome: the history counts 2 failures in the last 2 outcomes"}}},
	})
}

// TestBreakerWindow: the reference counts the last Window outcomes, not
// all of them. With a window of 4 and a threshold of 3 failures in 4, two
// successes then three failures open the breaker at the fifth outcome
// (3/4 in the window; 3/5 overall would not).
func TestBreakerWindow(t *testing.T) {
	cfg := cfgWith(func(c *model.Config) {
		c.Breaker = model.BreakerConfig{Window: 4, MinSamples: 4, ThresholdPPM: 750_000, Cooldown: 30 * sec, Canaries: 1}
	})
	// #1..#46: j1 and j2 succeed; #47..#57: j3, j4 and j5 fail.
	failing := cat(clean(1, 1, 1), clean(2, 2, 5), one(enqueue(3), enqueue(4), enqueue(5), lease(3, 3, 1), lease(4, 4, 1), lease(5, 5, 1),
		failed(3, 3, model.CodeTransient), retry(3, 3, 1, 0), failed(4, 4, model.CodeTransient), retry(4, 4, 1, 0), failed(5, 5, model.CodeTransient)))
	opens := cat(failing, one(breakerTo(model.Open), retry(5, 5, 1, 0)),
		from(30058*ms, cat(one(breakerTo(model.HalfOpen), lease(3, 6, 2)), closing(3, 6, 9), one(lease(4, 7, 2)), rest(4, 7, 13),
			one(lease(5, 8, 2)), rest(5, 8, 17), delivered(3, 9))...))
	runOracle(t, Breaker, []fixture{
		{name: "old successes slide out of the window", cfg: cfg, history: opens, final: succeeded(1, 2, 3, 4, 5)},
		{name: "no open when the window says so", cfg: cfg, history: cat(failing, one(retry(5, 5, 1, 0))),
			want: []want{{5, []uint64{56, 58}, "breaker should have gone open at this outcome: the history counts 3 failures in the last 4 outcomes"}}},
	})
}

func TestBreakerRegressions(t *testing.T) {
	one1, two := breakerCfg(1), breakerCfg(2)
	runRegressions(t, []regression{
		{bug: "breakerOutcome: a close announced before enough canaries succeeded is explained by the closed-state window " +
			"('the history counts 2 failures in the last 2 outcomes'), which says nothing about the half-open rule it broke: " +
			"the message should count the canaries (1 of 2 succeeded)",
			inv: Breaker, fixture: fixture{name: "closed by the first of two canaries, explained by the canaries", cfg: two,
				history: cat(halfOpen(), from(30009*ms, cat(one(lease(1, 3, 2), lease(2, 4, 2)), closing(1, 3, 1))...)),
				want:    []want{{1, []uint64{10, 20, 21}, "canar"}}}},
		{bug: "breakerOutcome: a failed canary that does not reopen the breaker is proved by the outcome that opened it a cool-down " +
			"earlier (#9) and explained by the closed-state window; the events that prove it are the half-open announcement (#10) " +
			"and the canary's failure",
			inv: Breaker, fixture: fixture{name: "a failed canary that does not open it, proved by the half-open", cfg: one1,
				history: cat(halfOpen(), from(30009*ms, lease(1, 3, 2), failed(1, 3, model.CodeTransient), retry(1, 3, 2, 0))),
				want:    []want{{1, []uint64{10, 13}, "canar"}}}},
		{bug: "breakerOutcome: an announced transition is judged only at the next outcome, so one announced after the last " +
			"outcome of a run is never judged: a breaker that opens for no reason once the work is done passes a drained run",
			inv: Breaker, fixture: fixture{name: "an open announced after the last outcome", cfg: one1,
				history: cat(clean(1, 1, 1), one(breakerTo(model.Open))), final: succeeded(1),
				want: []want{{0, []uint64{11, 24}, "breaker went open"}}}},
	})
}

// drainQueue leases and works every job left, waiting for each to become
// visible, and relays every row: the model's own queue to the end.
func drainQueue(h *harness) {
	h.t.Helper()
	for range 100 {
		l, ok := h.sys.LeaseNext(w0)
		if ok {
			h.work(w0, l)
			continue
		}
		next, waiting := h.sys.NextReadyAt()
		if !waiting {
			h.relay()
			return
		}
		h.clk.now = max(h.clk.now+ms, next)
	}
	h.t.Fatal("the queue did not drain")
}

// wantBreaker checks the breaker state the model last announced.
func wantBreaker(h *harness, st model.BreakerState, when string) {
	h.t.Helper()
	if got := h.suite.brk.state; got != st {
		h.t.Fatalf("%s: breaker %v, want %v", when, got, st)
	}
}

// The real model through closed → open → half-open → open (a canary
// fails) → half-open → closed, with a canary whose worker dies and a round
// given up after a cool-down: the reference breaker and every other oracle
// agree with it.
func TestModelBreakerCycleIsClean(t *testing.T) {
	h := newHarness(t, "correct")
	cool := testCfg.Model.Breaker.Cooldown
	for _, doc := range []string{"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"} {
		h.enqueue("acme", doc)
	}
	for range testCfg.Model.Breaker.MinSamples { // every outcome a failure
		h.wait(ms)
		h.fail(w0, h.lease(w0), model.CodeTransient)
	}
	wantBreaker(h, model.Open, "after ten failures")
	if l, ok := h.sys.LeaseNext(w0); ok {
		t.Fatalf("leased %v while open", l.Job)
	}
	h.wait(cool)
	h.fail(w0, h.lease(w0), model.CodeTransient) // the first canary fails
	wantBreaker(h, model.Open, "after a failed canary")
	h.wait(cool)
	lost := h.lease(w0) // its worker dies
	h.work(w1, h.lease(w1))
	wantBreaker(h, model.HalfOpen, "one canary of two passed")
	if l, ok := h.sys.LeaseNext(w0); ok {
		t.Fatalf("a third canary %v", l.Job)
	}
	h.wait(cool) // the round is given up; the dead canary's slot goes to another job
	h.work(w1, h.lease(w1))
	wantBreaker(h, model.Closed, "two canaries passed")
	if ref := h.suite.brk.state; ref != model.Closed {
		t.Fatalf("the reference breaker followed the model to %v", ref)
	}
	drainQueue(h)
	if got := h.finish(); len(got) != 0 {
		t.Fatalf("breaker cycle: %d violations:\n%s", len(got), lines(got))
	}
	if j, _ := h.sys.Job(lost.Job); j.State != model.Succeeded || h.sys.Live() != 0 {
		t.Fatalf("the lost canary's job ended %v; %d jobs live", j.State, h.sys.Live())
	}
}

// held is a lease of job j the breaker refused (LeaseNext's record).
func held(j model.JobID) model.Event {
	e := jobEv(model.EvLease, w1, j)
	e.Code, e.OK = model.CodeBreakerOpen, false // a refusal, as the model records it
	return e
}

// TestBreakerRefusals: breakerRefusal — each lease the breaker refused is
// judged against the reference's state and canary slots.
func TestBreakerRefusals(t *testing.T) {
	one1, two := breakerCfg(1), breakerCfg(2)
	heldThroughout := cat(tripped(true), one(at(20*sec, held(2)), at(30008*ms, breakerTo(model.HalfOpen))),
		from(30009*ms, cat(one(lease(1, 3, 2), held(2)), closing(1, 3, 1), one(lease(2, 4, 2)), rest(2, 4, 5), delivered(1, 1))...))
	runOracle(t, Breaker, []fixture{
		{name: "refused while open, then while its one canary runs", cfg: one1, history: heldThroughout, final: succeeded(1, 2)},
		{name: "refused by a closed breaker", cfg: one1,
			history: cat(one(enqueue(1), held(1), lease(1, 1, 1)), rest(1, 1, 1)), final: succeeded(1),
			want: []want{{1, []uint64{2}, "lease of j1 refused as breaker_open, but the breaker is closed"}}},
		{name: "refused past the cool-down", cfg: one1,
			history: cat(tripped(true), one(at(30008*ms, held(2))), cycle()[len(tripped(true)):]), final: succeeded(1, 2),
			want: []want{{2, []uint64{8, 10}, "lease of j2 refused 30000ms after the breaker opened, past its cool-down of 30000ms"}}},
		{name: "refused with a canary slot free", cfg: two,
			history: cat(halfOpen(), from(30009*ms, cat(one(lease(1, 3, 2), held(2), lease(2, 4, 2)), stages(1, 3, 1), closing(2, 4, 5),
				delivered(1, 1), delivered(2, 5))...)), final: succeeded(1, 2),
			want: []want{{2, []uint64{10, 12}, "lease of j2 refused by a half-open breaker with 1 of its 2 canary slots taken"}}},
	})
}
