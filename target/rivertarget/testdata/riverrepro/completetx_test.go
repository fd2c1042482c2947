package riverrepro

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
)

// docArgs is the job: write one document's side effect.
type docArgs struct {
	Doc string `json:"doc"`
}

func (docArgs) Kind() string { return "repro_doc" }

// effectWorker writes its side effect and completes the job in one
// transaction, checking only JobCompleteTx's error, as the doc comment of
// JobCompleteTx shows (job_complete_tx.go):
//
//	_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
//	if err != nil {
//		// handle error
//	}
type effectWorker struct {
	river.WorkerDefaults[docArgs]
	db       *sql.DB
	hold     map[int]chan struct{} // per attempt: slow work until closed, which does not watch ctx
	started  chan *river.Job[docArgs]
	returned chan completion
}

// completion is what JobCompleteTx returned to one attempt.
type completion struct {
	attempt int
	row     *rivertype.JobRow
}

func (w *effectWorker) Work(ctx context.Context, job *river.Job[docArgs]) error {
	w.started <- job
	if h, ok := w.hold[job.Attempt]; ok {
		<-h // a blocking call that takes no context
	}
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "INSERT INTO effect (job_id, attempt) VALUES (?, ?)", job.ID, job.Attempt); err != nil {
		return err
	}
	done, err := river.JobCompleteTx[*riversqlite.Driver](ctx, tx, job)
	if err != nil {
		return err
	}
	w.returned <- completion{attempt: job.Attempt, row: done.JobRow}
	return tx.Commit()
}

// Both clients share these settings: a job is timed out after 1s and
// stuck after 1s (RescueStuckJobsAfter may not be below JobTimeout).
const (
	jobTimeout  = time.Second
	rescueAfter = time.Second
)

func newClient(t *testing.T, d *testDB, id string, queue string, workers *river.Workers, leader bool) *river.Client[*sql.Tx] {
	t.Helper()
	c, err := river.NewClient(d.driver, &river.Config{
		ID: id, Logger: quiet, Queues: map[string]river.QueueConfig{queue: {MaxWorkers: 2}}, Workers: workers,
		FetchPollInterval: 20 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		JobTimeout: jobTimeout, RescueStuckJobsAfter: rescueAfter, LeaderElectionDisabled: !leader,
		TestOnly: true, // only drops the maintenance services' random stagger at start (client.go, NewClient)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func stop(t *testing.T, c *river.Client[*sql.Tx]) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Stop(ctx); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func recv[T any](t *testing.T, ch <-chan T, within time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(within):
		t.Fatalf("timed out after %s waiting for %s", within, what)
		panic("unreachable")
	}
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(within); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
	}
}

// leaderUntil runs River's maintenance, which runs on the leader only,
// until the job's next attempt starts: a client joins and takes
// leadership; its JobRescuer's first pass (at start, then every 30s)
// finds attempt 1 stuck and makes the job retryable, and its
// JobScheduler's pass (at start, then every 5s, looking 5s ahead) makes
// it available. The two first passes run side by side: if the
// scheduler's came before the rescue, a second leader takes over rather
// than wait 5s for the next one. The last leader runs to the end of the
// test.
func leaderUntil(t *testing.T, d *testDB, id int64, workers *river.Workers, started <-chan *river.Job[docArgs]) *river.Job[docArgs] {
	t.Helper()
	c := newClient(t, d, "leader-1", "maintenance", workers, true)
	waitFor(t, 5*time.Second, "the rescue", func() bool { return d.job(t, id).State != rivertype.JobStateRunning })
	time.Sleep(200 * time.Millisecond)
	if d.job(t, id).State == rivertype.JobStateRetryable {
		t.Log("the leader's first scheduler pass ran before its rescue: a second leader takes over")
		stop(t, c)
		c = newClient(t, d, "leader-2", "maintenance", workers, true)
	}
	t.Cleanup(func() { stop(t, c) })
	return recv(t, started, 5*time.Second, "the leader's schedule, and the next attempt")
}

// TestJobCompleteTxReturnsARowThatIsNotCompleted runs River's client:
// attempt 1 of a job outlives its JobTimeout and RescueStuckJobsAfter in
// work that does not watch its context; the leader's JobRescuer makes the
// job retryable and its JobScheduler available; attempt 2 starts. Attempt
// 1's work then returns (its context expired long ago, so its transaction
// cannot begin) and River's executor reports that error for the job:
// JobSetStateIfRunningMany matches the job by id and state = 'running',
// which attempt 2's run satisfies (see TestSupersededAttemptReport), so
// the job leaves running under attempt 2. Attempt 2 then writes its
// effect and calls JobCompleteTx, which returns the job in that state,
// not completed, with no error: the handler, checking only the error as
// the doc comment shows, commits. River runs the job again, and attempt 3
// writes the same effect a second time.
//
// River v0.51.2: job_complete_tx.go, JobCompleteTx ("Returns the updated,
// completed job"; it returns rows[0] of JobSetStateIfRunningMany without
// looking at its state); riverdriver/riversqlite river_sqlite_driver.go,
// Executor.JobSetStateIfRunningMany (when JobSetStateIfRunning matches no
// running row, JobSetMetadataIfNotRunning returns the row as it is);
// internal/dbsqlc/river_job.sql, JobSetStateIfRunning (WHERE id = @id AND
// state = 'running') and JobSetMetadataIfNotRunning; internal/jobexecutor
// job_executor.go, reportError (a retry within the scheduler's interval
// is made available at once).
func TestJobCompleteTxReturnsARowThatIsNotCompleted(t *testing.T) {
	d := openDB(t)
	ctx := context.Background()
	if _, err := d.db.ExecContext(ctx, "CREATE TABLE effect (job_id INTEGER NOT NULL, attempt INTEGER NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	w := &effectWorker{db: d.db, hold: map[int]chan struct{}{1: make(chan struct{}), 2: make(chan struct{})},
		started: make(chan *river.Job[docArgs], 10), returned: make(chan completion, 10)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)

	// The worker client: the default queue, two workers, no leadership.
	a := newClient(t, d, "worker-a", "default", workers, false)
	t.Cleanup(func() { stop(t, a) })
	released := map[int]bool{}
	release := func(attempt int) {
		if !released[attempt] {
			released[attempt] = true
			close(w.hold[attempt])
		}
	}
	t.Cleanup(func() { release(1); release(2) }) // before a stops, if the test ends early
	ins, err := a.Insert(ctx, docArgs{Doc: "d1"}, &river.InsertOpts{MaxAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	id := ins.Job.ID
	a1 := recv(t, w.started, 5*time.Second, "attempt 1")
	time.Sleep(time.Until(a1.AttemptedAt.Add(rescueAfter + 100*time.Millisecond)))

	a2 := leaderUntil(t, d, id, workers, w.started)
	if a2.Attempt != 2 {
		t.Fatalf("the rescued job was fetched again as attempt %d, want 2", a2.Attempt)
	}
	release(1) // attempt 1 returns context.DeadlineExceeded from BeginTx; River reports it
	waitFor(t, 3*time.Second, "attempt 1's error report", func() bool { return d.job(t, id).State != rivertype.JobStateRunning })
	j := d.job(t, id)
	last := j.Errors[len(j.Errors)-1]
	if j.Attempt != 2 || last.Attempt != 1 {
		t.Fatalf("after attempt 1's report: attempt %d, last error from attempt %d; want attempt 2 holding the job, the error from attempt 1", j.Attempt, last.Attempt)
	}
	t.Logf("attempt 1's late error report (%q) moved the job attempt 2 holds to %s", last.Error, j.State)

	release(2)
	c := recv(t, w.returned, 5*time.Second, "attempt 2's JobCompleteTx")
	if c.attempt != 2 {
		t.Fatalf("JobCompleteTx returned to attempt %d first, want 2", c.attempt)
	}
	if c.row.State == rivertype.JobStateCompleted {
		t.Fatalf("JobCompleteTx returned a completed job to attempt 2: River no longer behaves as this test shows")
	}
	t.Logf("JobCompleteTx returned no error and a job in state %s (attempt %d, finalized_at %v); the handler committed its effect", c.row.State, c.row.Attempt, c.row.FinalizedAt)

	c3 := recv(t, w.returned, 5*time.Second, "attempt 3's JobCompleteTx")
	waitFor(t, 3*time.Second, "the job completed", func() bool { return d.job(t, id).State == rivertype.JobStateCompleted })
	var effects int
	if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM effect WHERE job_id = ?", id).Scan(&effects); err != nil {
		t.Fatal(err)
	}
	if effects != 2 || c3.attempt != 3 || c3.row.State != rivertype.JobStateCompleted {
		t.Fatalf("%d effects committed for the job (then attempt %d got a %s job), want 2: attempt 2's and attempt 3's", effects, c3.attempt, c3.row.State)
	}
	t.Logf("the one job's effect was committed twice: by attempt 2 (JobCompleteTx returned %s) and by attempt 3", c.row.State)
}

// TestJobSetStateIfRunningManyReturnsTheUnchangedRow is the driver-level
// behaviour JobCompleteTx relies on, in the handler's transaction as
// JobCompleteTx runs it: for a job no longer running,
// JobSetStateIfRunningMany returns the row as it is, with no error, and
// JobCompleteTx hands that row back as "the updated, completed job" — a
// retryable one, or the row another attempt completed (its finalized_at,
// its attempt), though this call completed nothing.
//
// River v0.51.2: riverdriver/riversqlite river_sqlite_driver.go,
// Executor.JobSetStateIfRunningMany (sql.ErrNoRows from JobSetStateIfRunning
// falls back to JobSetMetadataIfNotRunning, whose row is returned);
// internal/dbsqlc/river_job.sql, JobSetStateIfRunning and
// JobSetMetadataIfNotRunning; job_complete_tx.go, JobCompleteTx.
func TestJobSetStateIfRunningManyReturnsTheUnchangedRow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		after     func(t *testing.T, d *testDB, id int64) // what happens to attempt 1's job before its JobCompleteTx
		want      rivertype.JobState
		finalized *time.Time
	}{
		{name: "rescued to retryable", want: rivertype.JobStateRetryable,
			after: func(t *testing.T, d *testDB, id int64) {
				d.rescue(t, at(2*time.Second), at(12*time.Second), at(13*time.Second), nil)
			}},
		{name: "completed by another attempt", want: rivertype.JobStateCompleted, finalized: ptr(at(14 * time.Second)),
			after: func(t *testing.T, d *testDB, id int64) {
				d.rescue(t, at(2*time.Second), at(12*time.Second), at(13*time.Second), nil)
				d.schedule(t, at(13*time.Second))
				d.fetch(t, "worker-b", at(13*time.Second))
				setState(t, d.exec, riverdriver.JobSetStateCompleted(id, at(14*time.Second), nil), at(14*time.Second))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := openDB(t)
			ctx := context.Background()
			id := d.insert(t, 5, t0)
			if j := d.fetch(t, "worker-a", at(time.Second)); j.ID != id || j.Attempt != 1 {
				t.Fatalf("fetched job %d attempt %d, want job %d attempt 1", j.ID, j.Attempt, id)
			}
			tc.after(t, d, id)

			// Attempt 1's handler: JobCompleteTx's statement in its transaction.
			tx, err := d.db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			row := setState(t, d.driver.UnwrapExecutor(tx), riverdriver.JobSetStateCompleted(id, at(20*time.Second), nil), at(20*time.Second))
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if row.State != tc.want || row.State == rivertype.JobStateCompleted && !row.FinalizedAt.Equal(*tc.finalized) {
				t.Fatalf("attempt 1's completion returned state %s finalized_at %v; want the unchanged %s row", row.State, row.FinalizedAt, tc.want)
			}
			if got := d.job(t, id); got.State != tc.want {
				t.Fatalf("job is %s after attempt 1's completion, want %s", got.State, tc.want)
			}
			t.Logf("no error, and a %s row (attempt %d, finalized_at %v) for a call that completed nothing", row.State, row.Attempt, row.FinalizedAt)
		})
	}
}
