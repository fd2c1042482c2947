package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixtures of the retry policy recomputed from the history (policy.go).

// fromStage is a job's stages under fence from stage st on, events
// numbered as stages numbers them.
func fromStage(j model.JobID, fence uint64, first model.EventID, st model.Stage) []model.Event {
	return stages(j, fence, first)[2*st:]
}

// retried is job 1 failing transiently on attempt 1 at 10ms, retried with
// delay d, and leased again when it became visible.
func retried(d model.Time) []model.Event {
	return cat(one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), at(10*ms, retry(1, 1, 1, d))),
		from(10*ms+d, cat(one(lease(1, 2, 2)), rest(1, 2, 1))...))
}

// spent is job 1 failing transiently on each of its three attempts; the
// last failure is left to the caller.
func spent() []model.Event {
	return one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0),
		lease(1, 2, 2), failed(1, 2, model.CodeTransient), retry(1, 2, 2, 0), lease(1, 3, 3))
}

// TestPolicyVisibility: leaseTimely.
func TestPolicyVisibility(t *testing.T) {
	runOracle(t, BoundedRetries, []fixture{
		{name: "leased when the retry made it visible", history: retried(400 * ms), final: succeeded(1)},
		{name: "leased before the retry made it visible",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), at(10*ms, retry(1, 1, 1, 400*ms)), at(300*ms, lease(1, 2, 2))),
			want:    []want{{1, []uint64{4, 5}, "j1 leased at 300ms, before 410ms, when it became visible"}}},
	})
}

// TestPolicyRetry: retryPolicy.
func TestPolicyRetry(t *testing.T) {
	thrifty := cat(one(enqueue(1), lease(1, 1, 1), work(1, 1, ingest, 5999), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0), lease(1, 2, 2)),
		rest(1, 2, 1))
	runOracle(t, Consistency, []fixture{
		{name: "a retry after the worker reported a failure", history: retried(0), final: succeeded(1)},
		{name: "a retry with no failure reported",
			history: one(enqueue(1), lease(1, 1, 1), retry(1, 1, 1, 0)),
			want:    []want{{1, []uint64{2, 3}, "j1 retried by w0 with no failure reported under fence 1"}}},
		{name: "a retry by a worker other than the one that failed",
			history: one(enqueue(1), lease(1, 1, 1), by(w1, failed(1, 1, model.CodeTransient)), retry(1, 1, 1, 0)),
			want: []want{
				{1, []uint64{3, 4}, "j1 failure reported by w1 has no answer from the queue: the job's next event is retry by w0"},
				{1, []uint64{2, 4}, "j1 retried by w0 with no failure reported under fence 1"}}},
		{name: "a failure answered by a DLQ write of the same worker",
			history: cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError))},
		{name: "a failure the queue never answered, the lease then expiring",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), at(31*sec, expiredLease(1, 1, 1))),
			want:    []want{{1, []uint64{3, 4}, "j1 failure reported by w0 has no answer from the queue: the job's next event is lease_expired by w0"}}},
		{name: "a run that ends on a failure report",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient)),
			want:    []want{{1, []uint64{3}, "j1 failure reported by w0 has no answer from the queue: the history ends there"}}},
	})
	runOracle(t, BoundedRetries, []fixture{
		{name: "a transient failure with budget left", history: thrifty, final: succeeded(1)},
		{name: "a permanent failure retried",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePermanentError), retry(1, 1, 1, 0)),
			want: []want{{1, []uint64{3, 4},
				"j1 retried after a permanent failure (permanent_error, recorded as transient_error): it belongs in the DLQ on the first attempt"}}},
		{name: "a retry with the budget spent",
			history: one(enqueue(1), lease(1, 1, 1), work(1, 1, ingest, 6000), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0)),
			want:    []want{{1, []uint64{3, 5}, "j1 retried with 6000 of its 6000 tokens spent"}}},
	})
}

// TestPolicyRetryTiming: retryTiming.
func TestPolicyRetryTiming(t *testing.T) {
	exp := cfgWith(func(c *model.Config) { c.Retry.Strategy = model.Exponential })
	fixed := cfgWith(func(c *model.Config) { c.Retry.Strategy = model.Fixed })
	short := cfgWith(func(c *model.Config) { c.Deadline = 10 * sec })
	fixedRetry := func(fence uint64, attempt int32, d model.Time) model.Event {
		return withN2(200*ms, retry(1, fence, attempt, d))
	}
	twice := cat(one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), at(10*ms, fixedRetry(1, 1, 200*ms)),
		at(210*ms, lease(1, 2, 2)), at(211*ms, failed(1, 2, model.CodeTransient)), at(212*ms, fixedRetry(2, 2, 200*ms))),
		from(412*ms, cat(one(lease(1, 3, 3)), rest(1, 3, 1))...))
	// A 10s deadline from 1ms: 10001ms. The worker fails at 9500ms.
	late := func(d model.Time) []model.Event {
		return cat(one(withN(10*sec, enqueue(1)), lease(1, 1, 1), at(9500*ms, failed(1, 1, model.CodeTransient)), at(9500*ms, retry(1, 1, 1, d))),
			from(9500*ms+d, cat(one(lease(1, 2, 2)), rest(1, 2, 1))...))
	}
	runOracle(t, Consistency, []fixture{
		{name: "the full-jitter bound announced", history: retried(123 * ms), final: succeeded(1)},
		{name: "a bound the strategy does not give",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), withN2(800*ms, retry(1, 1, 1, 0))),
			want:    []want{{1, []uint64{4}, "j1 retry announces a bound of 800ms, the full-jitter strategy gives 400ms for attempt 1"}}},
		{name: "the bound of the attempt the event claims, not the one counted",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 2, 0)),
			want:    []want{{1, []uint64{4}, "j1 retry announces a bound of 800ms, the full-jitter strategy gives 400ms for attempt 1"}}},
	})
	runOracle(t, BoundedRetries, []fixture{
		{name: "exponential: exactly the bound", cfg: exp, history: retried(400 * ms), final: succeeded(1)},
		{name: "exponential: less than the bound", cfg: exp,
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 100*ms)),
			want:    []want{{1, []uint64{2, 4}, "j1 retry delay 100ms, but the exponential strategy waits exactly 400ms after attempt 1"}}},
		{name: "fixed: the base, twice", cfg: fixed, history: twice, final: succeeded(1)},
		{name: "fixed: less than the base", cfg: fixed,
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), fixedRetry(1, 1, 50*ms)),
			want:    []want{{1, []uint64{2, 4}, "j1 retry delay 50ms, but the fixed strategy waits exactly 200ms after attempt 1"}}},
		{name: "a retry that ends just before the deadline", cfg: short, history: late(400 * ms), final: succeeded(1)},
		{name: "a retry that ends at the deadline", cfg: short,
			history: one(withN(10*sec, enqueue(1)), lease(1, 1, 1), at(9700*ms, failed(1, 1, model.CodeTransient)), at(9700*ms, retry(1, 1, 1, 301*ms))),
			want:    []want{{1, []uint64{1, 4}, "j1 retry scheduled for 10001ms, at or after its deadline 10001ms"}}},
		{name: "a retry past a redriven job's new deadline", cfg: short,
			history: cat(one(withN(10*sec, enqueue(1)), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError),
				one(at(20*sec, withN2(int64(10*sec), redrive(1))), at(20*sec, lease(1, 2, 1)),
					at(29900*ms, failed(1, 2, model.CodeTransient)), at(29900*ms, retry(1, 2, 1, 100*ms)))),
			want: []want{{1, []uint64{6, 9}, "j1 retry scheduled for 30000ms, at or after its deadline 30000ms"}}},
	})
}

// TestPolicyCancel: cancelPolicy, both branches.
func TestPolicyCancel(t *testing.T) {
	short := cfgWith(func(c *model.Config) { c.Deadline = 10 * sec })
	// 9700ms + the 400ms bound reaches the 10001ms deadline: a retry may
	// not fit, so a cancel is allowed.
	nearEnd := one(withN(10*sec, enqueue(1)), lease(1, 1, 1), at(9700*ms, failed(1, 1, model.CodeTransient)), at(9700*ms, cancelled(1, 1)))
	runOracle(t, Consistency, []fixture{
		{name: "a cancel after a failure", cfg: short, history: nearEnd},
		{name: "a cancel with no failure reported", cfg: short,
			history: one(withN(10*sec, enqueue(1)), lease(1, 1, 1), at(9700*ms, cancelled(1, 1))),
			want:    []want{{1, []uint64{2, 3}, "j1 cancelled by w0 with no failure reported under fence 1"}}},
	})
	runOracle(t, BoundedRetries, []fixture{
		{name: "a cancel when a retry could miss the deadline", cfg: short, history: nearEnd},
		{name: "a permanent failure cancelled", cfg: short,
			history: one(withN(10*sec, enqueue(1)), lease(1, 1, 1), at(9700*ms, failed(1, 1, model.CodePermanentError)), at(9700*ms, cancelled(1, 1))),
			want:    []want{{1, []uint64{3, 4}, "j1 cancelled after permanent_error on attempt 1: the policy dead-letters it (permanent_error)"}}},
		{name: "the last attempt's failure cancelled",
			history: cat(spent(), one(failed(1, 3, model.CodeTransient), cancelled(1, 3))),
			want:    []want{{1, []uint64{9, 10}, "j1 cancelled after transient_error on attempt 3: the policy dead-letters it (max_attempts_exceeded)"}}},
		{name: "a cancel long before the deadline",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), cancelled(1, 1)),
			want: []want{{1, []uint64{1, 3, 4},
				"j1 cancelled at 4ms, but any retry (at most 400ms later) would still start before its deadline 900001ms"}}},
	})
}

// exhaustedRun is job 1 out of attempts: its third attempt's worker dies
// and the next lease dead-letters it (after the DLQ write, if dlq).
func exhaustedRun(dlq bool, reason model.Code) []model.Event {
	h := cat(spent(), one(crash(1, 3), at(30008*ms, expiredLease(1, 3, 3))))
	if dlq {
		h = append(h, at(30008*ms, by(w1, dlqOf(1, model.CodeMaxAttemptsExceeded, 3, 0))))
	}
	return append(h, at(30008*ms, exhaustedAt(1, 3, 3, reason)))
}

// TestPolicyDLQ: dlqPolicy, after a failure and at a lease.
func TestPolicyDLQ(t *testing.T) {
	permanent := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError))
	attempts := cat(spent(), one(failed(1, 3, model.CodeTransient), dlqOf(1, model.CodeMaxAttemptsExceeded, 3, 0), dead(1, 3, model.CodeMaxAttemptsExceeded)))
	budget := one(enqueue(1), lease(1, 1, 1), work(1, 1, ingest, 6000), failed(1, 1, model.CodeTransient),
		dlqOf(1, model.CodeBudgetExhausted, 1, 6000), dead(1, 1, model.CodeBudgetExhausted))
	atLease := exhaustedRun(true, model.CodeMaxAttemptsExceeded)
	runOracle(t, BoundedRetries, []fixture{
		{name: "permanent: dead-lettered on the first attempt", history: permanent},
		{name: "transient: dead-lettered once the attempts are spent", history: attempts},
		{name: "transient: dead-lettered once the budget is spent", history: budget},
		{name: "dead-lettered at the lease that found no attempt left", history: atLease},
		{name: "a transient failure with attempts left dead-lettered",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), dlqOf(1, model.CodeMaxAttemptsExceeded, 1, 0)),
			want:    []want{{1, []uint64{3, 4}, "j1 dead-lettered after transient_error on attempt 1 of 3 with budget left: the policy retries it"}}},
		{name: "dead-lettered at a lease with attempts left",
			history: one(enqueue(1), lease(1, 1, 1), crash(1, 1), at(30002*ms, expiredLease(1, 1, 1)),
				at(30002*ms, by(w1, dlqOf(1, model.CodeMaxAttemptsExceeded, 1, 0)))),
			want: []want{{1, []uint64{2, 5}, "j1 dead-lettered at a lease after attempt 1 of 3, with no failure and budget left"}}},
	})
	runOracle(t, Consistency, []fixture{
		{name: "the reason and counts the policy gives", history: budget},
		{name: "the reason and counts of a dead letter at a lease", history: atLease},
		{name: "a reason other than the failure's",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePoisonSchema), dlqOf(1, model.CodePermanentError, 1, 0)),
			want:    []want{{1, []uint64{3, 4}, "j1 DLQ reason permanent_error, the policy gives poison_schema"}}},
		{name: "a reason other than the exhaustion's",
			history: cat(spent(), one(crash(1, 3), at(30008*ms, expiredLease(1, 3, 3)), at(30008*ms, by(w1, dlqOf(1, model.CodeBudgetExhausted, 3, 0))))),
			want:    []want{{1, []uint64{8, 11}, "j1 DLQ reason budget_exhausted, the policy gives max_attempts_exceeded"}}},
		{name: "attempts other than counted",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePermanentError), dlqOf(1, model.CodePermanentError, 2, 0)),
			want:    []want{{1, []uint64{4}, "j1 DLQ entry says 2 attempts and 0 tokens, the history counts 1 and 0"}}},
		{name: "tokens other than counted",
			history: one(enqueue(1), lease(1, 1, 1), work(1, 1, ingest, 1500), failed(1, 1, model.CodePermanentError), dlqOf(1, model.CodePermanentError, 1, 0)),
			want:    []want{{1, []uint64{5}, "j1 DLQ entry says 1 attempts and 0 tokens, the history counts 1 and 1500"}}},
	})
}

// TestPolicyExhausted: exhausted.
func TestPolicyExhausted(t *testing.T) {
	runOracle(t, NothingLost, []fixture{
		{name: "its DLQ entry written first", history: exhaustedRun(true, model.CodeMaxAttemptsExceeded)},
		{name: "no DLQ entry",
			history: exhaustedRun(false, model.CodeMaxAttemptsExceeded),
			want:    []want{{1, []uint64{11}, "j1 dead-lettered at a lease with no DLQ entry written"}}},
	})
	runOracle(t, Consistency, []fixture{
		{name: "the reason of its DLQ entry", history: exhaustedRun(true, model.CodeMaxAttemptsExceeded)},
		{name: "a reason other than its DLQ entry's",
			history: exhaustedRun(true, model.CodeBudgetExhausted),
			want:    []want{{1, []uint64{11, 12}, "j1 dead with reason budget_exhausted, its DLQ entry says max_attempts_exceeded"}}},
	})
}

// TestPolicyMarkedDead: markedDead.
func TestPolicyMarkedDead(t *testing.T) {
	permanent := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePoisonSchema))
	// The worker crashed after the DLQ write; the redelivery fails again
	// and marks the job dead without writing its own entry.
	again := one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePermanentError), dlqOf(1, model.CodePermanentError, 1, 0), crash(1, 1),
		at(30002*ms, expiredLease(1, 1, 1)), at(30002*ms, by(w1, lease(1, 2, 2))), at(30003*ms, by(w1, failed(1, 2, model.CodePermanentError))),
		at(30003*ms, by(w1, dead(1, 2, model.CodePermanentError))))
	runOracle(t, NothingLost, []fixture{
		{name: "its DLQ entry written under its lease", history: permanent},
		{name: "no DLQ entry",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePermanentError), dead(1, 1, model.CodePermanentError)),
			want:    []want{{1, []uint64{2, 4}, "j1 marked dead with no DLQ entry written under its lease"}}},
		{name: "a DLQ entry of an earlier lease only",
			history: again,
			want:    []want{{1, []uint64{7, 9}, "j1 marked dead with no DLQ entry written under its lease"}}},
	})
	runOracle(t, Consistency, []fixture{
		{name: "the reason of its DLQ entry", history: permanent},
		{name: "a reason other than its DLQ entry's",
			history: one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePoisonSchema), dlqOf(1, model.CodePoisonSchema, 1, 0), dead(1, 1, model.CodePermanentError)),
			want:    []want{{1, []uint64{4, 5}, "j1 dead with reason permanent_error, its DLQ entry says poison_schema"}}},
	})
}

// TestPolicyCancelledAtLease: cancelledAtLease.
func TestPolicyCancelledAtLease(t *testing.T) {
	redriven := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError), one(at(10*sec, redrive(1))))
	runOracle(t, BoundedRetries, []fixture{
		{name: "cancelled at its deadline", history: one(enqueue(1), at(ms+deadline, cancelAtLease(1)))},
		{name: "cancelled at a redriven job's new deadline",
			history: cat(redriven, one(at(10*sec+deadline, cancelAtLease(1)))), final: redriveAudit(1)},
		{name: "cancelled before its deadline",
			history: one(enqueue(1), cancelAtLease(1)),
			want:    []want{{1, []uint64{1, 2}, "j1 cancelled at a lease at 2ms, before its deadline 900001ms"}}},
		{name: "cancelled by the deadline a redrive replaced",
			history: cat(redriven, one(at(ms+deadline+ms, cancelAtLease(1)))), final: redriveAudit(1),
			want: []want{{1, []uint64{6, 7}, "j1 cancelled at a lease at 900002ms, before its deadline 910000ms"}}},
	})
}

// TestPolicyRevive: revive — the number, the deadline and the checkpoint a
// redrive announces.
func TestPolicyRevive(t *testing.T) {
	// Ingest committed, the checkpoint at extract, then a permanent failure.
	atExtract := cat(one(enqueue(1), lease(1, 1, 1), commit(1, ingest, 1), advance(1, 1, extract)), failDead(1, 1, model.CodePermanentError))
	keeps := cat(atExtract, one(redriveTo(1, extract), lease(1, 2, 1)), fromStage(1, 2, 1, extract), delivered(1, 1))
	// Out of attempts (one, in its configuration) and redriven once the
	// faults stopped, then a permanent failure and a second redrive.
	twice := cat(one(enqueue(1), lease(1, 1, 1)), exhaust(1, 1), one(phase("quiesce")),
		from(2*sec, cat(one(redrive(1), lease(1, 2, 1)), failDead(1, 2, model.CodePermanentError))...),
		from(4*sec, withN(2, redrive(1)), lease(1, 3, 1)), from(5*sec, rest(1, 3, 1)...))
	runOracle(t, Consistency, []fixture{
		{name: "a first redrive", history: keeps, final: full(succeeded(1), func(f *Final) { f.Audit = redriveAudit(1).Audit })},
		{name: "a second redrive", history: twice, final: full(succeeded(1), func(f *Final) { f.Audit = redriveAudit(1, 1).Audit }),
			cfg: cfgWith(func(c *model.Config) { c.MaxAttempts = 1 })},
		{name: "a first redrive numbered 2",
			history: cat(atExtract, one(withN(2, redriveTo(1, extract)))),
			want:    []want{{1, []uint64{8}, "j1 redrive number 2, the history counts 1"}}},
		{name: "a second redrive numbered 1",
			history: cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePermanentError),
				from(2*sec, cat(one(redrive(1), lease(1, 2, 1)), failDead(1, 2, model.CodePermanentError))...), from(4*sec, redrive(1))),
			want: []want{{1, []uint64{11}, "j1 redrive number 1, the history counts 2"}}},
		{name: "a redrive with a deadline other than configured",
			history: cat(atExtract, one(withN2(int64(60*sec), redriveTo(1, extract)))),
			want:    []want{{1, []uint64{8}, "j1 redriven with a deadline of 60000ms, the configuration gives 900000ms"}}},
	})
	runOracle(t, OperatorActions, []fixture{
		{name: "a redrive resumes at the checkpoint", history: keeps, final: full(succeeded(1), func(f *Final) { f.Audit = redriveAudit(1).Audit })},
		{name: "a redrive back to the first stage",
			history: cat(atExtract, one(redriveTo(1, ingest))), final: redriveAudit(1),
			want: []want{{1, []uint64{8}, "redrive moved the checkpoint of j1 from extract to ingest: committed stages run again"}}},
	})
}

// TestPolicyResumed: resumed.
func TestPolicyResumed(t *testing.T) {
	// Ingest committed, the checkpoint at extract, the worker dies; w1
	// gets the job at 30002ms and starts the given stage.
	redo := func(st model.Stage) []model.Event {
		return cat(one(enqueue(1), lease(1, 1, 1), work(1, 1, ingest, 0), commit(1, ingest, 1), advance(1, 1, extract), crash(1, 1)),
			from(30002*ms, expiredLease(1, 1, 1), by(w1, lease(1, 2, 2)), by(w1, work(1, 2, st, 1500))))
	}
	resumes := cat(redo(extract), from(30005*ms, cat(fromStage(1, 2, 1, extract), delivered(1, 1))...))
	runOracle(t, WastedWork, []fixture{
		{name: "the redelivery starts at the checkpoint", history: resumes, final: succeeded(1)},
		{name: "the redelivery redoes a committed stage", history: redo(ingest),
			want: []want{{1, []uint64{8, 9}, "j1: w1 started at stage ingest under fence 2, but the job's checkpoint was extract"}}},
		{name: "the redelivery skips a stage", history: redo(validate),
			want: []want{{1, []uint64{8, 9}, "j1: w1 started at stage validate under fence 2, but the job's checkpoint was extract"}}},
	})
}

// TestPolicyCutAtDeadline: workFailed. A worker's call runs under the
// job's deadline; a failure of the cancelled class before that deadline
// cancels a job that could still succeed.
func TestPolicyCutAtDeadline(t *testing.T) {
	runOracle(t, BoundedRetries, []fixture{
		{name: "a call cut at the deadline, then cancelled",
			history: cat(one(enqueue(1), lease(1, 1, 1)), from(deadline+ms, failed(1, 1, model.CodeDeadlineExceeded), cancelled(1, 1)))},
		{name: "a call cut before the deadline",
			history: cat(one(enqueue(1), lease(1, 1, 1)), from(deadline, failed(1, 1, model.CodeDeadlineExceeded), cancelled(1, 1))),
			want:    []want{{1, []uint64{1, 3}, "j1 failed with deadline_exceeded at 900000ms, before its deadline 900001ms: the policy cancels a job that could still succeed"}}},
	})
}

// TestPolicyCheckpointed: checkpointed.
func TestPolicyCheckpointed(t *testing.T) {
	noReview := cat(one(enqueue(1), lease(1, 1, 1)), stages(1, 1, 1)[:6], one(ack(1, 1)))
	// The dual-write variant's result has no outbox row: its write counts.
	written := cat(one(enqueue(1), lease(1, 1, 1), dbWriteEv(1, ingest), publish(1, ingest, 1), apply(1, ingest, 1), advance(1, 1, extract)),
		failDead(1, 1, model.CodePermanentError))
	direct := Final{Rows: []model.OutboxRow{{EventID: 1, Key: key(1), Stage: ingest, Tenant: "acme", Job: 1, Published: true}}}
	runOracle(t, NothingLost, []fixture{
		{name: "each stage committed before the checkpoint passes it", history: clean(1, 1, 1), final: succeeded(1)},
		{name: "a stage written directly before the checkpoint passes it", history: written, final: direct},
		{name: "an advance past an uncommitted stage",
			history: one(enqueue(1), lease(1, 1, 1), advance(1, 1, extract)), undrained: true,
			want: []want{{1, []uint64{2, 3}, "j1 advance past stage ingest, whose result was never committed under key acme:d1:v1"}}},
		{name: "an ack past an uncommitted stage", history: noReview, undrained: true,
			want: []want{{1, []uint64{2, 9}, "j1 ack past stage review, whose result was never committed under key acme:d1:v1"}}},
	})
}

// A worker may report a failure the model classifies as cancelled
// (model.Decide: a WorkError with CodeDeadlineExceeded is cancelled at
// once, whatever the attempts or the deadline). The oracle's policy does
// not know that class.
func TestPolicyRegressions(t *testing.T) {
	runRegressions(t, []regression{
		{bug: "cancelPolicy: a failure of the cancelled class (CodeDeadlineExceeded, model.Classify) is cancelled at once by model.Decide, " +
			"but policyOutcome treats it as transient: a legitimate cancel is reported as 'any retry would still start before its deadline'",
			inv: BoundedRetries, fixture: fixture{name: "a deadline-exceeded failure cancelled",
				history: cat(one(enqueue(1), lease(1, 1, 1)), from(deadline+ms, failed(1, 1, model.CodeDeadlineExceeded), cancelled(1, 1)))}},
		{bug: "cancelPolicy: the same, on the last attempt: reported as 'the policy dead-letters it (max_attempts_exceeded)'",
			inv: BoundedRetries, fixture: fixture{name: "a deadline-exceeded failure on the last attempt cancelled",
				history: cat(spent(), from(deadline+ms, failed(1, 3, model.CodeDeadlineExceeded), cancelled(1, 3)))}},
	})
}
