package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

func TestFencing(t *testing.T) {
	s := model.Time(1_000_000_000)
	runTable(t, Fencing, []fixture{
		{name: "a heartbeat extends the lease; the next lease waits for it",
			history: one(enqueue(1), lease(1, 1, 1), at(20*s, heartbeat(1, 1)), by(w1, at(50*s, lease(1, 2, 2))), at(51*s, by(w1, ack(1, 2))))},
		{name: "two valid leases",
			history: one(enqueue(1), lease(1, 1, 1), by(w1, lease(1, 2, 2))),
			want:    []want{{1, []uint64{2, 3}, "j1 leased with fence 2 while fence 1 is valid until 30002ms"}}},
		{name: "a heartbeat kept the first lease valid",
			history: one(enqueue(1), lease(1, 1, 1), at(20*s, heartbeat(1, 1)), by(w1, at(40*s, lease(1, 2, 2)))),
			want:    []want{{1, []uint64{2, 3, 4}, "while fence 1 is valid until 50000ms"}}},
		{name: "a lease after the ack",
			history: one(enqueue(1), lease(1, 1, 1), ack(1, 1), by(w1, lease(1, 2, 2)))},
		{name: "stale ack accepted",
			history: one(enqueue(1), lease(1, 1, 1), by(w1, at(31*s, lease(1, 2, 2))), at(32*s, ack(1, 1))),
			want:    []want{{1, []uint64{3, 4}, "j1 ack with stale fence 1 changed state (current fence 2)"}}},
		{name: "stale heartbeat accepted",
			history: one(enqueue(1), lease(1, 1, 1), by(w1, at(31*s, lease(1, 2, 2))), at(32*s, heartbeat(1, 1))),
			want:    []want{{1, []uint64{3, 4}, "j1 heartbeat with stale fence 1 changed state"}}},
		{name: "stale calls rejected",
			history: one(enqueue(1), lease(1, 1, 1), by(w1, at(31*s, lease(1, 2, 2))),
				at(32*s, rejected(heartbeat(1, 1), model.CodeStaleFence)), at(33*s, rejected(ack(1, 1), model.CodeStaleFence)))},
		{name: "dead-lettered by a worker that lost the lease",
			history: one(enqueue(1), lease(1, 1, 1), by(w1, at(31*s, lease(1, 2, 2))), at(32*s, dead(1, 2, model.CodePermanentError))),
			want:    []want{{1, []uint64{3, 4}, "j1 dead by w0, but fence 2 is held by w1"}}},
		{name: "a fence that does not grow",
			history: one(enqueue(1), lease(1, 5, 1), retry(1, 5, 1, 0), lease(1, 5, 2)),
			want:    []want{{1, []uint64{2, 4}, "j1 leased with fence 5, but fence 5 was granted before"}}},
	})
}
