package workload

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// memStore is a Store in memory: committed effects and ledger keys.
type memStore struct {
	effects []Effect
	ledger  map[string]bool
}

func (s *memStore) Effect(_ context.Context, e Effect) error {
	s.effects = append(s.effects, e)
	return nil
}
func (s *memStore) Begin(context.Context) (Tx, error) { return &memTx{s: s}, nil }

type memTx struct {
	s       *memStore
	effects []Effect
	keys    []string
}

func (t *memTx) Ledger(_ context.Context, k string) (bool, error) {
	if t.s.ledger[k] || slices.Contains(t.keys, k) {
		return false, nil
	}
	t.keys = append(t.keys, k)
	return true, nil
}
func (t *memTx) Effect(_ context.Context, e Effect) error {
	t.effects = append(t.effects, e)
	return nil
}
func (t *memTx) Commit(context.Context) error {
	t.s.effects = append(t.s.effects, t.effects...)
	for _, k := range t.keys {
		t.s.ledger[k] = true
	}
	return nil
}
func (t *memTx) Rollback(context.Context) error { return nil }
func (t *memTx) Raw() any                       { return t }

// handle runs one job through a handler of design d on a fresh store,
// its completion returning state at attempt, and returns the ops of the
// lines it wrote, the store and Handle's error.
func handle(t *testing.T, d targetsim.Design, st target.State, attempt int, s *memStore) ([]string, error) {
	t.Helper()
	h := &History{Proc: "w1"}
	k := &Killer{Hist: h}
	hd := (&Handler{Store: s, Design: d, Name: "w1", Hist: h, Kill: k, Work: time.Millisecond,
		Complete: func(context.Context, Tx, Job) (target.State, int, error) { return st, attempt, nil }}).Seeded(1, 1, 0)
	err := hd.Handle(context.Background(), Job{ID: 7, Attempt: 2, Args: DocOf(1)})
	var ops []string
	for _, e := range h.Entries() {
		ops = append(ops, e.Op)
	}
	return ops, err
}

// Each design writes its lines in order and its effect where it should;
// tx-checked rolls back a completion at another attempt, tx-as-documented
// commits it.
func TestHandlerDesigns(t *testing.T) {
	for _, tc := range []struct {
		d       targetsim.Design
		st      target.State
		attempt int
		ops     []string
		effects int
		stale   bool
	}{
		{targetsim.TxChecked, target.Completed, 2, []string{OpFetch, OpWork, OpEffect, OpComplete, OpCommit}, 1, false},
		{targetsim.TxChecked, target.Completed, 3, []string{OpFetch, OpWork, OpEffect, OpComplete, OpRollback}, 0, true},
		{targetsim.TxAsDocumented, target.Completed, 3, []string{OpFetch, OpWork, OpEffect, OpComplete, OpCommit}, 1, false},
		{targetsim.IdempotentKey, 0, 0, []string{OpFetch, OpWork, OpEffect, OpCommit}, 1, false},
		{targetsim.KeyWithoutTenant, 0, 0, []string{OpFetch, OpWork, OpEffect, OpCommit}, 1, false},
		{targetsim.EffectOutsideTx, 0, 0, []string{OpFetch, OpWork, OpEffect}, 1, false},
	} {
		s := &memStore{ledger: map[string]bool{}}
		ops, err := handle(t, tc.d, tc.st, tc.attempt, s)
		if !slices.Equal(ops, tc.ops) || len(s.effects) != tc.effects || errors.Is(err, ErrStale) != tc.stale {
			t.Errorf("%s (completion %s at %d): lines %v, %d effects, error %v; want %v, %d", tc.d, tc.st, tc.attempt, ops, len(s.effects), err,
				tc.ops, tc.effects)
		}
	}
}

// A keyed handler writes a key's effect once: the second job of the same
// key finds it in the ledger and writes none; without the tenant, two
// tenants' documents of one name share the key.
func TestHandlerKeyed(t *testing.T) {
	s := &memStore{ledger: map[string]bool{}}
	for range 2 {
		if _, err := handle(t, targetsim.IdempotentKey, 0, 0, s); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.effects) != 1 || s.effects[0].Key != "acme:d1:v1" {
		t.Errorf("effects %+v, want one under acme:d1:v1", s.effects)
	}
	if DocOf(1).KeyWithoutTenant() != DocOf(2).KeyWithoutTenant() || DocOf(1).Key() == DocOf(2).Key() {
		t.Errorf("documents 1 and 2: keys %s %s, without the tenant %s %s", DocOf(1).Key(), DocOf(2).Key(), DocOf(1).KeyWithoutTenant(),
			DocOf(2).KeyWithoutTenant())
	}
}

// The handler crosses its design's kill points, and only those.
func TestHandlerCrossesItsPoints(t *testing.T) {
	for _, d := range []targetsim.Design{targetsim.TxChecked, targetsim.IdempotentKey, targetsim.EffectOutsideTx} {
		for _, p := range Points("lib", d).List() {
			var died []boundary.Boundary
			h := &History{Proc: "w1"}
			k := &Killer{Assignment: crash.Assignment{At: p, Nth: 1}, Hist: h, Kill: func(b boundary.Boundary) { died = append(died, b) }}
			hd := (&Handler{Store: &memStore{ledger: map[string]bool{}}, Design: d, Name: "w1", Hist: h, Kill: k, Work: time.Millisecond,
				Complete: func(context.Context, Tx, Job) (target.State, int, error) { return target.Completed, 1, nil }}).Seeded(1, 1, 0)
			_ = hd.Handle(context.Background(), Job{ID: 1, Attempt: 1, Args: DocOf(1)})
			if !slices.Equal(died, []boundary.Boundary{p}) {
				t.Errorf("%s at %s: died at %v", d, p, died)
			}
		}
	}
}

// A report holds when no check is violated and the library's own checks
// hold; one failed check of either kind fails it. tally counts documents
// with two effects, completed with none, and with an effect but no
// completed job.
func TestReport(t *testing.T) {
	r := &Report{Checks: []Verdict{{Check: "leaders-are-children"}}}
	if !r.OK() {
		t.Error("a report with nothing failed is not OK")
	}
	r.Checks = append(r.Checks, Verdict{Check: "leaders-are-children", Failed: "orchestrator"})
	if r.OK() {
		t.Error("a failed library check is OK")
	}
	a, b, c := DocOf(1).Target(), DocOf(2).Target(), DocOf(3).Target()
	snap := target.Snapshot{Jobs: []target.Job{{ID: 1, Args: a, State: target.Completed}, {ID: 2, Args: b, State: target.Completed},
		{ID: 3, Args: c, State: target.Running}},
		Effects: []target.Effect{{Job: 1}, {Job: 1}, {Job: 3}}}
	r = &Report{}
	r.tally([]Entry{{Op: OpStart, Zone: "-03"}, {Op: OpKill, Point: "after_fetch"}, {Op: OpRollback, Err: "stale_completion"}}, snap)
	if r.CompletedDocs != 2 || r.DuplicateDocs != 1 || r.MissingDocs != 1 || r.OrphanDocs != 1 || r.Effects != 3 {
		t.Errorf("completed %d, duplicate %d, missing %d, orphan %d, effects %d", r.CompletedDocs, r.DuplicateDocs, r.MissingDocs, r.OrphanDocs, r.Effects)
	}
	if !slices.Equal(r.Zones, []string{"-03"}) || r.KillLines["after_fetch"] != 1 || r.Lines["stale_completion"] != 1 {
		t.Errorf("zones %v, kill lines %v, lines %v", r.Zones, r.KillLines, r.Lines)
	}
}

// The common settings' bad values are one-line usage errors.
func TestConfigValidate(t *testing.T) {
	ok := Config{Settings: crash.Settings{Kills: 1, Timeout: time.Minute, Drain: time.Minute, Reach: time.Minute}, Workers: 3, Steady: 1,
		Concurrency: 2, Jobs: 10, Design: targetsim.IdempotentKey, MaxAttempts: 3, JobTimeout: time.Second, Work: 100 * time.Millisecond,
		MaxFreeze: time.Minute}
	designs := []targetsim.Design{targetsim.IdempotentKey}
	if err := ok.Validate("lib", designs); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*Config){
		"one worker":   func(c *Config) { c.Workers = 1 },
		"all steady":   func(c *Config) { c.Steady = c.Workers },
		"other design": func(c *Config) { c.Design = targetsim.TxChecked },
		"long work":    func(c *Config) { c.Work = c.JobTimeout },
		"zombies":      func(c *Config) { c.Zombies = 1 },
		"no jobs":      func(c *Config) { c.Jobs = 0 },
	} {
		c := ok
		mod(&c)
		var ue *crash.UsageError
		if err := c.Validate("lib", designs); !errors.As(err, &ue) {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
}
