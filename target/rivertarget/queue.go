package rivertarget

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/effectsql"
)

// Config is the River client's settings that the re-enacted logic uses.
type Config struct {
	// RescueAfter is River's RescueStuckJobsAfter: a job running longer is
	// stuck, and the rescuer retries or discards it.
	RescueAfter target.Time
	// JobTimeout is the client's JobTimeout, which the rescuer honours: a
	// job attempted less than this ago is left alone.
	JobTimeout target.Time
	// SchedulerInterval is the job scheduler's interval: a retry or snooze
	// due within it is made available at once. River's executor, run
	// through rivertest.Worker, is built with River's default
	// (RiverSchedulerInterval), so that is the only value.
	SchedulerInterval target.Time
	// MaxAttemptedBy is how many client names a job's attempted_by keeps.
	MaxAttemptedBy int
}

// DefaultConfig is the settings of a sweep: short horizons, so that a
// frozen worker's job is rescued within a run.
func DefaultConfig() Config {
	return Config{RescueAfter: 10 * target.Second, JobTimeout: 5 * target.Second, SchedulerInterval: RiverSchedulerInterval,
		MaxAttemptedBy: 100}
}

// Validate reports the first setting River itself would refuse.
func (c Config) Validate() error {
	switch {
	case c.RescueAfter <= 0:
		return fmt.Errorf("rescue-after must be positive, got %s", target.FormatSeconds(c.RescueAfter))
	case c.JobTimeout <= 0 || c.JobTimeout >= c.RescueAfter:
		return fmt.Errorf("job timeout %s must be positive and below rescue-after %s", target.FormatSeconds(c.JobTimeout),
			target.FormatSeconds(c.RescueAfter))
	case c.SchedulerInterval != RiverSchedulerInterval:
		return fmt.Errorf("scheduler interval must be River's default %s (rivertest.Worker builds River's executor with it), got %s",
			target.FormatSeconds(RiverSchedulerInterval), target.FormatSeconds(c.SchedulerInterval))
	case c.MaxAttemptedBy < 1:
		return fmt.Errorf("max-attempted-by must be at least 1, got %d", c.MaxAttemptedBy)
	}
	return nil
}

// Queue is River as a target.
type Queue struct {
	cfg     Config
	backend string
	db      db
	code    code   // River's own Go code on db
	clock   *clock // River's clock: the virtual time of the call in progress
	rand    target.Rand
	randMu  sync.Mutex // races mode: actors' calls draw from rand on their own goroutines
	url     string     // postgres: where the actors of races mode connect
	races   bool
	race    *raceState // races mode's actors (nil until it is first on)
}

var _ target.Queue = (*Queue)(nil)

// Open migrates River's schema into the database (url: an SQLite file
// URL, "" an in-memory database; or a PostgreSQL URL) and adds durasim's
// tables.
func Open(ctx context.Context, backend, url string, cfg Config) (*Queue, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	q := &Queue{cfg: cfg, backend: backend}
	var err error
	switch backend {
	case SQLite:
		q.db, err = openSQLite(ctx, url)
	case Postgres:
		if url == "" {
			return nil, errors.New("rivertarget: postgres needs a URL")
		}
		q.db, err = openPostgres(ctx, url)
		q.url = url
	default:
		return nil, fmt.Errorf("rivertarget: unknown backend %q (want %s or %s)", backend, SQLite, Postgres)
	}
	if err != nil {
		return nil, err
	}
	q.clock = &clock{}
	if q.code, err = q.db.river(q.clock, seededPolicy{q, q.clock}); err != nil {
		_ = q.db.close()
		return nil, err
	}
	return q, nil
}

// Skips counts River's queries the database judged certain to find
// nothing and so did not run (run anyway under VerifyIdlePolls,
// VerifyIdleSchedules and VerifyIdleStuck).
type Skips struct{ Polls, Passes, Stuck int }

// Skipped is, for tests, the queries skipped so far: none where the
// database judges none (PostgreSQL, an SQLite file).
func (q *Queue) Skipped() Skips {
	if s, ok := q.db.(interface{ skipped() Skips }); ok {
		return s.skipped()
	}
	return Skips{}
}

func (q *Queue) Name() string    { return "river" }
func (q *Queue) Backend() string { return q.backend }

// Version is the River release this binary was built with.
func (q *Queue) Version() string { return Version() }

// Version is the River release this binary was built with, from its
// module information ("(devel)" when there is none).
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/riverqueue/river" {
				return m.Version
			}
		}
	}
	return "(devel)"
}

// Policy is River's rules (Rules) with its timing under the queue's
// settings and River's default retry policy.
func (q *Queue) Policy() target.Policy {
	p := Rules()
	p.RescueAfter, p.JobTimeout, p.AvailableWithin = q.cfg.RescueAfter, q.cfg.JobTimeout, q.cfg.SchedulerInterval
	p.DueWithin = q.cfg.SchedulerInterval // the scheduler runs every interval
	p.Backoff = DefaultBackoff
	return p
}

// Rules are River's rules as the oracles read them, without timing (a
// client's own settings give that), following the v0.51.2 sources:
//
//   - a snooze gives its attempt back (internal/jobexecutor's
//     reportResult: JobSetStateSnoozed at attempt-1);
//   - a rescue keeps the stuck attempt counted and records an error; the
//     job is retried by the retry policy, or discarded at its last
//     attempt (internal/maintenance/job_rescuer.go, makeRetryDecision);
//   - a cancel records an error (JobSetStateCancelled carries it);
//   - an operator's JobRetry keeps the count and gives a job at its last
//     attempt one more (max_attempts = attempt + 1);
//   - a unique job holds its args in every state but cancelled and
//     discarded (UniqueOpts' default states);
//   - JobCompleteTx returns a job no longer running as it is, without an
//     error;
//   - a worker's Timeout replaces the client's JobTimeout for its jobs,
//     and the rescuer leaves a stuck job until it has passed; -1 is none,
//     and the rescuer never rescues that job (makeRetryDecision).
func Rules() target.Policy {
	return target.Policy{
		Snooze:            target.AttemptGivenBack,
		Rescue:            target.RescueRule{Attempt: target.AttemptCounted, CountsError: true},
		CancelCountsError: true,
		Retry:             target.RetryAddsAttempt,
		UniqueStates: []target.State{target.Available, target.Scheduled, target.Running, target.Retryable, target.Pending,
			target.Completed},
		CompleteNotRunning: target.CompletionReturnsRow,
		RunningOnly:        true,
		WorkerTimeouts:     true,
		CancelAsks:         true,
		// JobInsertFastMany: "unique key appears more than once in batch"
		// (SQLite's driver, as PostgreSQL refuses the statement).
		BatchRepeatsRefused: true,
	}
}

// DefaultBackoff is River's DefaultClientRetryPolicy: errors⁴ seconds
// ±10% after a job's errors-th error (capped at a year: no run lasts that
// long).
var DefaultBackoff = target.Backoff{Base: target.Second, Exponent: 4, Cap: 365 * 24 * 3600 * target.Second, JitterPPM: 100_000}

// Config is the queue's settings.
func (q *Queue) Config() Config { return q.cfg }

func (q *Queue) Reset(ctx context.Context, rand target.Rand) error {
	q.rand = rand
	return q.db.reset(ctx)
}

func (q *Queue) Close() error {
	err := q.closeRaces()
	return errors.Join(err, q.db.close())
}

func (q *Queue) Conn(actor string) target.Conn {
	if q.races {
		return q.raceConn(actor)
	}
	return &conn{q: q, actor: actor, db: q.db, code: q.code, held: map[int64]*rivertype.JobRow{}}
}

// Snapshot reads every job (River's JobGetByIDMany) and every effect.
func (q *Queue) Snapshot(ctx context.Context) (target.Snapshot, error) {
	ids, err := q.db.ints(ctx, "SELECT id FROM river_job ORDER BY id")
	if err != nil {
		return target.Snapshot{}, err
	}
	var snap target.Snapshot
	if len(ids) > 0 {
		rows, err := q.db.exec().JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: ids})
		if err != nil {
			return snap, err
		}
		slices.SortFunc(rows, func(a, b *rivertype.JobRow) int { return int(a.ID - b.ID) })
		for _, r := range rows {
			j, err := jobOf(r)
			if err != nil {
				return snap, err
			}
			snap.Jobs = append(snap.Jobs, j)
		}
	}
	r, err := q.db.effects(ctx)
	if err != nil {
		return snap, err
	}
	defer r.Close()
	snap.Effects, err = effectsql.Scan(r)
	return snap, err
}

// wall and virt convert between durasim's virtual time and the
// timestamps River keeps.
func wall(t target.Time) time.Time   { return scheduler.Time(t).Wall() }
func virt(w time.Time) target.Time   { return target.Time(scheduler.FromWall(w)) }
func wallp(t target.Time) *time.Time { w := wall(t); return &w }
func virtp(w *time.Time) target.Time {
	if w == nil {
		return 0
	}
	return virt(*w)
}

// argsJSON is a job's encoded args.
type argsJSON struct {
	Tenant  string `json:"tenant"`
	Doc     string `json:"doc"`
	Version int    `json:"version"`
	Source  int64  `json:"source,omitempty"`
}

var states = map[rivertype.JobState]target.State{
	rivertype.JobStateAvailable: target.Available, rivertype.JobStateScheduled: target.Scheduled,
	rivertype.JobStateRunning: target.Running, rivertype.JobStateRetryable: target.Retryable,
	rivertype.JobStatePending: target.Pending, rivertype.JobStateCompleted: target.Completed,
	rivertype.JobStateDiscarded: target.Discarded, rivertype.JobStateCancelled: target.Cancelled,
}

// jobOf is River's row as the seam's job.
func jobOf(r *rivertype.JobRow) (target.Job, error) {
	var a argsJSON
	if err := json.Unmarshal(r.EncodedArgs, &a); err != nil {
		return target.Job{}, fmt.Errorf("rivertarget: job %d: args: %w", r.ID, err)
	}
	st, ok := states[r.State]
	if !ok {
		return target.Job{}, fmt.Errorf("rivertarget: job %d: unknown state %q", r.ID, r.State)
	}
	return target.Job{
		ID: target.JobID(r.ID), Kind: r.Kind, Args: target.Args{Tenant: a.Tenant, Doc: a.Doc, Version: a.Version, Source: target.JobID(a.Source)},
		State: st, Attempt: r.Attempt, MaxAttempts: r.MaxAttempts, AttemptedBy: slices.Clone(r.AttemptedBy),
		AttemptedAt: virtp(r.AttemptedAt), ScheduledAt: virt(r.ScheduledAt), FinalizedAt: virtp(r.FinalizedAt),
		Errors: len(r.Errors), Unique: len(r.UniqueKey) > 0,
	}, nil
}

// availableJobs reads JobGetAvailable's result: a slice of rows up to
// v0.47, a result holding them (Jobs) since, so one adapter builds against
// both.
func availableJobs(res any) []*rivertype.JobRow {
	if jobs, ok := res.([]*rivertype.JobRow); ok {
		return jobs
	}
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if f := v.Elem().FieldByName("Jobs"); f.IsValid() {
			if jobs, ok := f.Interface().([]*rivertype.JobRow); ok {
				return jobs
			}
		}
	}
	return nil
}

const queueName = "default"
