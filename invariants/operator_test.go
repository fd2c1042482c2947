package invariants

import (
	"math"
	"testing"

	"github.com/durasim/durasim/model"
)

// deadJob is job j enqueued, leased under fence j and dead-lettered: three
// events.
func deadJob(j model.JobID) []model.Event {
	return one(enqueue(j), lease(j, uint64(j), 1), dead(j, uint64(j), model.CodePoisonSchema))
}

func reprocessAudit(pairs ...model.JobID) Final {
	var f Final
	for i := 0; i+1 < len(pairs); i += 2 {
		f.Audit = append(f.Audit, model.AuditEntry{Action: "reprocess", OldJob: pairs[i], NewJob: pairs[i+1], Operator: "op-ana", Tenant: "acme"})
	}
	return f
}

func redriveAudit(jobs ...model.JobID) Final {
	var f Final
	for _, j := range jobs {
		f.Audit = append(f.Audit, model.AuditEntry{Action: "redrive", OldJob: j, NewJob: j, Operator: "op", Tenant: "acme"})
	}
	return f
}

func TestOperatorActions(t *testing.T) {
	v3 := with(reprocessed(2), func(e *model.Event) { e.N2 = 3 })
	fresh := with(redrive(1), func(e *model.Event) { e.Key = "acme:d1:v1:redrive:1" })
	slow := testCfg
	slow.Model.Redrive = model.BucketConfig{Capacity: 2, Refill: 1000 * ms}
	roomy := testCfg
	roomy.Model.Redrive = model.BucketConfig{Capacity: 10, Refill: 100 * ms}
	minute := model.Time(60_000) * ms
	// Four dead jobs (#1..#12), then four reprocesses (#14, #16, #18, #20).
	flood := func(last model.Time) []model.Event {
		evs := cat(deadJob(1), deadJob(2), deadJob(3), deadJob(4))
		for i := model.JobID(1); i <= 4; i++ {
			t := 20*ms + model.Time(i)*ms
			if i == 4 {
				t = last
			}
			evs = append(evs, at(t, reprocessed(4+i)), at(t, reprocess(i, 4+i, "op-ana")))
		}
		return evs
	}
	runTable(t, OperatorActions, []fixture{
		{name: "reprocess by an operator into the next version, audited",
			history: cat(deadJob(1), one(reprocessed(2), reprocess(1, 2, "op-ana"))), final: reprocessAudit(1, 2)},
		{name: "reprocess without an operator",
			history: cat(deadJob(1), one(reprocessed(2), reprocess(1, 2, ""))),
			want:    []want{{1, []uint64{5}, "reprocess of j1 names no operator"}}},
		{name: "reprocess at the wrong version",
			history: cat(deadJob(1), one(v3, reprocess(1, 2, "op-ana"))), final: reprocessAudit(1, 2),
			want: []want{{1, []uint64{1, 4, 5}, "reprocess of j1 (v1) created j2 at v3, want v2"}}},
		{name: "reprocess that enqueued nothing",
			history: cat(deadJob(1), one(reprocess(1, 0, "op-ana"))), final: reprocessAudit(1, 0),
			want: []want{{1, []uint64{4}, "reprocess of j1 enqueued no new job (other=j0)"}}},
		{name: "reprocess missing from the audit log",
			history: cat(deadJob(1), one(reprocessed(2), reprocess(1, 2, "op-ana"))),
			want:    []want{{1, []uint64{5}, "reprocess of j1 into j2 by operator op-ana is not in the audit log"}}},
		{name: "reprocess of a cancelled job",
			history: one(enqueue(1), cancelAtLease(1), reprocessed(2), reprocess(1, 2, "op-ana")), final: reprocessAudit(1, 2),
			want: []want{{1, []uint64{2, 4}, "reprocess of cancelled j1: cancelled is terminal"}}},
		{name: "redrive of a cancelled job",
			history: one(enqueue(1), cancelAtLease(1), redrive(1)), final: redriveAudit(1),
			want: []want{{1, []uint64{2, 3}, "redrive of cancelled j1: cancelled is terminal"}}},
		{name: "redrive of a succeeded job",
			history: one(enqueue(1), lease(1, 1, 1), ack(1, 1), redrive(1)), final: redriveAudit(1),
			want: []want{{1, []uint64{4}, "redrive of j1 while succeeded: only dead jobs come back"}}},
		{name: "redrive keeps the key", history: cat(deadJob(1), one(redrive(1))), final: redriveAudit(1)},
		{name: "redrive under a fresh key",
			history: cat(deadJob(1), one(fresh)), final: redriveAudit(1),
			want: []want{{1, []uint64{1, 4}, "redrive changed the key of j1 from acme:d1:v1 to acme:d1:v1:redrive:1"}}},
		{name: "redrive missing from the audit log",
			cfg:     &roomy,
			history: cat(deadJob(1), one(redrive(1)), one(lease(1, 2, 1), dead(1, 2, model.CodePoisonSchema), redrive(1))),
			final:   redriveAudit(1),
			want:    []want{{1, []uint64{7}, "redrive of j1 is not in the audit log"}}},
		{name: "reprocess beyond the tenant's limit",
			history: flood(30 * ms), final: reprocessAudit(1, 5, 2, 6, 3, 7, 4, 8),
			want: []want{{4, []uint64{14, 16, 18, 20}, "reprocess of j4 beyond tenant acme's limit of 3 per 60000ms"}}},
		{name: "reprocess paced by the refill",
			history: flood(21*ms + minute), final: reprocessAudit(1, 5, 2, 6, 3, 7, 4, 8)},
		// The bucket was full until the first take at 21ms: no refill
		// time is banked before it, so the next token comes at 60021ms.
		{name: "reprocess a refill after the time it would have been banked",
			history: flood(minute), final: reprocessAudit(1, 5, 2, 6, 3, 7, 4, 8),
			want: []want{{4, []uint64{14, 16, 18, 20}, "reprocess of j4 beyond tenant acme's limit of 3 per 60000ms"}}},
		{name: "redrive beyond the global limit",
			cfg:     &slow,
			history: cat(deadJob(1), deadJob(2), deadJob(3), one(redrive(1), redrive(2), redrive(3))),
			final:   redriveAudit(1, 2, 3),
			want:    []want{{3, []uint64{10, 11, 12}, "redrive of j3 beyond the limit of 2 per 1000ms"}}},
	})
}

// TestReprocessAnnouncesItsVersion: newVersion — the version a reprocess
// announces is the one its new job was enqueued at.
func TestReprocessAnnouncesItsVersion(t *testing.T) {
	runTable(t, Consistency, []fixture{
		{name: "announced as enqueued",
			history: cat(deadJob(1), one(reprocessed(2), reprocess(1, 2, "op-ana"))), final: reprocessAudit(1, 2), undrained: true},
		{name: "announced otherwise", undrained: true,
			history: cat(deadJob(1), one(reprocessed(2), with(reprocess(1, 2, "op-ana"), func(e *model.Event) { e.N = 0 }))), final: reprocessAudit(1, 2),
			want: []want{{1, []uint64{4, 5}, "reprocess of j1 announces version 0, j2 was enqueued at v2"}}},
	})
}

// TestOperatorRefusalReasons: operatorRefusal — a refused redrive or
// reprocess names the reason the job's state by the history gives.
func TestOperatorRefusalReasons(t *testing.T) {
	redriveOf := func(j model.JobID, c model.Code) model.Event {
		e := rejected(redrive(j), c)
		e.N, e.N2, e.HasStage = 0, 0, false
		return e
	}
	reprocessOf := func(j model.JobID, c model.Code) model.Event {
		e := rejected(reprocess(j, 0, "op-ana"), c)
		e.Other, e.N = 0, 0
		return e
	}
	topDead := deadJob(1)
	topDead[0].N2, topDead[0].Key = math.MaxInt32, "acme:d1:v2147483647"
	for i := range topDead[1:] {
		topDead[i+1].Key = topDead[0].Key
	}
	runTable(t, Consistency, []fixture{
		{name: "a live job refused as not dead", history: cat(one(enqueue(1), redriveOf(1, model.CodeNotDead), lease(1, 1, 1)), rest(1, 1, 1)),
			final: succeeded(1)},
		{name: "a live job refused as cancelled", history: cat(one(enqueue(1), redriveOf(1, model.CodeCancelledTerminal), lease(1, 1, 1)), rest(1, 1, 1)),
			final: succeeded(1),
			want:  []want{{1, []uint64{1, 2}, "redrive of j1 refused as cancelled_terminal, but the history has the job pending"}}},
		{name: "a dead job refused as not dead", history: cat(deadJob(1), one(redriveOf(1, model.CodeNotDead))), undrained: true,
			want: []want{{1, []uint64{3, 4}, "redrive of j1 refused as not_dead, but the history has the job dead"}}},
		{name: "a dead job's redrive rate-limited", history: cat(deadJob(1), one(redriveOf(1, model.CodeRateLimited))), undrained: true},
		{name: "a dead job at the largest version: no reprocess", history: cat(topDead, one(reprocessOf(1, model.CodeInvalidKey))), undrained: true},
		{name: "a dead job at the largest version, its reprocess rate-limited", history: cat(topDead, one(reprocessOf(1, model.CodeRateLimited))), undrained: true,
			want: []want{{1, []uint64{3, 4}, "reprocess of j1 refused as rate_limited, but the history has the job dead at v2147483647, the largest operationVersion: no next version (invalid_key)"}}},
		{name: "a dead job refused as an invalid key", history: cat(deadJob(1), one(reprocessOf(1, model.CodeInvalidKey))), undrained: true,
			want: []want{{1, []uint64{3, 4}, "reprocess of j1 refused as invalid_key, but the history has the job dead at v1, which has a next version"}}},
	})
}
