package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// TestDeadlineBoundsWork: workInTime and effectInTime — a stage's work
// starts before its job's deadline and ends by it, and nothing is
// committed, checkpointed or acked at or after it.
func TestDeadlineBoundsWork(t *testing.T) {
	// j1's deadline is 100ms after its enqueue at 1ms: 101ms. Leased at 2ms.
	start := one(withN(100*ms, enqueue(1)), lease(1, 1, 1))
	workAt := func(t, latency model.Time, st model.Stage) model.Event {
		return at(t, withN(latency, work(1, 1, st, 0)))
	}
	paused := model.Event{Kind: model.EvPause, Actor: w0, Job: 1, Boundary: model.AfterExtract, N: 200 * ms}
	runTable(t, BoundedRetries, []fixture{
		{name: "work in time, committed and checkpointed in time", undrained: true,
			history: cat(start, one(workAt(3*ms, 50*ms, ingest), at(60*ms, commit(1, ingest, 1)), at(61*ms, advance(1, 1, extract))))},
		{name: "work cut at the deadline, the job cancelled", undrained: true,
			history: cat(start, one(workAt(50*ms, 51*ms, ingest), at(101*ms, failed(1, 1, model.CodeDeadlineExceeded)), at(101*ms, cancelled(1, 1))))},
		{name: "work begun past the deadline, cut at once", undrained: true,
			history: cat(start, one(workAt(150*ms, 0, ingest), at(150*ms, failed(1, 1, model.CodeDeadlineExceeded)), at(150*ms, cancelled(1, 1))))},
		{name: "work begun in time running past the deadline", undrained: true,
			history: cat(start, one(workAt(50*ms, 80*ms, ingest))),
			want:    []want{{1, []uint64{1, 3}, "j1 stage=ingest work began at 50ms, before its deadline 101ms, and ran until 130ms, past it"}}},
		{name: "work begun past the deadline", undrained: true,
			history: cat(start, one(at(5*ms, paused), workAt(150*ms, 10*ms, ingest))),
			want:    []want{{1, []uint64{1, 3, 4}, "j1 stage=ingest work started at 150ms, at or after its deadline 101ms, and ran for 10ms"}}},
		{name: "a commit after a pause past the deadline", undrained: true,
			history: cat(start, one(workAt(3*ms, 50*ms, ingest), at(53*ms, paused), at(253*ms, commit(1, ingest, 1)))),
			want:    []want{{1, []uint64{1, 3, 4, 5}, "j1 stage=ingest committed by w0 at 253ms, at or after its deadline 101ms"}}},
		{name: "a commit at the deadline", undrained: true,
			history: cat(start, one(workAt(3*ms, 50*ms, ingest), at(101*ms, commit(1, ingest, 1)))),
			want:    []want{{1, []uint64{1, 3, 4}, "j1 stage=ingest committed by w0 at 101ms, at or after its deadline 101ms"}}},
		{name: "a dual write past the deadline", undrained: true,
			history: cat(start, one(workAt(3*ms, 50*ms, ingest), at(120*ms, dbWriteEv(1, ingest)))),
			want:    []want{{1, []uint64{1, 3, 4}, "j1 stage=ingest committed by w0 at 120ms"}}},
		{name: "a checkpoint past the deadline", undrained: true,
			history: cat(start, one(workAt(3*ms, 50*ms, ingest), at(60*ms, commit(1, ingest, 1)), at(120*ms, advance(1, 1, extract)))),
			want:    []want{{1, []uint64{1, 3, 5}, "j1 checkpointed at stage=extract by w0 at 120ms, at or after its deadline 101ms"}}},
		{name: "an ack past the deadline", undrained: true,
			history: cat(start, one(workAt(3*ms, 50*ms, review), at(60*ms, commit(1, review, 1)), at(53*ms, paused), at(300*ms, ack(1, 1)))),
			want:    []want{{1, []uint64{1, 3, 5, 6}, "j1 acked by w0 at 300ms, at or after its deadline 101ms"}}},
	})
}
