package mirror_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/durasim/durasim/mirror"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/sqlstore"
)

// Broken stores: each wraps a real connection and gets one thing wrong.
// The mirror must catch every one, or its agreement means nothing.

// ignoresFence accepts a heartbeat, checkpoint or ack the store fenced off.
type ignoresFence struct{ mirror.Conn }

func (c ignoresFence) Heartbeat(ctx context.Context, j model.JobID, f uint64, until model.Time) error {
	return swallowFenced(c.Conn.Heartbeat(ctx, j, f, until))
}
func (c ignoresFence) Advance(ctx context.Context, j model.JobID, f uint64, next model.Stage) error {
	return swallowFenced(c.Conn.Advance(ctx, j, f, next))
}
func (c ignoresFence) Ack(ctx context.Context, j model.JobID, f uint64, now model.Time) error {
	return swallowFenced(c.Conn.Ack(ctx, j, f, now))
}

func swallowFenced(err error) error {
	if errors.Is(err, sqlstore.ErrFenced) {
		return nil
	}
	return err
}

// createdOnDuplicate says a deduplicated commit created its result.
type createdOnDuplicate struct{ mirror.Conn }

func (c createdOnDuplicate) Commit(ctx context.Context, r sqlstore.CommitReq) (sqlstore.Committed, error) {
	res, err := c.Conn.Commit(ctx, r)
	res.Deduped = false
	return res, err
}

// forgetsLedger applies a redelivered event again... or says so.
type forgetsLedger struct{ mirror.Conn }

func (c forgetsLedger) Deliver(ctx context.Context, msg int64, now model.Time) (model.EventID, bool, error) {
	ev, _, err := c.Conn.Deliver(ctx, msg, now)
	return ev, true, err
}

// losesRetryCode records a retry without its reason: only the final
// state comparison can see it.
type losesRetryCode struct{ mirror.Conn }

func (c losesRetryCode) Retry(ctx context.Context, j model.JobID, f uint64, at model.Time, _ model.Code) error {
	return c.Conn.Retry(ctx, j, f, at, model.CodeNone)
}

func TestMirrorCatchesBrokenStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(mirror.Conn) mirror.Conn
	}{
		{"ignores-fence", func(c mirror.Conn) mirror.Conn { return ignoresFence{c} }},
		{"created-on-duplicate", func(c mirror.Conn) mirror.Conn { return createdOnDuplicate{c} }},
		{"forgets-ledger", func(c mirror.Conn) mirror.Conn { return forgetsLedger{c} }},
		{"loses-retry-code", func(c mirror.Conn) mirror.Conn { return losesRetryCode{c} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t, sqlstore.SQLite, ":memory:", mirror.WithWrap(tc.wrap))
			cfg := sim.DefaultConfig()
			cfg.Backend = b
			rn := sim.NewRunner()
			for seed := uint64(1); seed <= 100; seed++ {
				res, err := rn.Run(cfg, seed)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Failed() {
					continue
				}
				v := res.Violations[len(res.Violations)-1]
				if v.Invariant != sim.DivergenceInvariant || !strings.Contains(v.Message, "sqlite said") && !strings.Contains(v.Message, "tables differ") {
					t.Fatalf("seed %d: want a %s violation, got %v", seed, sim.DivergenceInvariant, res.Violations)
				}
				if cmd := sim.Command("run", cfg, seed); !strings.Contains(cmd, "-backend sqlite") {
					t.Fatalf("reproduce command %q does not name the backend", cmd)
				}
				t.Logf("caught at seed %d: %s", seed, v)
				return
			}
			t.Fatal("the broken store agreed with the model on 100 seeds")
		})
	}
}
