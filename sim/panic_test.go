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

// namedPanicky is panickyStore as if the CLI could open it by its name.
type namedPanicky struct{ panickyStore }

func (*namedPanicky) OpenedByName() {}

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
	// The store is the test's own: the CLI cannot open it, so no durasim
	// command is printed, only the way that reproduces it.
	for _, want := range []string{"seed 7 panicked in ", "panickyStore).Observe (sim/panic_test.go:", "index out of range", "reproduce with its go test line: backend panicky"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if pe.Seed != 7 || !strings.Contains(pe.Stack, "panic_test.go") || strings.Contains(err.Error(), "durasim replay") {
		t.Errorf("seed %d, stack %q, error %q", pe.Seed, pe.Stack, err)
	}
	// A store the CLI opens by name is named in the command.
	cfg.Backend = &namedPanicky{}
	if _, err := rn.Run(cfg, 7); err == nil || !strings.Contains(err.Error(), "reproduce: go run ./cmd/durasim replay -seed 7 -backend panicky") {
		t.Errorf("a store the CLI opens: %v", err)
	}
	cfg.Backend = nil
	if res, err := rn.Run(cfg, 7); err != nil || res.Failed() {
		t.Fatalf("the next run on the same Runner: %v, %v", err, res.Violations)
	}
}
