package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// panickyStore is a backend with a bug: it indexes past its table at the
// tenth event.
type panickyStore struct{ rows []int }

func (*panickyStore) Name() string                        { return "panicky" }
func (p *panickyStore) Begin(uint64, *model.System) error { p.rows = p.rows[:0]; return nil }
func (*panickyStore) End(*model.System) error             { return nil }
func (p *panickyStore) Observe(e *model.Event) error {
	p.rows = append(p.rows, int(e.Seq))
	if e.Seq == 10 {
		_ = p.rows[e.Seq] // out of range
	}
	return nil
}

// TestPanicNamesItsSeed: a run that panics (here in a store under test) is
// an error naming the seed, where it panicked and the command that replays
// it, not a crash of the whole sweep; the Runner goes on with the next
// seed.
func TestPanicNamesItsSeed(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Backend = &panickyStore{}
	rn := sim.NewRunner()
	_, err := rn.Run(cfg, 7)
	var pe *sim.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Run = %v, want a *sim.PanicError", err)
	}
	for _, want := range []string{"seed 7 panicked in ", "panickyStore).Observe (sim/panic_test.go:", "index out of range", "go run ./cmd/durasim replay -seed 7 -backend panicky"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if pe.Seed != 7 || !strings.Contains(pe.Stack, "panic_test.go") {
		t.Errorf("seed %d, stack %q", pe.Seed, pe.Stack)
	}
	cfg.Backend = nil
	if res, err := rn.Run(cfg, 7); err != nil || res.Failed() {
		t.Fatalf("the next run on the same Runner: %v, %v", err, res.Violations)
	}
}
