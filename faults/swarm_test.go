package faults

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

func TestSwarmKindsVaryAcrossSeeds(t *testing.T) {
	var on, off [KindCount]int
	for seed := range uint64(200) {
		s := NewSwarm(scheduler.NewStream(seed), testParams)
		for k := range KindCount {
			if !Pipeline.Has(k) {
				if s.Enabled(k) {
					t.Errorf("seed %d: the swarm enables %v, which the pipeline does not have", seed, k)
				}
				continue
			}
			if s.Enabled(k) {
				on[k]++
			} else {
				off[k]++
			}
			checkRate(t, s, k)
		}
		checkBursts(t, s)
	}
	for _, k := range Pipeline.Kinds() {
		if on[k] == 0 || off[k] == 0 {
			t.Errorf("%v: on in %d seeds, off in %d; want both", k, on[k], off[k])
		}
	}
}

func checkRate(t *testing.T, s *Swarm, k Kind) {
	t.Helper()
	if r := s.Kinds[k].Rate; r < rateRange[k][0] || r > rateRange[k][1] {
		t.Errorf("%v rate %d outside %v", k, r, rateRange[k])
	}
}

func checkBursts(t *testing.T, s *Swarm) {
	t.Helper()
	if s.Enabled(RateLimit) != (len(s.Bursts) > 0) || len(s.Bursts) > 3 {
		t.Errorf("429 enabled=%t with %d bursts", s.Enabled(RateLimit), len(s.Bursts))
	}
	for _, b := range s.Bursts {
		if b.At < 0 || b.At >= s.Params.Horizon || b.For < 500*model.Millisecond || b.For > 5*second {
			t.Errorf("burst %+v outside [0, %d) x [0.5s, 5s]", b, s.Params.Horizon)
		}
	}
}

func TestSwarmString(t *testing.T) {
	s := &Swarm{}
	s.Kinds[Crash] = KindSetting{Enabled: true, Rate: 25_000}
	s.Kinds[Duplicate] = KindSetting{Enabled: true, Rate: 40_000}
	s.Kinds[AmbiguousCommit] = KindSetting{Enabled: true, Rate: 5_050}
	s.Kinds[RateLimit] = KindSetting{Enabled: true}
	s.Bursts = []Burst{{At: 3 * second, For: 1500 * model.Millisecond}, {At: 20 * second, For: 800 * model.Millisecond}}
	want := "swarm crash=2.5% pause=off duplicate=4% delay=off reorder=off transient=off permanent=off " +
		"poison=off 429=3s+1.5s,20s+800ms ambiguous-commit=0.505% deadline=off resubmit=off resubmit-edited=off crash-loop=off malformed=off"
	if got := s.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

func TestSwarmPausesOutliveTheLease(t *testing.T) {
	s := heavySwarm(scheduler.Million, 1000)
	s.Kinds[Crash].Enabled = false // a crash would win the roll
	in := NewInjector(Plan{}, s, scheduler.NewStream(3))
	for range 200 {
		a := in.Crossing(model.AfterExtract, 0)
		if !a.Ok || a.Kind != Pause || a.For < second/2 || a.For > 3*second {
			t.Fatalf("swarm crossing = %+v, want a pause in [Lease/2, 3*Lease]", a)
		}
	}
	if got := in.Injected()[Pause]; got != 200 {
		t.Errorf("Injected()[Pause] = %d, want 200", got)
	}
}

func TestSwarmParamsDefaults(t *testing.T) {
	s := NewSwarm(scheduler.NewStream(1), SwarmParams{})
	if p := s.Params; p.Lease != DefaultLease || p.Horizon != DefaultHorizon || p.MaxFaults != DefaultMaxFaults {
		t.Errorf("Params = %+v, want the defaults", p)
	}
	if !strings.HasPrefix(s.String(), "swarm crash=") {
		t.Errorf("String() = %q", s)
	}
}
