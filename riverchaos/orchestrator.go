package riverchaos

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// Run runs a River chaos campaign on the workload (package
// crash/workload) and checks it. The error is a *UsageError for bad
// input, another error when the run could not finish (a child died of
// something else than its kill point, a point was not reached within
// -reach, the run's timeout); a finished run returns its report, whose OK
// says whether every check held. A drain that does not end in time is a
// finished run: target-drained names what is left.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	pool, err := workload.OpenPool(octx, cfg.DB, "durasim-orchestrator", 12)
	if err == nil {
		err = prepare(octx, pool)
	}
	cancel()
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		if ue := (*UsageError)(nil); errors.As(err, &ue) {
			return nil, err
		}
		return nil, &UsageError{Err: err}
	}
	defer pool.Close()
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{ID: "orchestrator", SkipUnknownJobCheck: true}) // never started: it only inserts
	if err != nil {
		return nil, err
	}
	a := &adapter{cfg: cfg, pool: pool, client: client}
	rep, err := workload.Run(ctx, workload.Spec{Config: cfg.Config, Lib: "River", Name: "riverchaos", Role: "river-worker", Stream: 0x71fe4,
		Env:     []string{"DURASIM_PG_URL=" + cfg.DB}, // the URL by environment, not argv: no password in ps
		Adapter: a, Feed: feed(cfg.Design), Unique: true, DrainDelay: cfg.RescueAfter, StopWait: stopWait, Poll: 25 * time.Millisecond, Start: start})
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r := &Report{Report: rep, KilledLead: cfg.KilledLead, Leaders: a.leaders, BadLeaders: a.badLeaders(), LockFreezes: a.locks.n}
	return r, nil
}

// stopWait is how long a stop waits for its children (each stops River's
// client, waiting for its jobs, which end by their JobTimeout at the
// latest) before it SIGKILLs the rest: a hard stop.
const stopWait = 30 * time.Second

// feed is what a River run's histories give the checks. Every design is
// held to one effect per document, as targetsim holds it: the naive ones
// are there to be caught. The histories are partial: a kill may cut any
// line off but the orchestrator's inserts, River's maintenance and
// completer record nothing, and no operator retries (so every retry is
// recorded: none); the handlers return nil or an error, never JobSnooze
// or JobCancel. What River promises is River's rules (its timing is not
// checked).
func feed(d targetsim.Design) invariants.TargetFeed {
	return invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry},
		Outcomes: []target.Outcome{target.Done, target.Errored}, Drained: true, ExactlyOnce: true,
		EffectKinds: []string{targetsim.KindDoc}, Transactional: workload.Transactional(d), Policy: rivertarget.Rules()}
}

// adapter is River's part of the workload: it inserts the documents
// through an insert-only River client (never started, never a leader),
// counts River's jobs, sees a takeover, reads the jobs back, and notes
// River's leaders.
type adapter struct {
	cfg    Config
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	locks  locks

	mu      sync.Mutex
	leaders []string // each leadership term's client, in order
}

// Args is a child's flags: `durasim river-worker`'s. Children given kill
// points stay out of River's leader election unless -killed-lead.
func (a *adapter) Args(c crash.Child) []string {
	return ChildConfig{Child: workload.ChildOf(c, a.cfg.Config), NoLead: c.Killing && c.Slot >= a.cfg.Steady && !a.cfg.KilledLead,
		MaxAttempts: a.cfg.MaxAttempts, RescueAfter: a.cfg.RescueAfter, JobTimeout: a.cfg.JobTimeout, RetryCap: a.cfg.RetryCap}.Args()
}

// Insert inserts document i through River's client (unique by args).
func (a *adapter) Insert(ctx context.Context, _ int, doc workload.DocArgs) (workload.Entry, error) {
	res, err := a.client.Insert(ctx, doc, insertOpts(a.cfg.MaxAttempts))
	if err != nil {
		return workload.Entry{}, err
	}
	return workload.Entry{Job: res.Job.ID, Unique: true, Skipped: res.UniqueSkippedAsDuplicate}, nil
}

// Available is River's available jobs.
func (a *adapter) Available(ctx context.Context) (int, error) {
	var n int
	err := a.pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state = 'available'").Scan(&n)
	return n, err
}

// Live is River's jobs not finished.
func (a *adapter) Live(ctx context.Context) (int, error) {
	var n int
	err := a.pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'discarded', 'cancelled')").Scan(&n)
	return n, err
}

// Snapshot reads the jobs through River's driver, and the effects.
func (a *adapter) Snapshot(ctx context.Context, _ int, base time.Time) (target.Snapshot, error) {
	return snapshot(ctx, a.pool, base)
}

// Tick notes the leader River's table names now, if it changed.
func (a *adapter) Tick(ctx context.Context) {
	var id string
	if a.pool.QueryRow(ctx, "SELECT leader_id FROM river_leader").Scan(&id) != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.leaders); n == 0 || a.leaders[n-1] != id {
		a.leaders = append(a.leaders, id)
	}
}

// badLeaders are the leaders that are not children: the orchestrator
// must never lead.
func (a *adapter) badLeaders() []string {
	var bad []string
	for _, l := range a.leaders {
		if !isChildName(l) {
			bad = append(bad, l)
		}
	}
	return bad
}

var _ workload.FreezeWatcher = (*adapter)(nil)
var _ workload.Ticker = (*adapter)(nil)
