package sim_test

import (
	"fmt"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/simtest"
)

// One seed of the standard swarm workload on the correct design: faults
// everywhere, no invariant broken, every job drained.
func ExampleRun() {
	res, err := sim.Run(sim.DefaultConfig(), 42)
	if err != nil {
		panic(err)
	}
	fmt.Printf("violations: %d, drained: %v\n", len(res.Violations), res.Drained)
	// Output: violations: 0, drained: true
}

// A replay: the faults a swarm run injected (its realized plan), run again
// as an explicit plan with the swarm off and the options the swarm drew
// (first.Config), give the very same trace — what `durasim replay
// -swarm=false -plan '...'` does with a failure's plan and flags.
func ExampleRun_replay() {
	cfg := sim.DefaultConfig()
	cfg.Variant = "no-idempotency"
	first, err := sim.Run(cfg, 3)
	if err != nil {
		panic(err)
	}
	cfg = first.Config
	cfg.Swarm, cfg.Plan = false, first.Realized
	again, err := sim.Run(cfg, 3)
	if err != nil {
		panic(err)
	}
	fmt.Println("same trace:", again.Hash == first.Hash, "- same verdict:", again.Failed() == first.Failed())
	// Output: same trace: true - same verdict: true
}

// The opening incident on the naive design: a crash after the commit and
// before the ack makes the retry apply the effect twice. Shrink reduces
// the 24-document run to one document on one worker with the one fault.
func ExampleShrink() {
	cfg := sim.DefaultConfig()
	cfg.Variant, cfg.Swarm = "no-idempotency", false
	plan, err := faults.Parse("crash after_commit_before_ack nth=1 worker=*")
	if err != nil {
		panic(err)
	}
	cfg.Plan = plan
	res, err := sim.Run(cfg, 1)
	if err != nil {
		panic(err)
	}
	sh, err := sim.Shrink(cfg, 1, res, 0)
	if err != nil {
		panic(err)
	}
	c := sh.Config
	fmt.Printf("breaks %s with %d document(s), %d worker(s): %s\n", sh.Invariant, c.DocCount(), c.Workers, c.Plan.OneLine())
	// Output: breaks exactly-once-effect with 1 document(s), 1 worker(s): crash after_commit_before_ack nth=1 worker=*
}

// A sweep: a Runner reuses one pipeline's memory from seed to seed, and a
// Summary folds the results in (Write prints it as `durasim run` does).
func ExampleRunner() {
	cfg := sim.DefaultConfig()
	rn := sim.NewRunner()
	sum := sim.NewSummary(cfg.Variant)
	for seed := uint64(1); seed <= 100; seed++ {
		res, err := rn.Run(cfg, seed)
		if err != nil {
			panic(err)
		}
		sum.Add(res)
	}
	fmt.Printf("%d seeds, %d failed\n", sum.Seeds, sum.Failed)
	// Output: 100 seeds, 0 failed
}

// Your own store, checked in lockstep: sim hands every event the model
// records to the Backend, which replays it on the store and says whether
// the store agrees. The inbox below keeps the consumer's seen event ids;
// kept in the consumer's memory instead of durably, it forgets them when
// the consumer crashes, and the run fails at the first redelivery it
// applies again.
func ExampleBackend() {
	cfg := sim.DefaultConfig()
	cfg.Swarm = false
	plan, err := faults.Parse("crash consumer_after_apply nth=1")
	if err != nil {
		panic(err)
	}
	cfg.Plan = plan
	for _, store := range []*inbox{{}, {volatile: true}} {
		cfg.Backend = store
		res, err := sim.Run(cfg, 1)
		if err != nil {
			panic(err)
		}
		fmt.Printf("volatile=%v: ", store.volatile)
		if !res.Failed() {
			fmt.Println("agrees with the model")
		}
		for _, v := range res.Violations {
			fmt.Println(v.Invariant)
		}
	}
	// Output:
	// volatile=false: agrees with the model
	// volatile=true: backend-divergence
}

// The README's "Writing your own scenario test" quotes the code below;
// TestREADMEQuotesCompiledCode keeps the two the same.

// TestMyConfiguration sweeps the correct design with a workload and
// pipeline settings of your own, under an extra fault on every seed.
func TestMyConfiguration(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Workers, cfg.Docs, cfg.Tenants = 8, 50, 2
	cfg.Model.Lease = 10_000 * model.Millisecond
	cfg.Model.HeartbeatEvery = 2_000 * model.Millisecond
	cfg.Model.MaxAttempts = 5
	cfg.Model.Retry.Strategy = model.Exponential
	cfg.Model.Ordered = true // a FIFO queue
	plan, err := faults.Parse("pause after_extract nth=1 worker=* for=1m")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plan = plan // on top of each seed's random faults
	simtest.Sweep(t, cfg, 200)
}

// TestMyStore runs your store in lockstep with the model on random seeds.
func TestMyStore(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Backend = &inbox{}
	simtest.Sweep(t, cfg, 200)
}

// inbox is a store of your own: the consumer's de-duplication table.
// Wherever the model's consumer applies or skips a delivery, the inbox
// must do the same.
type inbox struct {
	seen     map[model.EventID]bool
	volatile bool // a bug: the table is lost when the consumer crashes
}

func (b *inbox) Name() string { return "inbox" }

func (b *inbox) Begin(seed uint64, sys *model.System) error {
	b.seen = map[model.EventID]bool{}
	return nil
}

func (b *inbox) Observe(e *model.Event) error {
	switch {
	case e.Kind == model.EvCrash && e.Actor.Role == model.RoleConsumer && b.volatile:
		clear(b.seen)
	case e.Kind == model.EvApply:
		applied := !b.seen[e.EventID]
		b.seen[e.EventID] = true
		if applied != e.OK {
			return fmt.Errorf("inbox applied %s: %v, the model: %v", e.EventID, applied, e.OK)
		}
	}
	return nil
}

func (b *inbox) End(sys *model.System) error {
	if effects := len(sys.Effects()); effects != len(b.seen) {
		return fmt.Errorf("inbox holds %d events, the model applied %d effects", len(b.seen), effects)
	}
	return nil
}
