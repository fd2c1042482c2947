package mirror_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/pgtest"
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

// mislabelsRefusals refuses what it should, for the wrong reason: a stale
// fence told as not leased, and the reverse.
type mislabelsRefusals struct{ mirror.Conn }

func (c mislabelsRefusals) Heartbeat(ctx context.Context, j model.JobID, f uint64, until model.Time) error {
	return mislabel(c.Conn.Heartbeat(ctx, j, f, until))
}
func (c mislabelsRefusals) Advance(ctx context.Context, j model.JobID, f uint64, next model.Stage) error {
	return mislabel(c.Conn.Advance(ctx, j, f, next))
}
func (c mislabelsRefusals) Ack(ctx context.Context, j model.JobID, f uint64, now model.Time) error {
	return mislabel(c.Conn.Ack(ctx, j, f, now))
}

func mislabel(err error) error {
	var fe *sqlstore.FenceError
	if errors.As(err, &fe) {
		swapped := *fe
		switch fe.Code {
		case model.CodeStaleFence:
			swapped.Code = model.CodeNotLeased
		case model.CodeNotLeased:
			swapped.Code = model.CodeStaleFence
		}
		return &swapped
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

// echoesCaller answers a deduplicated commit with the caller's own value
// and event id instead of the stored ones.
type echoesCaller struct{ mirror.Conn }

func (c echoesCaller) Commit(ctx context.Context, r sqlstore.CommitReq) (sqlstore.Committed, error) {
	res, err := c.Conn.Commit(ctx, r)
	if res.Deduped {
		res.Value = r.Value
		if r.EventID != 0 {
			res.EventID = r.EventID
		}
	}
	return res, err
}

// dedupesConflicts answers a commit under another payload hash as a
// dedupe: it never compares the payload.
type dedupesConflicts struct{ mirror.Conn }

func (c dedupesConflicts) Commit(ctx context.Context, r sqlstore.CommitReq) (sqlstore.Committed, error) {
	res, err := c.Conn.Commit(ctx, r)
	if errors.Is(err, sqlstore.ErrIdempotencyConflict) {
		return sqlstore.Committed{EventID: r.EventID, Value: r.Value, Deduped: true}, nil
	}
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

// readsPastCursorOnly reads only the messages past the consumer's cursor:
// one delivered late, after a later one was applied, is never read again.
type readsPastCursorOnly struct{ mirror.Conn }

func (c readsPastCursorOnly) Messages(ctx context.Context, after int64, limit int) ([]sqlstore.Message, error) {
	msgs, err := c.Conn.Messages(ctx, after, limit)
	kept := msgs[:0]
	for _, m := range msgs {
		if m.ID > after {
			kept = append(kept, m)
		}
	}
	return kept, err
}

// readsShiftedEvents lists each message with the next message's event.
type readsShiftedEvents struct{ mirror.Conn }

func (c readsShiftedEvents) Messages(ctx context.Context, after int64, limit int) ([]sqlstore.Message, error) {
	msgs, err := c.Conn.Messages(ctx, after, limit)
	for i := range msgs {
		msgs[i].Event++
	}
	return msgs, err
}

// redriveKeepsDeadline redrives a job without a new deadline: only the
// deadline column, read back at the end, shows it.
type redriveKeepsDeadline struct{ mirror.Conn }

func (c redriveKeepsDeadline) Redrive(ctx context.Context, j model.JobID, now, _ model.Time) error {
	return c.Conn.Redrive(ctx, j, now, now)
}

// publishesUndated stores every broker message with no publish time.
type publishesUndated struct{ mirror.Conn }

func (c publishesUndated) Publish(ctx context.Context, ev model.EventID, _ model.Time) (int64, error) {
	return c.Conn.Publish(ctx, ev, 0)
}

// claimsOneShort leaves the last row out of a claim of several: a relay
// that claims in batches never sees it until the rows before it are
// marked. A mirror that claimed one row at a time could not tell.
type claimsOneShort struct{ mirror.Conn }

func (c claimsOneShort) ClaimUnpublished(ctx context.Context, limit int) ([]sqlstore.Row, error) {
	rows, err := c.Conn.ClaimUnpublished(ctx, limit)
	if len(rows) > 1 {
		rows = rows[:len(rows)-1]
	}
	return rows, err
}

// marksAhead marks the next row too when it marks one.
type marksAhead struct{ mirror.Conn }

func (c marksAhead) MarkPublished(ctx context.Context, ev model.EventID, now model.Time) error {
	if err := c.Conn.MarkPublished(ctx, ev, now); err != nil {
		return err
	}
	_ = c.Conn.MarkPublished(ctx, ev+1, now) // no such row yet: nothing to mark
	return nil
}

// commitsBeforeTheTear is a store whose commit is two transactions: a
// crash inside it keeps what the first committed (here, all of it).
type commitsBeforeTheTear struct {
	mirror.Conn
	armed *bool
}

func (c commitsBeforeTheTear) TearAfter(n int) { *c.armed = true }
func (c commitsBeforeTheTear) Torn() bool      { return *c.armed }
func (c commitsBeforeTheTear) Commit(ctx context.Context, r sqlstore.CommitReq) (sqlstore.Committed, error) {
	res, err := c.Conn.Commit(ctx, r)
	if *c.armed {
		return sqlstore.Committed{}, errors.New("connection closed between the two transactions")
	}
	return res, err
}

// appliesBeforeTheTear is a store whose delivery commits the ledger entry
// and the effect in two transactions: a crash inside it keeps the first
// (here, all of it). Its other operations tear as the real store's.
type appliesBeforeTheTear struct {
	mirror.Conn
	armed *bool
}

func (c appliesBeforeTheTear) TearAfter(n int) { *c.armed = true; c.Conn.TearAfter(n) }
func (c appliesBeforeTheTear) Torn() bool {
	torn := c.Conn.Torn()
	if *c.armed {
		*c.armed = false
		return true
	}
	return torn
}
func (c appliesBeforeTheTear) Deliver(ctx context.Context, msg int64, now model.Time) (model.EventID, bool, error) {
	if !*c.armed {
		return c.Conn.Deliver(ctx, msg, now)
	}
	c.Conn.Torn() // the tear falls between the two transactions instead
	if _, _, err := c.Conn.Deliver(ctx, msg, now); err != nil {
		return 0, false, err
	}
	return 0, false, errors.New("connection closed between the two transactions")
}

func TestMirrorCatchesBrokenStore(t *testing.T) {
	if raceDetector {
		t.Skip("judges the mirror's comparisons, on one goroutine: the unit run without -race covers it (see race_on_test.go)")
	}
	for _, tc := range []struct {
		name string
		wrap func(mirror.Conn) mirror.Conn
	}{
		{"ignores-fence", func(c mirror.Conn) mirror.Conn { return ignoresFence{c} }},
		{"mislabels-refusals", func(c mirror.Conn) mirror.Conn { return mislabelsRefusals{c} }},
		{"created-on-duplicate", func(c mirror.Conn) mirror.Conn { return createdOnDuplicate{c} }},
		{"echoes-caller-on-dedupe", func(c mirror.Conn) mirror.Conn { return echoesCaller{c} }},
		{"dedupes-commit-conflicts", func(c mirror.Conn) mirror.Conn { return dedupesConflicts{c} }},
		{"forgets-ledger", func(c mirror.Conn) mirror.Conn { return forgetsLedger{c} }},
		{"loses-retry-code", func(c mirror.Conn) mirror.Conn { return losesRetryCode{c} }},
		{"reads-past-cursor-only", func(c mirror.Conn) mirror.Conn { return readsPastCursorOnly{c} }},
		{"reads-shifted-events", func(c mirror.Conn) mirror.Conn { return readsShiftedEvents{c} }},
		{"retries-at-once", func(c mirror.Conn) mirror.Conn { return retriesAtOnce{c} }},
		{"redrive-keeps-deadline", func(c mirror.Conn) mirror.Conn { return redriveKeepsDeadline{c} }},
		{"publishes-undated", func(c mirror.Conn) mirror.Conn { return publishesUndated{c} }},
		{"claims-one-short", func(c mirror.Conn) mirror.Conn { return claimsOneShort{c} }},
		{"marks-ahead", func(c mirror.Conn) mirror.Conn { return marksAhead{c} }},
		{"commit-in-two-transactions", func(c mirror.Conn) mirror.Conn { return commitsBeforeTheTear{c, new(bool)} }},
		{"delivery-in-two-transactions", func(c mirror.Conn) mirror.Conn { return appliesBeforeTheTear{c, new(bool)} }},
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

// hidesApplies says no Apply applied its event, the first too: a
// consumer told "duplicate" for the event it just applied never counts
// it. The lockstep replay delivers through Deliver only: just the races
// (race.go), where a second consumer applies the event at once, call
// Apply, so only they can catch it (whichever side wins, neither says it
// did).
type hidesApplies struct{ mirror.Conn }

func (c hidesApplies) Apply(ctx context.Context, ev model.EventID, now model.Time) (bool, error) {
	_, err := c.Conn.Apply(ctx, ev, now)
	return false, err
}

// On PostgreSQL the first deliveries of a seed are raced by a second
// consumer: a store that answered neither as applied is caught there, on
// SQLite (no races: one writer at a time) it passes.
func TestMirrorRacesDeliveries(t *testing.T) {
	wrap := mirror.WithWrap(func(c mirror.Conn) mirror.Conn { return hidesApplies{c} })
	cfg := sim.DefaultConfig()
	cfg.Backend = open(t, sqlstore.SQLite, ":memory:", wrap)
	if res, err := sim.Run(cfg, 1); err != nil || res.Failed() {
		t.Fatalf("sqlite has no races, so nothing to catch: %v %v", res.Violations, err)
	}
	cfg.Backend = open(t, sqlstore.Postgres, pgtest.Fresh(t, pgtest.URL(t)), wrap)
	res, err := sim.Run(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed() || !strings.Contains(res.Violations[0].Message, "racing another: both lost") {
		t.Fatalf("want a race's divergence, got %v", res.Violations)
	}
}

// retriesAtOnce makes a retried job visible at once: a lease that ignores
// the retry's visibility time.
type retriesAtOnce struct{ mirror.Conn }

func (c retriesAtOnce) Retry(ctx context.Context, j model.JobID, f uint64, _ model.Time, code model.Code) error {
	return c.Conn.Retry(ctx, j, f, 0, code)
}

// hidePolls is a backend that does not check empty polls.
type hidePolls struct{ sim.Backend }

// With one job, a retry that is visible at once differs from the model's
// leases only when a worker polls during the backoff and the model has
// nothing to give: the empty poll is compared, and catches it there. A
// mirror that compared only the leases the model granted sees it only at
// the end, in the job's visible_at read back.
func TestMirrorComparesEmptyPolls(t *testing.T) {
	b := open(t, sqlstore.SQLite, ":memory:", mirror.WithWrap(func(c mirror.Conn) mirror.Conn { return retriesAtOnce{c} }))
	plan, err := faults.Parse("transient doc=1 attempt=1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Workers, cfg.Docs, cfg.Swarm, cfg.Plan = 1, 1, false, plan
	cfg.Backend = b
	res, err := sim.Run(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed() || !strings.Contains(res.Violations[0].Message, "the model said no visible job (w0 polls at t=") {
		t.Fatalf("want an empty poll's divergence, got %v", res.Violations)
	}
	cfg.Backend = hidePolls{b}
	if res, err = sim.Run(cfg, 1); err != nil || !res.Failed() || !strings.Contains(res.Violations[0].Message, "final state") ||
		!strings.Contains(res.Violations[0].Message, "VisibleAt") {
		t.Fatalf("without the empty polls only the final visible_at should differ: %v %v", res.Violations, err)
	}
}
