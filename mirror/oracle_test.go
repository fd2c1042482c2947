package mirror_test

import (
	"context"
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/mirror"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/sqlstore"
)

// A clean seed feeds the store checks every operation it replayed, and
// they hold over the store's final state.
func TestStoreChecksHoldOverAMirroredSeed(t *testing.T) {
	b := open(t, sqlstore.SQLite, ":memory:")
	cfg := sim.DefaultConfig()
	cfg.Backend = b
	res, err := sim.Run(cfg, 3)
	if err != nil || res.Failed() {
		t.Fatalf("seed 3: %v %v", err, res.Violations)
	}
	kinds := map[invariants.OpKind]int{}
	for _, o := range b.Ops() {
		kinds[o.Kind]++
		if o.T0 != o.T1 || o.Seq == 0 {
			t.Fatalf("op %+v: want T0 == T1 and the event's seq", o)
		}
	}
	for _, k := range []invariants.OpKind{invariants.OpEnqueue, invariants.OpLease, invariants.OpCommit, invariants.OpAck,
		invariants.OpPublish, invariants.OpMark, invariants.OpApply} {
		if kinds[k] == 0 {
			t.Errorf("no %s operation recorded: %v", k, kinds)
		}
	}
	if vs := b.Check(res.Drained); len(vs) != 0 {
		t.Fatalf("store checks over a clean seed: %v", vs)
	}
}

// corruptsAtEnd is the mirror with one more effect row in its final state,
// inserted in SQL after the comparison with the model and before the
// store checks read the state: the history-only oracles, run over the
// SQL store's own tables, must catch it by themselves.
type corruptsAtEnd struct {
	*mirror.Backend
	t *testing.T
}

func (c corruptsAtEnd) Check(drained bool) []invariants.Violation {
	ctx := context.Background()
	st, err := c.Store().State(ctx)
	if err != nil || len(st.Effects) == 0 {
		c.t.Fatalf("reading the state: %v (%d effects)", err, len(st.Effects))
	}
	e := st.Effects[0]
	if _, err := c.Store().DB().ExecContext(ctx, `INSERT INTO effects (event_id, idem_key, stage, tenant, job, at)
		VALUES (?, ?, ?, ?, ?, ?)`, int64(e.EventID)+1000000, e.Key, int(e.Stage), e.Tenant, int64(e.Job), e.At); err != nil {
		c.t.Fatal(err)
	}
	if st, err = c.Store().State(ctx); err != nil {
		c.t.Fatal(err)
	}
	return mirror.CheckState(st, c.Ops(), drained)
}

var _ sim.Checker = corruptsAtEnd{}

func TestStoreChecksCatchADuplicateEffect(t *testing.T) {
	b := open(t, sqlstore.SQLite, ":memory:")
	cfg := sim.DefaultConfig()
	cfg.Backend = corruptsAtEnd{b, t}
	res, err := sim.Run(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range res.Violations {
		got[v.Invariant] += v.Message + "; "
	}
	dup, orphan := invariants.StoreNoDuplicates.String(), invariants.StoreNoOrphans.String()
	if !strings.Contains(got[dup], "has 2 effects") || !strings.Contains(got[orphan], "matches no committed row") {
		t.Fatalf("want %s and %s violations, got %v", dup, orphan, res.Violations)
	}
	for name := range got {
		if name != dup && name != orphan {
			t.Errorf("unexpected %s violation: %s", name, got[name])
		}
	}
}
