package invariants

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

func TestBoundedRetries(t *testing.T) {
	fixed := testCfg
	fixed.Model.Retry.Strategy = model.Fixed
	runTable(t, BoundedRetries, []fixture{
		{name: "three attempts, delays within the full-jitter bounds",
			history: one(enqueue(1), lease(1, 1, 1), retry(1, 1, 1, 400*ms),
				at(500*ms, lease(1, 2, 2)), at(501*ms, retry(1, 2, 2, 800*ms)),
				at(2000*ms, lease(1, 3, 3)), at(2001*ms, ack(1, 3)))},
		{name: "a retry with no attempt left, then a fourth attempt",
			history: one(enqueue(1), lease(1, 1, 1), retry(1, 1, 1, 0), lease(1, 2, 2), retry(1, 2, 2, 0),
				lease(1, 3, 3), retry(1, 3, 3, 0), lease(1, 4, 4)),
			want: []want{
				{1, []uint64{6, 7}, "j1 retried after attempt 3 of at most 3"},
				{1, []uint64{8}, "j1 leased for attempt 4 of at most 3"},
			}},
		{name: "lease after dead",
			history: one(enqueue(1), lease(1, 1, 1), dead(1, 1, model.CodePermanentError), lease(1, 2, 1)),
			want:    []want{{1, []uint64{3, 4}, "j1 leased after it went dead"}}},
		{name: "redrive brings a dead job back",
			history: one(enqueue(1), lease(1, 1, 1), dead(1, 1, model.CodeMaxAttemptsExceeded), redrive(1), lease(1, 2, 1), ack(1, 2))},
		{name: "lease after cancelled, even after a redrive",
			history: one(enqueue(1), at(deadline+ms, cancelAtLease(1)), redrive(1), lease(1, 1, 1)),
			want:    []want{{1, []uint64{2, 4}, "j1 leased after it went cancelled"}}},
		{name: "retry after dead",
			history: one(enqueue(1), lease(1, 1, 1), dead(1, 1, model.CodePermanentError), retry(1, 1, 1, 0)),
			want:    []want{{1, []uint64{3, 4}, "j1 retried after it went dead"}}},
		{name: "lease at the deadline",
			history: one(enqueue(1), at(ms+deadline, lease(1, 1, 1))),
			want:    []want{{1, []uint64{1, 2}, "j1 leased at 900001ms, at or after its deadline 900001ms"}}},
		{name: "lease just before the deadline",
			history: one(enqueue(1), at(deadline, lease(1, 1, 1)))},
		{name: "retry delay beyond the full-jitter bound",
			history: one(enqueue(1), lease(1, 1, 1), retry(1, 1, 1, 401*ms)),
			want:    []want{{1, []uint64{2, 3}, "j1 retry delay 401ms outside [0, 400ms] for attempt 1 (full-jitter)"}}},
		{name: "negative retry delay",
			history: one(enqueue(1), lease(1, 1, 1), retry(1, 1, 1, -ms)),
			want:    []want{{1, []uint64{2, 3}, "retry delay -1ms outside [0, 400ms]"}}},
		{name: "bound taken from the lease's attempt, not the event's",
			history: one(enqueue(1), lease(1, 1, 1), retry(1, 1, 2, 800*ms)),
			want:    []want{{1, []uint64{2, 3}, "retry delay 800ms outside [0, 400ms] for attempt 1"}}},
		{name: "fixed strategy: the base is the bound",
			cfg:     &fixed,
			history: one(enqueue(1), lease(1, 1, 1), retry(1, 1, 1, 200*ms), at(203*ms, lease(1, 2, 2)), at(204*ms, retry(1, 2, 2, 201*ms))),
			want:    []want{{1, []uint64{4, 5}, "retry delay 201ms outside [0, 200ms] for attempt 2 (fixed)"}}},
	})
}

// The bound is computed independently of the model; it must agree with the
// model's own for every strategy and attempt.
func TestBackoffBoundMatchesModel(t *testing.T) {
	for _, c := range []model.RetryConfig{
		model.DefaultConfig().Retry,
		{Strategy: model.Exponential, Base: 3, Cap: 1 << 40},
		{Strategy: model.Fixed, Base: 7 * ms, Cap: 9 * ms},
		{Strategy: model.FullJitter, Base: 5, Cap: 5},
		{Strategy: model.FullJitter, Base: 1, Cap: 1 << 62}, // the model's doubling overflows above 2^62
	} {
		for a := int32(0); a < 70; a++ {
			got, ok := backoffBound(c, a)
			if want := model.BackoffBound(c, a); !ok || got != want {
				t.Errorf("backoffBound(%+v, %d) = %d, %v; model says %d", c, a, got, ok, want)
			}
		}
	}
}

// A redrive gives the job a new deadline (model.System.Redrive): a lease
// after the original deadline but before the new one is fine, and one after
// the new deadline is not.
func TestRedriveMovesTheDeadline(t *testing.T) {
	base := []model.Event{
		{Seq: 1, At: 0, Kind: model.EvEnqueue, Job: 1, Tenant: "acme", Key: "acme:d:v1", N: 1000, N2: 1, OK: true},
		{Seq: 2, At: 10, Kind: model.EvLease, Job: 1, Fence: 1, Attempt: 1, N: 100, OK: true},
		{Seq: 3, At: 20, Kind: model.EvDead, Job: 1, Fence: 1, Code: model.CodeMaxAttemptsExceeded, OK: true},
		{Seq: 4, At: 500, Kind: model.EvRedrive, Job: 1, Tenant: "acme", Key: "acme:d:v1", N: 1, N2: 5000, OK: true},
	}
	cfg := Config{Model: model.DefaultConfig()}
	cfg.Model.Deadline = 5000 // what the redrive's N2 announces
	late := model.Event{Seq: 5, At: 2000, Kind: model.EvLease, Job: 1, Fence: 2, Attempt: 1, N: 100, OK: true}
	for _, v := range Check(cfg, append(base[:4:4], late), Final{}, false) {
		if v.Invariant == BoundedRetries {
			t.Fatalf("lease before the redriven deadline flagged: %v", v)
		}
	}
	tooLate := late
	tooLate.At = 6000
	found := false
	for _, v := range Check(cfg, append(base[:4:4], tooLate), Final{}, false) {
		found = found || v.Invariant == BoundedRetries && strings.Contains(v.Message, "deadline")
	}
	if !found {
		t.Fatal("lease after the redriven deadline not flagged")
	}
}
