package invariants

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// topVersion moves every job of evs to the largest operationVersion
// (acme:dN:v2147483647): a dead job there has no next version to be
// reprocessed at.
func topVersion(evs []model.Event) []model.Event {
	out := make([]model.Event, len(evs))
	for i, e := range evs {
		if k, ok := strings.CutSuffix(e.Key, ":v1"); ok {
			e.Key = k + ":v" + strconv.Itoa(math.MaxInt32)
		}
		if e.Kind == model.EvEnqueue && e.OK {
			e.N2 = math.MaxInt32
		}
		out[i] = e
	}
	return out
}

// exhaust is job j's only attempt (the fixture's configuration allows
// one) failing transiently under fence: dead-lettered as out of attempts.
func exhaust(j model.JobID, fence uint64) []model.Event {
	return one(failed(j, fence, model.CodeTransient), dlqOf(j, model.CodeMaxAttemptsExceeded, 1, 0), dead(j, fence, model.CodeMaxAttemptsExceeded))
}

// TestRunbookOutcomes: finishRecoverable and the wasted redrives —
// judged from the history and the final state, never from what the
// operator says it tried.
func TestRunbookOutcomes(t *testing.T) {
	q := phase("quiesce")
	oneAttempt := cfgWith(func(c *model.Config) { c.MaxAttempts = 1 })
	tired := cat(one(enqueue(1), lease(1, 1, 1)), exhaust(1, 1)) // #1..#5, dead at #5
	poisoned := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePoisonSchema))
	slow := cfgWith(func(c *model.Config) { c.MaxAttempts, c.Redrive = 1, model.BucketConfig{Capacity: 1, Refill: sec} })
	runTable(t, Liveness, []fixture{
		{name: "out of attempts, redriven after the faults stopped, succeeded", cfg: oneAttempt,
			history: cat(tired, one(q, redrive(1), lease(1, 2, 1)), rest(1, 2, 1)), final: withAudit(succeeded(1), redriveAudit(1))},
		{name: "out of attempts, never redriven though the faults stopped", cfg: oneAttempt,
			history: cat(tired, one(q)),
			want: []want{{0, []uint64{4, 5, 6}, "the run ended at 0ms with 1 dead jobs an operator action could bring back, still dead at the end: " +
				"j1 (max_attempts_exceeded; a redrive after the faults stopped at 6ms runs it afresh)"}}},
		{name: "out of attempts, its redrive refused by the limit and never tried again", cfg: slow,
			history: cat(tired, one(enqueue(2), lease(2, 2, 1)), exhaust(2, 2), one(q, redrive(2), refusedRedrive(1, model.CodeRateLimited))),
			want: []want{{0, []uint64{4, 5, 11, 13}, "j1 (max_attempts_exceeded; a redrive after the faults stopped at 11ms runs it afresh; " +
				"refused as rate_limited at #13, the limit had a token again at 1012ms)"}}},
		{name: "out of attempts, the faults never stopped", cfg: oneAttempt, history: tired},
		{name: "poison, reprocessed", history: cat(poisoned, one(q, reprocessed(2), reprocess(1, 2, "op-ana"), lease(2, 2, 1)), retag(rest(2, 2, 1), "acme", "acme:d1:v2")),
			final: withAudit(reprocessedFinal(), reprocessAudit(1, 2))},
		{name: "poison, never reprocessed", history: cat(poisoned, one(q)),
			want: []want{{0, []uint64{4, 5}, "j1 (poison_schema; a reprocess at v2 redoes it)"}}},
		{name: "poison at the largest version: nothing brings it back", history: topVersion(cat(poisoned, one(q)))},
		{name: "a reprocess that failed for good: the fix did not hold", history: cat(poisoned, one(q, reprocessed(2), reprocess(1, 2, "op-ana"), lease(2, 2, 1)),
			retag(failDead(2, 2, model.CodePoisonSchema), "acme", "acme:d1:v2")), final: reprocessAudit(1, 2)},
	})
	// The redrive of a permanent failure (#6) and the redrive during the
	// faults (#6) both leave the job dead again; the redrive of a job out
	// of attempts after the faults stopped (#7) does not count.
	poisonRedriven := cat(poisoned, one(redrive(1), lease(1, 2, 1)), failDead(1, 2, model.CodePoisonSchema))
	tiredRedriven := cat(tired, one(redrive(1), lease(1, 2, 1)), exhaust(1, 2))
	runTable(t, WastedWork, []fixture{
		{name: "a redrive of a poison document, dead again", history: poisonRedriven, final: redriveAudit(1),
			want: []want{{1, []uint64{4, 6, 9}, "redrive of j1 with its failure cause unchanged (poison_schema: a redrive sends the same document at the same version again, only a reprocess changes it) left it dead again (poison_schema)"}}},
		{name: "a redrive during the faults, dead again", cfg: oneAttempt, history: tiredRedriven, final: redriveAudit(1),
			want: []want{{1, []uint64{4, 6, 9}, "redrive of j1 with its failure cause unchanged (max_attempts_exceeded: the faults had not stopped) left it dead again (max_attempts_exceeded)"}}},
		{name: "a redrive after the faults stopped", cfg: oneAttempt, history: cat(tired, one(q, redrive(1), lease(1, 2, 1)), rest(1, 2, 1)),
			final: withAudit(succeeded(1), redriveAudit(1))},
		{name: "a wasted redrive that succeeded anyway: counted, not named", history: cat(poisoned, one(redrive(1), lease(1, 2, 1)), rest(1, 2, 1)),
			final: withAudit(succeeded(1), redriveAudit(1))},
	})
}

// TestWastedRedrivesCounted: every redrive whose job's failure cause was
// unchanged counts, dead again or not.
func TestWastedRedrivesCounted(t *testing.T) {
	poisoned := cat(one(enqueue(1), lease(1, 1, 1)), failDead(1, 1, model.CodePoisonSchema))
	h := hist(cat(poisoned, one(redrive(1), lease(1, 2, 1)), failDead(1, 2, model.CodePoisonSchema),
		one(phase("quiesce"), withN(2, redrive(1)), lease(1, 3, 1)), rest(1, 3, 1))...)
	s := NewSuite(testCfg)
	for i := range h {
		s.Record(&h[i])
	}
	if got := s.WastedRedrives(); got != 2 {
		t.Fatalf("WastedRedrives() = %d, want 2 (a poison document redriven twice)", got)
	}
	s.Reset(testCfg)
	if got := s.WastedRedrives(); got != 0 {
		t.Fatalf("after Reset, WastedRedrives() = %d, want 0", got)
	}
}
