package asynqchaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/internal/redistest"
	"github.com/durasim/durasim/target"
)

// Report is a finished asynq run: the workload's report, and how many
// documents the skewed client scheduled.
type Report struct {
	*workload.Report
	Scheduled int
}

// Run runs an asynq chaos campaign on the workload (package
// crash/workload) and checks it. The error is a *UsageError for bad
// input, another error when the run could not finish; a finished run
// returns its report, whose OK says whether every check held.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	pool, err := workload.OpenPool(octx, cfg.DB, "durasim-orchestrator", 8)
	if err == nil {
		err = workload.PGPrepare(octx, pool)
	}
	cancel()
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		return nil, &UsageError{Err: fmt.Errorf("database: %w", err)}
	}
	defer pool.Close()
	a := &adapter{cfg: cfg, pool: pool, client: asynq.NewClient(redisOpt(cfg.Redis)), insp: asynq.NewInspector(redisOpt(cfg.Redis))}
	defer a.close()
	if err := a.reset(); err != nil {
		return nil, err
	}
	env := []string{"DURASIM_PG_URL=" + cfg.DB, redistest.EnvAddr + "=" + cfg.Redis} // by environment, not argv: no password in ps
	if cfg.TZ != "" {
		env = append(env, "TZ="+cfg.TZ)
	}
	rep, err := workload.Run(ctx, workload.Spec{Config: cfg.Config, Lib: "asynq", Name: "asynqchaos", Role: "asynq-worker", Stream: 0xa5e9,
		Env: env, Adapter: a, Feed: Feed(cfg), Unique: true, DrainDelay: cfg.DrainDelay, StopWait: ShutdownTimeout + 10*time.Second,
		Poll: 250 * time.Millisecond, Start: start})
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return &Report{Report: rep, Scheduled: a.scheduled}, nil
}

// adapter is asynq's part of the workload: its Client's enqueues, its
// Inspector's view of the queue, the tasks and effects read back.
type adapter struct {
	cfg    Config
	pool   *pgxpool.Pool
	client *asynq.Client
	insp   *asynq.Inspector

	mu        sync.Mutex
	scheduled int
}

func (a *adapter) close() {
	a.client.Close()
	a.insp.Close()
}

// reset refuses a Redis where an asynq server serves the run's queue
// now (emptying it would pull its tasks away), then deletes the queue.
func (a *adapter) reset() error {
	if err := redistest.Ping(a.cfg.Redis); err != nil {
		return usage("redis-server at %s: %v", a.cfg.Redis, err)
	}
	servers, err := a.insp.Servers()
	if err != nil {
		return usage("redis-server at %s: %v", a.cfg.Redis, err)
	}
	for _, s := range servers {
		if _, ok := s.Queues[Queue]; ok {
			return usage("an asynq server (%s, pid %d) serves queue %q on %s now: give another -redis", s.Host, s.PID, Queue, a.cfg.Redis)
		}
	}
	qs, err := a.insp.Queues()
	if err != nil {
		return err
	}
	if !slices.Contains(qs, Queue) {
		return nil
	}
	// DeleteQueue leaves the completed tasks (their hashes, so their task
	// IDs stay taken: asynqrepro's TestDeleteQueueKeepsCompletedTasks):
	// they go first.
	if _, err := a.insp.DeleteAllCompletedTasks(Queue); err != nil {
		return fmt.Errorf("emptying queue %q: %w", Queue, err)
	}
	if err := a.insp.DeleteQueue(Queue, true); err != nil {
		if qi, ierr := a.insp.GetQueueInfo(Queue); ierr == nil && qi.Active > 0 {
			return usage("queue %q on %s has %d tasks active (an earlier run's, killed: asynq's recoverer takes them back about a minute after their last heartbeat); wait, or give another -redis", Queue, a.cfg.Redis, qi.Active)
		}
		return fmt.Errorf("emptying queue %q: %w", Queue, err)
	}
	return nil
}

// Args is a child's flags: `durasim asynq-worker`'s.
func (a *adapter) Args(c crash.Child) []string {
	return ChildConfig{Child: workload.ChildOf(c, a.cfg.Config), RetryDelay: a.cfg.RetryDelay}.Args()
}

// Insert enqueues document i with its task ID through asynq's Client;
// asynq refusing the ID as taken is a skipped insert. Every fourth
// document is scheduled ScheduleIn ahead by a clock ClientSkew off the
// servers'.
func (a *adapter) Insert(_ context.Context, i int, doc workload.DocArgs) (workload.Entry, error) {
	payload, err := json.Marshal(doc)
	if err != nil {
		return workload.Entry{}, err
	}
	opts := []asynq.Option{asynq.TaskID(TaskID(i)), asynq.Queue(Queue), asynq.MaxRetry(a.cfg.MaxAttempts - 1),
		asynq.Timeout(a.cfg.JobTimeout), asynq.Retention(24 * time.Hour)}
	sched := i%4 == 0
	if sched {
		opts = append(opts, asynq.ProcessAt(time.Now().Add(a.cfg.ClientSkew+a.cfg.ScheduleIn)))
	}
	_, err = a.client.Enqueue(asynq.NewTask(TaskType, payload), opts...)
	skipped := errors.Is(err, asynq.ErrTaskIDConflict)
	if err != nil && !skipped {
		return workload.Entry{}, fmt.Errorf("enqueue: %w", err)
	}
	if sched && !skipped {
		a.mu.Lock()
		a.scheduled++
		a.mu.Unlock()
	}
	return workload.Entry{Job: int64(i), Unique: true, Skipped: skipped}, nil
}

// Available is the queue's pending tasks.
func (a *adapter) Available(context.Context) (int, error) {
	qi, err := a.insp.GetQueueInfo(Queue)
	if err != nil {
		return 0, err
	}
	return qi.Pending, nil
}

// Live is the tasks pending, scheduled, active, in retry or being
// aggregated.
func (a *adapter) Live(context.Context) (int, error) {
	qi, err := a.insp.GetQueueInfo(Queue)
	if err != nil {
		return 0, err
	}
	return qi.Pending + qi.Active + qi.Scheduled + qi.Retry + qi.Aggregating, nil
}

// TakenOver: asynq's Inspector shows h's task active again at a later
// attempt (Retried, counted by the recoverer's retry, is at least h's
// attempt), or finished by another since.
func (a *adapter) TakenOver(_ context.Context, h workload.Holding) bool {
	ti, err := a.insp.GetTaskInfo(Queue, TaskID(int(h.Job)))
	return err == nil && ti.Retried >= h.Attempt && (ti.State == asynq.TaskStateActive || ti.State == asynq.TaskStateCompleted)
}

// Snapshot reads the tasks back through asynq's Inspector and the
// effects from the database.
func (a *adapter) Snapshot(ctx context.Context, docs int, base time.Time) (target.Snapshot, error) {
	return snapshot(ctx, a.insp, a.pool, docs, base)
}

// Describe is asynq's header and its clock faults' line.
func (a *adapter) Describe(r *workload.Report) {
	c := a.cfg
	r.Header = fmt.Sprintf("asynq chaos: asynq %s's own Server and Client on redis-server, design %s (%s), %d processes (%d never killed) × concurrency %d, seed %d",
		Version(), c.Design, What(c.Design), c.Workers, c.Steady, c.Concurrency, c.Seed)
	zones := strings.Join(r.Zones, ", ")
	if zones == "" {
		zones = "none recorded"
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r.Intro = append(r.Intro, fmt.Sprintf("clock faults: children's TZ=%q (their zones: %s); the client's clock %v off the servers' (every fourth document scheduled %v ahead by it: %d)",
		c.TZ, zones, c.ClientSkew, c.ScheduleIn, a.scheduled))
	r.StateFrom = "asynq's Inspector and the database"
	r.NotChecked = "the recoverer's and forwarder's writes are not in the histories"
}
