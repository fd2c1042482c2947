package invariants_test

import (
	"fmt"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
)

// A zombie: w0's lease on j1 expired while it was paused, w1 leased the
// job, and w0's late heartbeat with the old fence was accepted (the
// no-fencing variant). Safety is judged as the events arrive.
func ExampleCheck() {
	ms := model.Millisecond
	w0 := model.Actor{Role: model.RoleWorker, ID: 0}
	w1 := model.Actor{Role: model.RoleWorker, ID: 1}
	key := "acme:d1:v1"
	history := []model.Event{
		{Seq: 1, At: 0, Kind: model.EvEnqueue, Job: 1, Tenant: "acme", Key: key, N: 900_000 * ms, N2: 1, OK: true},
		{Seq: 2, At: 1 * ms, Kind: model.EvLease, Actor: w0, Job: 1, Tenant: "acme", Key: key, Fence: 1, Attempt: 1, N: 30_000 * ms, OK: true},
		{Seq: 3, At: 31_000 * ms, Kind: model.EvLeaseExpired, Actor: w0, Job: 1, Tenant: "acme", Key: key, Fence: 1, Attempt: 1},
		{Seq: 4, At: 31_000 * ms, Kind: model.EvLease, Actor: w1, Job: 1, Tenant: "acme", Key: key, Fence: 2, Attempt: 2, N: 30_000 * ms, OK: true},
		{Seq: 5, At: 32_000 * ms, Kind: model.EvHeartbeat, Actor: w0, Job: 1, Tenant: "acme", Key: key, Fence: 1, Attempt: 2, N: 30_000 * ms, OK: true},
	}
	suite := invariants.NewSuite(invariants.Config{Model: model.DefaultConfig()})
	for i := range history {
		suite.Record(&history[i])
	}
	for _, v := range suite.Violations() {
		fmt.Println(v)
	}
	// Output:
	// fencing: j1 heartbeat with stale fence 1 changed state (current fence 2) (events #4, #5)
}
