package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixtures of the limits judged in the refusing direction: a call refused
// by a limit must find the limit reached, recomputed from the history and
// the configuration (the accepting direction has its fixtures beside each
// check: TestOperatorActions, TestBreakerRefusals, the policy's tables).

// refusedRedrive is the queue refusing the redrive of job j with code c,
// as the model records it: no redrive number, deadline or checkpoint.
func refusedRedrive(j model.JobID, c model.Code) model.Event {
	e := rejected(redrive(j), c)
	e.N, e.N2, e.HasStage = 0, 0, false
	return e
}

// refusedReprocess is the queue refusing operator op-ana's reprocess of
// job j with code c.
func refusedReprocess(j model.JobID, c model.Code) model.Event {
	e := rejected(reprocess(j, 0, "op-ana"), c)
	e.Other, e.N = 0, 0
	return e
}

// deadJobOf is deadJob(j) for a job of tenant.
func deadJobOf(j model.JobID, tenant string) []model.Event {
	evs := deadJob(j)
	return retag(evs, tenant, tenant+":d"+key(j)[len("acme:d"):])
}

// TestRateLimitRefusals: limitRefusal — a redrive or reprocess refused as
// rate_limited finds the oracle's bucket empty.
func TestRateLimitRefusals(t *testing.T) {
	minute := 60 * sec
	// Three dead jobs of acme (#1..#9) and three reprocesses that spend
	// acme's limit of 3 a minute (#11, #13, #15: each after its new job's enqueue).
	spent := cat(deadJob(1), deadJob(2), deadJob(3))
	for i := model.JobID(1); i <= 3; i++ {
		spent = append(spent, at(20*ms+model.Time(i)*ms, reprocessedAs(3+i, i)), at(20*ms+model.Time(i)*ms, reprocess(i, 3+i, "op-ana")))
	}
	fourth := func(t model.Time, tenant string) []model.Event {
		return cat(spent, deadJobOf(7, tenant), one(at(t, refusedReprocess(7, model.CodeRateLimited))))
	}
	slow := cfgWith(func(c *model.Config) { c.Redrive = model.BucketConfig{Capacity: 1, Refill: sec} })
	twoDead := cat(deadJob(1), deadJob(2), one(at(7*ms, redrive(1))))
	audited, redriven := reprocessAudit(1, 4, 2, 5, 3, 6), redriveAudit(1)
	runTable(t, OperatorActions, []fixture{
		{name: "a redrive refused with the limit spent", cfg: slow, undrained: true, final: redriven,
			history: cat(twoDead, one(at(8*ms, refusedRedrive(2, model.CodeRateLimited))))},
		{name: "a redrive refused after the refill", cfg: slow, undrained: true, final: redriven,
			history: cat(twoDead, one(at(1500*ms, refusedRedrive(2, model.CodeRateLimited)))),
			want:    []want{{2, []uint64{7, 8}, "redrive of j2 refused as rate_limited at 1500ms, with a token of the limit of 1 per 1000ms left"}}},
		{name: "a first redrive refused", cfg: slow, undrained: true,
			history: cat(deadJob(1), one(refusedRedrive(1, model.CodeRateLimited))),
			want:    []want{{1, []uint64{4}, "redrive of j1 refused as rate_limited at 4ms, with a token of the limit of 1 per 1000ms left"}}},
		{name: "a reprocess refused with the tenant's limit spent", undrained: true, final: audited, history: fourth(30*ms, "acme")},
		{name: "a reprocess refused after the refill", undrained: true, final: audited, history: fourth(21*ms+minute, "acme"),
			want: []want{{7, []uint64{11, 13, 15, 19}, "reprocess of j7 refused as rate_limited at 60021ms, with a token of tenant acme's limit of 3 per 60000ms left"}}},
		{name: "a reprocess refused on another tenant's spent limit (one bucket for all)", undrained: true, final: audited, history: fourth(30*ms, "globex"),
			want: []want{{7, []uint64{19}, "reprocess of j7 refused as rate_limited at 30ms, with a token of tenant globex's limit of 3 per 60000ms left"}}},
		{name: "a refusal with no limit configured is not judged", undrained: true,
			cfg:     cfgWith(func(c *model.Config) { c.Redrive = model.BucketConfig{} }),
			history: cat(deadJob(1), one(refusedRedrive(1, model.CodeRateLimited)))},
	})
}

// reprocessedAs is the enqueue of job nj redoing job old of acme at
// version 2.
func reprocessedAs(nj, old model.JobID) model.Event {
	e := reprocessed(nj)
	e.Key = "acme:d" + key(old)[len("acme:d"):len(key(old))-len(":v1")] + ":v2"
	return e
}

// TestNotFoundRefusals: a job the history holds is never refused as not
// found — by the status endpoint to its own tenant (status), or by any
// call (Record).
func TestNotFoundRefusals(t *testing.T) {
	notFound := func(asker string) model.Event {
		e := rejected(status(1, asker), model.CodeNotFound)
		e.Text, e.Key = "", ""
		return e
	}
	runTable(t, Consistency, []fixture{
		{name: "not found to another tenant", history: one(enqueue(1), notFound("globex")), undrained: true},
		{name: "not found for an id no job has", history: one(enqueue(2), with(notFound("acme"), func(e *model.Event) { e.Job = 1 })), undrained: true},
		{name: "not found to the job's own tenant", history: one(enqueue(1), notFound("acme")), undrained: true,
			want: []want{{1, []uint64{1, 2}, "status of j1 answered not_found to its own tenant acme, but the history has it pending"}}},
		{name: "a redrive of a dead job refused as not found", history: cat(deadJob(1), one(refusedRedrive(1, model.CodeNotFound))), undrained: true,
			want: []want{{1, []uint64{1, 4}, "j1 redrive refused as not_found, but the history has it dead"}}},
		{name: "a redrive of an unknown id refused as not found", history: cat(deadJob(2), one(refusedRedrive(1, model.CodeNotFound))), undrained: true},
	})
}
