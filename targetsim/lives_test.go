package targetsim

import (
	"slices"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/target"
)

// A kept run says when each worker incarnation lived and on which op each
// fault of the plan took effect: a crash on its crash, a few-attempts
// fault on its document's insert, a transient fault on the work it ended;
// a run not kept says neither.
func TestIncarnationsAndStrikes(t *testing.T) {
	q := openRiver(t)
	cfg := DefaultConfig()
	cfg.Design, cfg.Workers, cfg.Swarm, cfg.Only = EffectOutsideTx, 1, false, []int{1, 4, 5}
	p, err := river.Parse("crash after_effect nth=3 worker=w0; few-attempts doc=4 max=2; transient doc=5 attempt=1")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plan, cfg.KeepTrace = p, true
	res := runSeed(t, q, cfg, 17)
	crash := slices.IndexFunc(res.Ops, func(o target.Op) bool { return o.Kind == target.OpCrash })
	if crash < 0 {
		t.Fatal("the plan's crash did not strike")
	}
	at := res.Ops[crash].T
	want := []Incarnation{{Name: "w0", From: 0, To: at, Crashed: true}, {Name: "w0.1", From: at + restartDelay, To: res.End}}
	if !slices.Equal(res.Incarnations, want) {
		t.Errorf("incarnations %+v, want %+v", res.Incarnations, want)
	}
	if len(res.Strikes) != len(p.Faults) {
		t.Fatalf("strikes %+v for %d faults", res.Strikes, len(p.Faults))
	}
	for _, s := range res.Strikes {
		o := res.Ops[s.Op-1]
		var ok bool
		switch s.Fault.Kind {
		case faults.Crash:
			ok = o.Kind == target.OpCrash && o.Actor == "w0"
		case faults.FewAttempts:
			ok = o.Kind == target.OpInsert && o.MaxAttempts == 2 && o.Args.Doc == "d2" && o.Args.Tenant == "globex"
		case faults.Transient:
			ok = o.Kind == target.OpWork && o.Outcome == target.Errored && o.Attempt == 1
		}
		if !ok {
			t.Errorf("%s struck on %s", s.Fault, o)
		}
	}
	cfg.KeepTrace = false
	if res := runSeed(t, q, cfg, 17); res.Incarnations != nil || res.Strikes != nil {
		t.Errorf("a run not kept has %d incarnations and %d strikes", len(res.Incarnations), len(res.Strikes))
	}
}
