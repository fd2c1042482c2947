package faults

import (
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func mustParse(t testing.TB, text string) Plan {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCrossingTriggersAtExactlyTheNth(t *testing.T) {
	in := NewInjector(mustParse(t, `
crash after_lease nth=3 worker=*
pause after_lease nth=2 worker=w1 for=5s
crash relay_after_publish_before_mark nth=2`), nil, nil)
	calls := []struct {
		b      model.Boundary
		worker int32
		want   Action
	}{
		{model.AfterLease, 0, Action{}},                                       // global 1
		{model.AfterLease, 1, Action{}},                                       // global 2, w1's 1st
		{model.AfterLease, 0, Action{Kind: Crash, Ok: true}},                  // global 3
		{model.AfterExtract, 1, Action{}},                                     // another boundary
		{model.AfterLease, 1, Action{Kind: Pause, For: 5 * second, Ok: true}}, // w1's 2nd
		{model.AfterLease, 1, Action{}},                                       // w1's 3rd
		{model.RelayAfterPublishBeforeMark, AnyWorker, Action{}},
		{model.RelayAfterPublishBeforeMark, AnyWorker, Action{Kind: Crash, Ok: true}},
		{model.RelayAfterPublishBeforeMark, AnyWorker, Action{}},
	}
	for i, c := range calls {
		if got := in.Crossing(c.b, c.worker); got != c.want {
			t.Errorf("call %d: Crossing(%v, %d) = %+v, want %+v", i+1, c.b, c.worker, got, c.want)
		}
	}
	hits := in.BoundaryHits()
	if hits[model.AfterLease] != 2 || hits[model.RelayAfterPublishBeforeMark] != 1 || hits[model.AfterExtract] != 0 {
		t.Errorf("BoundaryHits() = %v", hits)
	}
	if got := in.Injected(); got[Crash] != 2 || got[Pause] != 1 {
		t.Errorf("Injected() = %v, want 2 crashes and 1 pause", got)
	}
}

func TestBrokerAndCommitFaults(t *testing.T) {
	in := NewInjector(mustParse(t, "duplicate nth=2; delay nth=2 for=500ms; reorder nth=3; ambiguous-commit nth=2"), nil, nil)
	want := []BrokerAction{{}, {Duplicate: true, Delay: 500 * model.Millisecond}, {Reorder: true}, {}}
	for i, w := range want {
		if got := in.Publish(); got != w {
			t.Errorf("publish %d = %+v, want %+v", i+1, got, w)
		}
	}
	for i, w := range []bool{false, true, false} {
		if got := in.Commit(false); got != w {
			t.Errorf("commit %d = %t, want %t", i+1, got, w)
		}
	}
}

func TestWorkErrors(t *testing.T) {
	in := NewInjector(mustParse(t, `
transient doc=1 attempt=2
transient doc=2 attempt=*
permanent doc=2
poison doc=3`), nil, nil)
	tests := []struct {
		doc     int32
		stage   model.Stage
		attempt int32
		want    model.Code
	}{
		{1, model.StageExtract, 1, model.CodeNone},
		{1, model.StageExtract, 2, model.CodeTransient},
		{1, model.StageValidate, 2, model.CodeNone},
		{1, model.StageExtract, 3, model.CodeNone},
		{2, model.StageExtract, 1, model.CodeContextOverflow}, // permanent before transient
		{3, model.StageExtract, 1, model.CodeNone},
		{3, model.StageValidate, 1, model.CodePoisonSchema},
		{3, model.StageValidate, 2, model.CodePoisonSchema},
		{4, model.StageExtract, 1, model.CodeNone},
	}
	for _, tt := range tests {
		if got := in.WorkError(tt.doc, tt.stage, tt.attempt); got != tt.want {
			t.Errorf("WorkError(%d, %v, %d) = %v, want %v", tt.doc, tt.stage, tt.attempt, got, tt.want)
		}
	}
	want := "transient doc=1 attempt=2\npermanent doc=2\npoison doc=3\n"
	if got := in.Realized().String(); got != want {
		t.Errorf("Realized() = %q, want %q (each fault once; the shadowed transient never took effect)", got, want)
	}
}

func TestPersistentTransient(t *testing.T) {
	in := NewInjector(mustParse(t, "transient doc=2 attempt=*"), nil, nil)
	for attempt := int32(1); attempt <= 5; attempt++ {
		if got := in.WorkError(2, model.StageExtract, attempt); got != model.CodeTransient {
			t.Fatalf("attempt %d: %v, want transient", attempt, got)
		}
	}
	if got := in.Injected()[Transient]; got != 1 {
		t.Errorf("Injected()[Transient] = %d, want 1 (one fault, however often it strikes)", got)
	}
}

func TestRateLimitedInsideBurstOnly(t *testing.T) {
	in := NewInjector(mustParse(t, "429 at=2s for=3s"), nil, nil)
	ms := model.Millisecond
	for _, c := range []struct {
		now  model.Time
		want bool
	}{{0, false}, {1999 * ms, false}, {2000 * ms, true}, {4999 * ms, true}, {5000 * ms, false}} {
		if got := in.RateLimited(c.now); got != c.want {
			t.Errorf("RateLimited(%d) = %t, want %t", c.now, got, c.want)
		}
	}
}

func TestStopSilencesEverythingButHandedOutDeadlines(t *testing.T) {
	in := NewInjector(mustParse(t, canonical), nil, nil)
	if d, ok := in.Deadline(1); !ok || d != 100*model.Millisecond {
		t.Fatalf("Deadline(1) = %d, %t before Stop", d, ok)
	}
	in.Stop()
	if !in.Stopped() {
		t.Fatal("Stopped() = false after Stop")
	}
	for range 5 {
		for _, b := range model.Boundaries() {
			if a := in.Crossing(b, 3); a.Ok {
				t.Errorf("Crossing(%v) = %+v after Stop", b, a)
			}
		}
		if a := in.Publish(); a != (BrokerAction{}) {
			t.Errorf("Publish() = %+v after Stop", a)
		}
		if in.Commit(false) {
			t.Error("Commit() ambiguous after Stop")
		}
		for doc := int32(1); doc <= 3; doc++ {
			for _, s := range model.Stages() {
				if c := in.WorkError(doc, s, 1); c != model.CodeNone {
					t.Errorf("WorkError(%d, %v, 1) = %v after Stop", doc, s, c)
				}
			}
		}
		if in.RateLimited(3 * second) {
			t.Error("RateLimited inside the burst after Stop")
		}
	}
	if d, ok := in.Deadline(1); !ok || d != 100*model.Millisecond {
		t.Errorf("Deadline(1) = %d, %t after Stop; a handed-out deadline must stay", d, ok)
	}
	if in.Realized().Len() != 1 {
		t.Errorf("Realized() = %q, want only the deadline", in.Realized())
	}
}

func TestSwarmIsDeterministic(t *testing.T) {
	for seed := range uint64(50) {
		ops := script(seed+1000, 400, 6, 4)
		run := func() ([]string, Plan) {
			r := scheduler.NewStream(seed)
			in := NewInjector(Plan{}, NewSwarm(r, testParams), r)
			return play(in, ops), in.Realized()
		}
		out1, plan1 := run()
		out2, plan2 := run()
		if diff := cmp.Diff(out1, out2); diff != "" {
			t.Fatalf("seed %d: two runs differ (-first +second):\n%s", seed, diff)
		}
		if diff := cmp.Diff(plan1, plan2); diff != "" {
			t.Fatalf("seed %d: realized plans differ:\n%s", seed, diff)
		}
	}
}

// TestRealizedReplaysTheSameFaults runs a swarm (random or heavy) plus an
// explicit plan, then replays Realized() without a swarm on the same call
// sequence: every answer must be the same, and so must the realized plan.
func TestRealizedReplaysTheSameFaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		explicit := PlanGen(6, 4).Draw(t, "explicit")
		ops := script(seed^0x5eed, rapid.IntRange(0, 600).Draw(t, "calls"), 6, 4)
		r := scheduler.NewStream(seed)
		swarm := NewSwarm(r, testParams)
		if rapid.Bool().Draw(t, "heavy") {
			swarm = heavySwarm(scheduler.PPM(rapid.IntRange(1, 500_000).Draw(t, "rate")), 12)
		}
		in := NewInjector(explicit, swarm, r)
		want := play(in, ops)
		realized := in.Realized()
		if err := realized.Validate(); err != nil {
			t.Fatalf("realized plan is invalid: %v", err)
		}
		if back, err := Parse(realized.String()); err != nil || cmp.Diff(realized, back) != "" {
			t.Fatalf("realized plan does not round-trip through text: %v", err)
		}
		replay := NewInjector(realized, nil, nil)
		if diff := cmp.Diff(want, play(replay, ops)); diff != "" {
			t.Fatalf("replay of\n%sdiffers (-run +replay):\n%s", realized, diff)
		}
		if diff := cmp.Diff(realized, replay.Realized()); diff != "" {
			t.Fatalf("replay realized a different plan:\n%s", diff)
		}
	})
}

func TestMaxFaultsCapsTheSwarm(t *testing.T) {
	for seed := range uint64(20) {
		explicit := mustParse(t, "crash after_lease nth=1 worker=*; duplicate nth=1; poison doc=1")
		r := scheduler.NewStream(seed)
		in := NewInjector(explicit, heavySwarm(scheduler.Million, 5), r)
		play(in, script(seed, 500, 6, 4))
		swarmMade := 0
		for _, f := range in.Realized().Faults {
			if !containsFault(explicit, f) {
				swarmMade++
			}
		}
		if swarmMade == 0 || swarmMade > 5 {
			t.Errorf("seed %d: the swarm injected %d faults, want 1..5", seed, swarmMade)
		}
		total := 0
		for _, n := range in.Injected() {
			total += n
		}
		if total != in.Realized().Len() || total > 5+explicit.Len() {
			t.Errorf("seed %d: %d faults injected, realized %d", seed, total, in.Realized().Len())
		}
	}
}

func containsFault(p Plan, f Fault) bool {
	for _, g := range p.Faults {
		if g == f {
			return true
		}
	}
	return false
}

func TestNoPlanNoSwarmNoFaults(t *testing.T) {
	in := NewInjector(Plan{}, nil, nil)
	play(in, script(7, 300, 6, 4))
	if in.Realized().Len() != 0 || in.Injected() != ([KindCount]int{}) {
		t.Errorf("faults without a plan or swarm: %q", in.Realized())
	}
}

func TestNewInjectorRejectsInvalidPlans(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewInjector accepted a crash at the relay with worker 0")
		}
	}()
	NewInjector(Plan{Faults: []Fault{{Kind: Crash, Boundary: model.RelayAfterPublishBeforeMark, Nth: 1}}}, nil, nil)
}

// An absorbed commit (the outbox took it as a duplicate) times out at
// absorbedBoost times the swarm's rate; Boost switches a kind on at least
// at a rate.
func TestAbsorbedCommitBoost(t *testing.T) {
	count := func(absorbed bool) int {
		r := scheduler.NewStream(7)
		s := &Swarm{Params: SwarmParams{MaxFaults: 1 << 30}.withDefaults()}
		s.Boost(AmbiguousCommit, 20_000)
		s.Boost(AmbiguousCommit, 10_000) // a lower rate leaves it at 2%
		in := NewInjector(Plan{}, s, r)
		n := 0
		for range 20_000 {
			if in.Commit(absorbed) {
				n++
			}
		}
		return n
	}
	plain, absorbed := count(false), count(true)
	if plain < 300 || plain > 500 {
		t.Errorf("%d of 20,000 plain commits ambiguous at 2%%, want about 400", plain)
	}
	if lo, hi := plain*absorbedBoost*3/4, plain*absorbedBoost*5/4; absorbed < lo || absorbed > hi {
		t.Errorf("%d of 20,000 absorbed commits ambiguous, want about %d× the plain %d", absorbed, absorbedBoost, plain)
	}
}

// TestResetIsANewInjector plays two runs on one injector, Reset between
// them: the second must answer, realize and count exactly as a fresh
// injector does, whatever the first left behind (more docs, more workers,
// a plan, a swarm with bursts).
func TestResetIsANewInjector(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		newRun := func(label string) (Plan, *Swarm, uint64, []op) {
			seed := rapid.Uint64().Draw(t, label+" seed")
			explicit := PlanGen(6, 4).Draw(t, label+" explicit")
			var swarm *Swarm
			if rapid.Bool().Draw(t, label+" swarm") {
				swarm = NewSwarm(scheduler.NewStream(seed), testParams)
				if rapid.Bool().Draw(t, label+" heavy") {
					swarm = heavySwarm(scheduler.PPM(rapid.IntRange(1, 500_000).Draw(t, label+" rate")), 12)
				}
			}
			docs, workers := int32(rapid.IntRange(1, 8).Draw(t, label+" docs")), int32(rapid.IntRange(1, 6).Draw(t, label+" workers"))
			return explicit, swarm, seed, script(seed^0x5eed, rapid.IntRange(0, 400).Draw(t, label+" calls"), docs, workers)
		}
		stream := func(swarm *Swarm, seed uint64) *scheduler.Stream {
			if swarm == nil {
				return nil
			}
			return scheduler.NewStream(seed + 1)
		}
		p1, s1, seed1, ops1 := newRun("first")
		p2, s2, seed2, ops2 := newRun("second")
		fresh := NewInjector(p2, s2, stream(s2, seed2))
		want, wantPlan := play(fresh, ops2), fresh.Realized()
		in := NewInjector(p1, s1, stream(s1, seed1))
		play(in, ops1)
		in.Reset(p2, s2, stream(s2, seed2))
		if diff := cmp.Diff(want, play(in, ops2)); diff != "" {
			t.Fatalf("a reset injector answers differently (-fresh +reset):\n%s", diff)
		}
		if diff := cmp.Diff(wantPlan, in.Realized()); diff != "" {
			t.Fatalf("a reset injector realized a different plan (-fresh +reset):\n%s", diff)
		}
		if fresh.Injected() != in.Injected() || cmp.Diff(fresh.BoundaryHits(), in.BoundaryHits()) != "" || cmp.Diff(fresh.Crossings(), in.Crossings()) != "" {
			t.Fatalf("a reset injector counts differently: %v %v, fresh %v %v", in.Injected(), in.BoundaryHits(), fresh.Injected(), fresh.BoundaryHits())
		}
		p, c := in.Calls()
		if fp, fc := fresh.Calls(); p != fp || c != fc {
			t.Fatalf("a reset injector counted %d publishes, %d commits; fresh %d, %d", p, c, fp, fc)
		}
	})
}

// A reset injector forgets the workers' own crossing counts: the same
// worker-named plan, played again after a reset, strikes at the same
// crossing as on a fresh injector (rapid's mixed plans rarely pair a
// worker-named fault with a first run that crossed its boundary as that
// worker, so this case is spelled out).
func TestResetForgetsWorkerCounts(t *testing.T) {
	for _, text := range []string{"crash after_lease nth=2 worker=w1", "crash after_ack nth=3 worker=w2"} {
		plan := mustParse(t, text)
		ops := script(7, 300, 6, 4)
		fresh := NewInjector(plan, nil, nil)
		want := play(fresh, ops)
		if len(fresh.Realized().Faults) == 0 {
			t.Fatalf("%q: the script never strikes it; the case proves nothing", text)
		}
		in := NewInjector(plan, nil, nil)
		play(in, ops)
		in.Reset(plan, nil, nil)
		if diff := cmp.Diff(want, play(in, ops)); diff != "" {
			t.Errorf("%q: after a reset the plan strikes elsewhere (-fresh +reset):\n%s", text, diff)
		}
	}
}

// TestCrossingsCountEveryCrossing: Crossings counts each boundary's
// crossings, before and after Stop, with a plan or without.
func TestCrossingsCountEveryCrossing(t *testing.T) {
	for _, plan := range []Plan{{}, mustParse(t, "crash after_lease nth=2 worker=w1")} {
		in := NewInjector(plan, nil, nil)
		want := make([]int32, len(model.Boundaries())+1)
		for i, o := range script(3, 300, 6, 4) {
			if i == 200 {
				in.Stop()
			}
			in.Crossing(o.b, o.worker)
			want[o.b]++
		}
		if diff := cmp.Diff(want, in.Crossings()); diff != "" {
			t.Errorf("plan %q: Crossings() (-want +got):\n%s", plan, diff)
		}
	}
}
